package telemetry

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// An e-stop never waits for the check of a signed command: with the
// check stuck (a slow disk under the nonce store), an e-stop on cmd and
// on the estop topic is obeyed and answered.
func TestEStopDoesNotWaitForAuthorize(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	release, entered := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.Authorize = func(c protocol.Command, _ []byte) *protocol.ReplyError {
			if c.Op == protocol.OpMissionStart {
				once.Do(func() { close(entered) })
				<-release
			}
			return nil
		}
	})
	defer close(release)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"s1","op":"mission.start","mission_id":"m"}`))
	<-entered
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"x1","op":"estop"}`))
	if r := replyByID(t, watch, tp.Reply(), "x1"); !r.OK {
		t.Errorf("e-stop on cmd: %+v", r.Error)
	}
	_ = pub.Publish(tp.EStop(), 1, false, []byte(`{"id":"x2"}`))
	if r := replyByID(t, watch, tp.Reply(), "x2"); !r.OK {
		t.Errorf("e-stop on the estop topic: %+v", r.Error)
	}
	if n := h.cmds.ops(protocol.OpEStop); n != 2 {
		t.Errorf("%d e-stops reached the runner, want 2", n)
	}
	if n := h.cmds.ops(protocol.OpMissionStart); n != 0 {
		t.Errorf("the start went on before it was authorised")
	}
}

// A refused command reaches nothing and its refusal is not kept: the same
// command sent again is checked again.
func TestAuthorizeRefusal(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	var calls atomic.Int32
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.Authorize = func(c protocol.Command, payload []byte) *protocol.ReplyError {
			if calls.Add(1) == 1 {
				return &protocol.ReplyError{Code: protocol.ErrSignatureRequired, Message: "no", Path: "/auth"}
			}
			return nil
		}
	})
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"r1","op":"mission.resume"}`))
	if r := replyByID(t, watch, tp.Reply(), "r1"); r.OK || r.Error.Code != protocol.ErrSignatureRequired {
		t.Fatalf("first: %+v", r)
	}
	if n := h.cmds.count("r1"); n != 0 {
		t.Fatalf("a refused command reached the runner %d times", n)
	}
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"r1","op":"mission.resume"}`))
	mqtttest.Eventually(t, "the second try done", func() bool { return h.cmds.count("r1") == 1 })
	if calls.Load() != 2 {
		t.Errorf("Authorize ran %d times, want 2", calls.Load())
	}
}
