package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

func hasTopic(r *mqtttest.Recorder, topic string, pred func(mqtttest.Msg) bool) func() bool {
	return func() bool {
		return slices.ContainsFunc(r.On(topic), pred)
	}
}

func any_(mqtttest.Msg) bool { return true }

// showsStatus matches a status message that carries node's new letter:
// in a delta, or in a keyframe (which takes the Source's pending changes
// with it when it comes first).
func showsStatus(node int32, letter byte) func(mqtttest.Msg) bool {
	return func(m mqtttest.Msg) bool {
		s, err := protocol.DecodeStatus(m.Payload)
		if err != nil {
			return false
		}
		if s.IsKeyframe() {
			return int(node) < len(s.Keyframe) && s.Keyframe[node] == letter
		}
		return slices.Contains(s.Changes, protocol.NodeStatus{Node: node, Status: letter})
	}
}

// A ground station that subscribes after the daemon published finds
// connection, factsheet, state and tree retained.
func TestRetainedTopicsForLateSubscriber(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	tp := h.d.Topics()
	early := mqtttest.NewRecorder(t, b.URL(), tp.Tree())
	mqtttest.Eventually(t, "tree published", hasTopic(early, tp.Tree(), any_))

	late := mqtttest.NewRecorder(t, b.URL(), tp.Connection(), tp.Factsheet(), tp.State(), tp.Tree())
	for _, topic := range []string{tp.Connection(), tp.Factsheet(), tp.State(), tp.Tree()} {
		mqtttest.Eventually(t, "retained "+topic, hasTopic(late, topic, func(m mqtttest.Msg) bool { return m.Retained }))
	}
	c, err := protocol.DecodeConnection(late.On(tp.Connection())[0].Payload)
	if err != nil || c.State != protocol.ConnOnline || c.Robot != "rover-1" || c.Seq == 0 {
		t.Errorf("connection: %+v %v", c, err)
	}
	f, err := protocol.DecodeFactsheet(late.On(tp.Factsheet())[0].Payload)
	if err != nil || f.Version != "test" || f.Limits.TelemetryHz != 10 || f.Limits.MaxCommandBytes != 256<<10 || f.Limits.CommandBurst != 40 {
		t.Errorf("factsheet: %+v %v", f, err)
	}
	tr, err := protocol.DecodeTree(late.On(tp.Tree())[0].Payload)
	if err != nil || tr.Mission != "m1" || len(tr.Nodes) != 4 {
		t.Errorf("tree: %+v %v", tr, err)
	}
	if _, err := protocol.DecodeState(late.On(tp.State())[0].Payload); err != nil {
		t.Error(err)
	}

	// A clean stop leaves OFFLINE retained (the will is discarded).
	h.stop(t)
	after := mqtttest.NewRecorder(t, b.URL(), tp.Connection())
	mqtttest.Eventually(t, "retained OFFLINE", hasTopic(after, tp.Connection(), func(m mqtttest.Msg) bool {
		off, err := protocol.DecodeConnection(m.Payload)
		return m.Retained && err == nil && off.State == protocol.ConnOffline && off.Seq == c.Seq+1
	}))
}

// Killing the daemon's TCP connection without a DISCONNECT makes the
// broker publish the retained last will; the daemon then reconnects and
// says ONLINE again.
func TestLastWillOnBrokenConnection(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Connection())
	mqtttest.Eventually(t, "ONLINE", hasTopic(watch, tp.Connection(), func(m mqtttest.Msg) bool { return state(m) == protocol.ConnOnline }))

	h.gate.Set(true) // no reconnect yet
	h.gate.Sever()
	mqtttest.Eventually(t, "last will", hasTopic(watch, tp.Connection(), func(m mqtttest.Msg) bool { return state(m) == protocol.ConnBroken }))
	mqtttest.Eventually(t, "link down reported", func() bool { l, _ := h.links.last(); return !l.Broker })

	late := mqtttest.NewRecorder(t, b.URL(), tp.Connection())
	mqtttest.Eventually(t, "retained CONNECTION_BROKEN", hasTopic(late, tp.Connection(), func(m mqtttest.Msg) bool {
		c, err := protocol.DecodeConnection(m.Payload)
		return m.Retained && err == nil && c.State == protocol.ConnBroken && c.Seq == 0
	}))

	watch.Reset()
	h.gate.Set(false)
	mqtttest.Eventually(t, "ONLINE after reconnect", hasTopic(watch, tp.Connection(), func(m mqtttest.Msg) bool { return state(m) == protocol.ConnOnline }))
}

// A last will of an earlier connection published while the robot is up
// (aedes publishes a dead node's wills once its peers miss its
// heartbeats, when the robot is back on another node) is answered with
// ONLINE again, so the broker does not keep CONNECTION_BROKEN for a robot
// that runs. Anything else on the topic changes nothing.
func TestStaleWillAnsweredWithOnline(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Connection())
	mqtttest.Eventually(t, "ONLINE", hasTopic(watch, tp.Connection(), func(m mqtttest.Msg) bool { return state(m) == protocol.ConnOnline }))
	pub := mqtttest.NewPublisher(t, b.URL())
	ts := protocol.FormatTS(time.Now())
	other, _ := json.Marshal(protocol.ConnectionMsg{Header: protocol.Header{Robot: "someone-else", TS: ts, Boot: 1}, State: protocol.ConnBroken})
	offline, _ := json.Marshal(protocol.ConnectionMsg{Header: protocol.Header{Robot: tp.Robot(), Seq: 7, TS: ts, Boot: 1}, State: protocol.ConnOffline})
	for _, p := range [][]byte{other, offline} {
		if err := pub.Publish(tp.Connection(), 1, true, p); err != nil {
			t.Fatal(err)
		}
	}
	will, _ := json.Marshal(protocol.ConnectionMsg{Header: protocol.Header{Robot: tp.Robot(), TS: ts, Boot: 1}, State: protocol.ConnBroken})
	if err := pub.Publish(tp.Connection(), 1, true, will); err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "ONLINE after the stale will", func() bool {
		msgs := watch.On(tp.Connection())
		return len(msgs) > 1 && state(msgs[len(msgs)-1]) == protocol.ConnOnline && bytes.Contains(msgs[len(msgs)-2].Payload, []byte(protocol.ConnBroken))
	})
	var onlines int
	for _, m := range watch.On(tp.Connection()) {
		if state(m) == protocol.ConnOnline {
			onlines++
		}
	}
	if onlines != 2 { // the birth, and the answer to the will; none to the others
		t.Errorf("%d ONLINE messages, want 2", onlines)
	}
	late := mqtttest.NewRecorder(t, b.URL(), tp.Connection())
	mqtttest.Eventually(t, "ONLINE retained", hasTopic(late, tp.Connection(), func(m mqtttest.Msg) bool { return m.Retained && state(m) == protocol.ConnOnline }))
}

func state(m mqtttest.Msg) string {
	c, err := protocol.DecodeConnection(m.Payload)
	if err != nil {
		return ""
	}
	return c.State
}

// The embedded broker restarts on the same port (forgetting everything):
// the daemon reconnects, republishes its retained topics, and follows
// with a status keyframe; deltas resume after it.
func TestKeyframeAfterBrokerRestart(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	addr := b.Addr()
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	tp := h.d.Topics()

	b.Close()
	mqtttest.Eventually(t, "link down", func() bool { return !h.d.currentConn().IsUp() })
	h.src.setStatus(1, 'R') // while down: coalesced by the Source
	h.src.setStatus(2, 'S')

	h.gate.Set(true) // let the watcher subscribe first
	b2 := mqtttest.StartBroker(t, addr)
	watch := mqtttest.NewRecorder(t, b2.URL(), tp.Status(), tp.State())
	h.gate.Set(false)

	mqtttest.Eventually(t, "keyframe after reconnect", hasTopic(watch, tp.Status(), func(m mqtttest.Msg) bool {
		s, err := protocol.DecodeStatus(m.Payload)
		return err == nil && s.Keyframe == "IRSI"
	}))
	late := mqtttest.NewRecorder(t, b2.URL(), tp.State(), tp.Tree(), tp.Factsheet())
	for _, topic := range []string{tp.State(), tp.Tree(), tp.Factsheet()} {
		mqtttest.Eventually(t, "republished "+topic, hasTopic(late, topic, func(m mqtttest.Msg) bool { return m.Retained }))
	}

	h.src.setStatus(3, 'F')
	mqtttest.Eventually(t, "status after keyframe", hasTopic(watch, tp.Status(), showsStatus(3, 'F')))
}

// Deltas carry only changes, never an empty list; seq rises by one per
// message.
func TestStatusDeltasAndSeq(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Status())
	h.waitUp(t)
	for i := range 4 {
		h.src.setStatus(int32(i), 'R')
		mqtttest.Eventually(t, "status", hasTopic(watch, tp.Status(), showsStatus(int32(i), 'R')))
	}
	var last uint64
	for _, m := range watch.On(tp.Status()) {
		s, err := protocol.DecodeStatus(m.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsKeyframe() && len(s.Changes) == 0 {
			t.Errorf("empty delta published: %s", m.Payload)
		}
		if last != 0 && s.Seq != last+1 {
			t.Errorf("seq %d after %d", s.Seq, last)
		}
		last = s.Seq
	}
}

// state.request republishes everything with a keyframe, and is also
// forwarded to the command handler, whose reply is the one reply.
func TestStateRequest(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Status(), tp.Factsheet(), tp.Reply())
	watch.Reset()
	h.src.setMode(protocol.ModeRunning)
	g := newTestGround(t, b.URL(), nil)
	r, err := g.Send(context.Background(), "rover-1", protocol.Command{Op: protocol.OpStateRequest})
	if err != nil || !r.OK {
		t.Fatalf("reply %+v %v", r, err)
	}
	mqtttest.Eventually(t, "keyframe", hasTopic(watch, tp.Status(), func(m mqtttest.Msg) bool {
		s, _ := protocol.DecodeStatus(m.Payload)
		return s.IsKeyframe()
	}))
	mqtttest.Eventually(t, "factsheet again", hasTopic(watch, tp.Factsheet(), func(m mqtttest.Msg) bool { return !m.Retained }))
	if n := h.cmds.count(r.ID); n != 1 {
		t.Errorf("handler called %d times", n)
	}
	mqtttest.Eventually(t, "one reply", func() bool { return len(watch.On(tp.Reply())) >= 1 })
	var reply protocol.ReplyMsg
	_ = json.Unmarshal(watch.On(tp.Reply())[0].Payload, &reply)
	if reply.ID != r.ID || reply.Robot != "rover-1" {
		t.Errorf("reply %+v", reply)
	}
}

// Events without a broker are not lost, and the sink never blocks: a
// full queue counts a drop.
func TestEventSinkNeverBlocks(t *testing.T) {
	h := &harness{src: newFakeSource(0)}
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: h.src, Commands: &fakeHandler{}, EventQueue: 2})
	if err != nil {
		t.Fatal(err)
	}
	sink := d.EventSink()
	for range 5 { // not running: nothing drains the queue
		sink(protocol.Event{Kind: "log", Message: "x"})
	}
	if m := d.Metrics(); m.Dropped.Events != 3 || m.Queues.Events != 2 {
		t.Errorf("metrics %+v", m)
	}
}
