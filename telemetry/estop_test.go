package telemetry

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/protocol"
)

// stuckRobot is a runner.Hardware whose Apply blocks while the test holds
// it: the tick goroutine stuck mid-tick (as behind an expression that
// loops for seconds).
type stuckRobot struct {
	hold    atomic.Pointer[chan struct{}]
	entered chan struct{}
	gate    atomic.Bool
}

func (h *stuckRobot) Bind(*bt.Tree) runner.Binding { return nopBinding{} }
func (h *stuckRobot) Apply() error {
	if ch := h.hold.Load(); ch != nil {
		select {
		case h.entered <- struct{}{}:
		default:
		}
		<-*ch
	}
	return nil
}
func (h *stuckRobot) Safe() error                               { return nil }
func (h *stuckRobot) EStop(string)                              { h.gate.Store(true) }
func (h *stuckRobot) ReleaseEStop()                             { h.gate.Store(false) }
func (h *stuckRobot) Faults() []runner.Fault                    { return nil }
func (h *stuckRobot) Reading(string) (float64, time.Time, bool) { return 0, time.Time{}, false }
func (h *stuckRobot) Env() any                                  { return nil }

type nopBinding struct{}

func (nopBinding) Snapshot(*bt.Blackboard) {}

// The reply to an e-stop comes from the e-stop path while the tick
// goroutine is stuck, and the published state says ESTOP at once: the
// state topic is published by telemetry, which the e-stop signals.
func TestEStopWithTheTickStuck(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	hw := &stuckRobot{entered: make(chan struct{}, 1)}
	r, err := runner.New(runner.Config{Robot: "rover-1", TickHz: 50, Hardware: hw, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	hold := make(chan struct{})
	var released atomic.Bool
	release := func() {
		if released.CompareAndSwap(false, true) {
			hw.hold.Store(nil)
			close(hold)
		}
	}
	t.Cleanup(func() { release(); cancel(); <-done })

	h := startDaemon(t, b.URL(), func(c *DaemonConfig) { c.Source, c.Commands = r, r })
	tp := h.d.Topics()
	rec := mqtttest.NewRecorder(t, b.URL(), tp.Reply(), tp.State())
	h.waitUp(t)
	mission := `{"format":"botd/mission@1","id":"2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10","name":"m","main":"main",
		"trees":{"main":{"type":"MemSequence","children":[{"type":"Log","params":{"message":"go"}},{"type":"Wait","params":{"ms":60000}}]}}}`
	if rep := r.Do(ctx, protocol.Command{ID: "load", Op: protocol.OpMissionLoad, Mission: []byte(mission), Start: true}); !rep.OK {
		t.Fatalf("load: %+v", rep.Error)
	}
	mqtttest.Eventually(t, "the mission running", func() bool { return r.State().Mode == protocol.ModeRunning })

	hw.hold.Store(&hold)
	<-hw.entered // the tick is stuck in Apply from here on
	pub := mqtttest.NewPublisher(t, b.URL())
	for _, id := range []string{"stop-1", "stop-2"} {
		if err := pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"`+id+`","op":"estop"}`)); err != nil {
			t.Fatal(err)
		}
		if rep := replyByID(t, rec, tp.Reply(), id); !rep.OK {
			t.Fatalf("%s with the tick stuck: %+v", id, rep.Error)
		}
	}
	mqtttest.Eventually(t, "the state published as ESTOP", func() bool {
		msgs := rec.On(tp.State())
		if len(msgs) == 0 {
			return false
		}
		s, err := protocol.DecodeState(msgs[len(msgs)-1].Payload)
		return err == nil && s.Mode == protocol.ModeEStop && s.EStop
	})
	if !hw.gate.Load() {
		t.Fatal("the gate is open")
	}
	select {
	case <-hw.entered:
		t.Fatal("the tick ran again meanwhile")
	default: // still stuck in the same Apply
	}
	release()
	mqtttest.Eventually(t, "the mission paused by the e-stop", func() bool {
		s := r.State()
		return s.Mode == protocol.ModeEStop && s.Mission != nil && s.Mission.Status == protocol.RunPaused
	})
}
