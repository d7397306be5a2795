package telemetry

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// hugeRefusal answers every command with the refusal of a mission that
// has 20,000 problems and a message of megabytes, as a runner without
// bounds would.
type hugeRefusal struct{}

func (hugeRefusal) Do(_ context.Context, c protocol.Command) protocol.Reply {
	e := &protocol.ReplyError{Code: protocol.ErrValidation, Message: strings.Repeat("unknown attribute; ", 200000)}
	for i := range 20000 {
		e.Problems = append(e.Problems, protocol.ReplyProblem{Path: fmt.Sprintf("/trees/main/params/a%d", i), Message: "unknown parameter", Code: protocol.ErrValidation})
	}
	return protocol.Reply{ID: c.ID, Error: e}
}

// Nothing the daemon publishes comes near the broker's packet limit (2
// MiB for the embedded broker, which closes the connection of a client
// that sends more): a refusal with 20,000 problems, an event with a
// 3 MB message and data, a 3 MB blackboard value all go out bounded, and
// the daemon's connection is never cut.
func TestOutputsAreBounded(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.Commands = hugeRefusal{}
		c.TelemetryHz, c.BlackboardHz = 50, 50
	})
	tp := h.d.Topics()
	rec := mqtttest.NewRecorder(t, b.URL(), tp.Reply(), tp.Events(), tp.Blackboard(), tp.State())
	h.waitUp(t)
	max := h.d.cfg.MaxPublish
	huge := strings.Repeat("x", 3<<20)

	pub := mqtttest.NewPublisher(t, b.URL())
	if err := pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"big-1","op":"mission.load","mission":{}}`)); err != nil {
		t.Fatal(err)
	}
	h.d.EventSink()(protocol.Event{Kind: "log", Level: "info", Message: huge, Data: map[string]any{"value": huge}})
	h.src.setBB(bbv("blob", huge), bbv("n", 1.0))
	h.src.mu.Lock()
	h.src.state.Errors = []protocol.StateError{{Code: "NODE_ERROR", Level: "ERROR", Message: huge}}
	h.src.state.LastFailure = &protocol.Failure{Code: "NODE_ERROR", Message: huge}
	h.src.mu.Unlock()
	h.src.signal()

	mqtttest.Eventually(t, "the reply, the event, the blackboard and the state", func() bool {
		for _, m := range rec.On(tp.State()) {
			if s, err := protocol.DecodeState(m.Payload); err == nil && len(s.Errors) == 1 && s.LastFailure != nil {
				return len(rec.On(tp.Reply())) > 0 && len(rec.On(tp.Events())) > 0 && len(rec.On(tp.Blackboard())) > 0
			}
		}
		return false
	})
	for _, m := range rec.All() {
		if len(m.Payload) > max {
			t.Errorf("%s: %d bytes, more than the %d configured", m.Topic, len(m.Payload), max)
		}
	}
	rep := replies(t, rec, tp.Reply())[0]
	if e := rep.Error; rep.ID != "big-1" || e == nil || len(e.Problems) != protocol.MaxReplyProblems || e.More != 20000-protocol.MaxReplyProblems ||
		len(e.Message) > protocol.MaxReplyMessage || !strings.Contains(e.Message, "truncated") {
		t.Fatalf("reply %s: %d problems, %d more, message of %d bytes", rep.ID, len(e.Problems), e.More, len(e.Message))
	}
	ev, err := protocol.DecodeEvent(rec.On(tp.Events())[0].Payload)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Message) > protocol.MaxEventMessage || !strings.Contains(ev.Message, "truncated") || ev.Data["value"] != nil {
		t.Fatalf("event message of %d bytes, data %v", len(ev.Message), ev.Data)
	}
	bb, err := protocol.DecodeBlackboard(rec.On(tp.Blackboard())[0].Payload)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := bb.Values[0].Value.(string); bb.Values[0].Key != "blob" || len(s) > protocol.MaxValueBytes || !strings.Contains(s, "truncated") {
		t.Fatalf("blackboard value of %d bytes", len(s))
	}
	if n := h.d.currentConn().Connects(); n != 1 {
		t.Fatalf("the daemon's connection was cut: %d connects", n)
	}
}
