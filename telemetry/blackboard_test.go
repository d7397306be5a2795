package telemetry

import (
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

func (f *fakeSource) setBB(vals ...protocol.BlackboardValue) {
	f.mu.Lock()
	f.bb = vals
	f.mu.Unlock()
}

func bbv(key string, v any) protocol.BlackboardValue {
	return protocol.BlackboardValue{Key: key, Value: v}
}

// The blackboard goes by exception: a full message first, then only the
// values that moved past their deadband; a state.request brings a full
// one again; a ground station's table always has every value.
func TestBlackboardByException(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.TelemetryHz, c.BlackboardHz = 50, 50
		c.Deadbands = protocol.Deadbands{"*": 0, "pose.*": 0.05}
	})
	tp := h.d.Topics()
	rec := mqtttest.NewRecorder(t, b.URL(), tp.Blackboard())
	h.src.setBB(bbv("pose.x", 1.0), bbv("mode", "auto"), bbv("ok", true))
	h.waitUp(t)
	msgs := func() []protocol.BlackboardMsg {
		var out []protocol.BlackboardMsg
		for _, m := range rec.On(tp.Blackboard()) {
			bm, err := protocol.DecodeBlackboard(m.Payload)
			if err != nil {
				t.Fatalf("blackboard: %v", err)
			}
			out = append(out, bm)
		}
		return out
	}
	mqtttest.Eventually(t, "a full blackboard", func() bool { m := msgs(); return len(m) > 0 && m[0].Full && len(m[0].Values) == 3 })

	// Under the deadband: nothing goes out. Then a move past it, and a
	// change of a string: only those two.
	h.src.setBB(bbv("pose.x", 1.04), bbv("mode", "auto"), bbv("ok", true))
	h.src.setBB(bbv("pose.x", 1.06), bbv("mode", "manual"), bbv("ok", true))
	mqtttest.Eventually(t, "a delta", func() bool { return len(msgs()) >= 2 })
	d := msgs()[1]
	if d.Full || len(d.Values) != 2 || d.Values[0].Key != "pose.x" || d.Values[0].Value != 1.06 || d.Values[1].Value != "manual" {
		t.Fatalf("delta %+v", d)
	}
	var table protocol.BlackboardTable
	for _, m := range msgs() {
		table.Apply(m, time.Now())
	}
	if v := table.Values(time.Now()); !table.Complete() || len(v) != 3 || v[1].Key != "ok" || v[2].Value != 1.06 {
		t.Fatalf("table %+v", v)
	}

	n := len(msgs())
	pub := mqtttest.NewPublisher(t, b.URL())
	pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"s1","op":"state.request"}`))
	mqtttest.Eventually(t, "a full blackboard on request", func() bool { m := msgs(); return len(m) > n && m[len(m)-1].Full })
}

func TestDeadbandsAndTable(t *testing.T) {
	d := protocol.Deadbands{"*": 0.001, "pose.*": 0.02, "pose.heading": 0.01}
	for key, want := range map[string]float64{"pose.x": 0.02, "pose.heading": 0.01, "range.front": 0.001} {
		if got := d.For(key); got != want {
			t.Errorf("%s: %v, want %v", key, got, want)
		}
	}
	var tb protocol.BlackboardTable
	t0 := time.Unix(100, 0)
	tb.Apply(protocol.BlackboardMsg{Mission: "m", Values: []protocol.BlackboardValue{{Key: "a", Value: 1.0, AgeMs: 10}}}, t0)
	if tb.Complete() {
		t.Fatal("complete without a full message")
	}
	tb.Apply(protocol.BlackboardMsg{Mission: "m", Full: true, Values: []protocol.BlackboardValue{{Key: "a", Value: 2.0}, {Key: "b", Value: "x"}}}, t0)
	tb.Apply(protocol.BlackboardMsg{Mission: "m", Values: []protocol.BlackboardValue{{Key: "a", Value: 3.0, AgeMs: 5}}}, t0.Add(time.Second))
	v := tb.Values(t0.Add(2 * time.Second))
	if !tb.Complete() || len(v) != 2 || v[0].Value != 3.0 || v[0].AgeMs != 1005 || v[1].AgeMs != 2000 {
		t.Fatalf("values %+v", v)
	}
	tb.Apply(protocol.BlackboardMsg{Mission: "other", Values: []protocol.BlackboardValue{{Key: "c", Value: 1.0}}}, t0)
	if tb.Complete() || len(tb.Values(t0)) != 1 {
		t.Fatal("a new mission must start the table afresh")
	}
}
