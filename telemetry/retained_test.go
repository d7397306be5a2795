package telemetry

import (
	"fmt"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// A command left retained on cmd (by any tool) is never executed, at any
// start: it is answered RETAINED under its id, reported in an event and
// counted. A retained e-stop is obeyed all the same.
func TestRetainedCommandsAreNeverExecuted(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	tp, err := protocol.NewTopics("", "rover-1")
	if err != nil {
		t.Fatal(err)
	}
	pub := mqtttest.NewPublisher(t, b.URL())
	if err := pub.Publish(tp.Cmd(), 1, true, []byte(`{"id":"left-1","op":"mission.start","mission_id":"m1"}`)); err != nil {
		t.Fatal(err)
	}
	rec := mqtttest.NewRecorder(t, b.URL(), tp.Reply(), tp.Events())
	for boot := 1; boot <= 2; boot++ { // and again after a restart
		rec.Reset()
		h := startDaemon(t, b.URL(), nil)
		mqtttest.Eventually(t, fmt.Sprintf("boot %d: the RETAINED reply and its event", boot), func() bool {
			return len(rec.On(tp.Reply())) > 0 && len(rec.On(tp.Events())) > 0
		})
		rep := replies(t, rec, tp.Reply())[0]
		if rep.ID != "left-1" || rep.OK || rep.Error.Code != protocol.ErrRetained {
			t.Fatalf("boot %d: reply %+v", boot, rep.Reply)
		}
		ev, err := protocol.DecodeEvent(rec.On(tp.Events())[0].Payload)
		if err != nil || ev.Kind != "command.retained" || ev.Data["id"] != "left-1" {
			t.Fatalf("boot %d: event %+v %v", boot, ev, err)
		}
		if n := h.cmds.count(""); n != 0 {
			t.Fatalf("boot %d: the retained command reached the handler (%d calls)", boot, n)
		}
		if m := h.d.Metrics(); m.Dropped.Retained != 1 {
			t.Fatalf("boot %d: %d retained commands counted", boot, m.Dropped.Retained)
		}
		h.stop(t)
	}

	// A retained e-stop is obeyed; then, cleared, nothing is left.
	if err := pub.Publish(tp.Cmd(), 1, true, []byte(`{"id":"stop-left","op":"estop"}`)); err != nil {
		t.Fatal(err)
	}
	rec.Reset()
	h := startDaemon(t, b.URL(), nil)
	mqtttest.Eventually(t, "the retained e-stop obeyed", func() bool { return h.cmds.ops(protocol.OpEStop) == 1 && len(rec.On(tp.Reply())) > 0 })
	if rep := replies(t, rec, tp.Reply())[0]; rep.ID != "stop-left" || !rep.OK {
		t.Fatalf("retained e-stop: reply %+v", rep.Reply)
	}
	// A live command published with the retain flag reaches subscribers
	// without it (MQTT 3.1.1, 3.3.1.3): it is executed once, as sent.
	if err := pub.Publish(tp.Cmd(), 1, true, []byte(`{"id":"live-1","op":"mission.pause"}`)); err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "the live command executed", func() bool { return h.cmds.count("live-1") == 1 })
}
