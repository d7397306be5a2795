package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

// stuckHW is a robot whose Apply blocks while the test holds it: the tick
// goroutine is stuck in the middle of a tick, as it is behind an
// expression that loops for seconds.
type stuckHW struct {
	*fakeHW
	hold    atomic.Pointer[chan struct{}]
	entered chan struct{}
}

func (h *stuckHW) Apply() error {
	if ch := h.hold.Load(); ch != nil {
		select {
		case h.entered <- struct{}{}:
		default:
		}
		<-*ch
	}
	return h.fakeHW.Apply()
}

// stick blocks the tick goroutine in its next Apply and returns once it
// is blocked there; the returned function lets it go.
func (h *stuckHW) stick(t *testing.T) (release func()) {
	t.Helper()
	ch := make(chan struct{})
	h.hold.Store(&ch)
	<-h.entered
	var once atomic.Bool
	release = func() {
		if once.CompareAndSwap(false, true) {
			h.hold.Store(nil)
			close(ch)
		}
	}
	t.Cleanup(release)
	return release
}

func startStuckRunner(t *testing.T) (*testRunner, *stuckHW) {
	var hw *stuckHW
	tr := startRunner(t, "", func(c *Config) {
		hw = &stuckHW{fakeHW: c.Hardware.(*fakeHW), entered: make(chan struct{}, 1)}
		c.Hardware = hw
	})
	return tr, hw
}

func (h *fakeHW) gate() (closed bool, engaged int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.estop, h.estops
}

// The e-stop's reply comes from the e-stop path as soon as the gate is
// closed, while the tick goroutine is stuck; the state says ESTOP from
// then on; a second e-stop does not wait for the first; and the mode
// follows when the tick goroutine runs again.
func TestEStopRepliesWhileTheTickIsStuck(t *testing.T) {
	tr, hw := startStuckRunner(t)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	release := hw.stick(t)

	ctx, cancel := context.WithTimeout(context.Background(), waitEvent)
	defer cancel()
	for i, id := range []string{"stop-1", "stop-2", "stop-2", ""} { // a repeated id and none at all engage too
		rep := tr.Do(ctx, protocol.Command{ID: id, Op: protocol.OpEStop}) // the tick is still blocked in Apply
		if !rep.OK || rep.ID != id {
			t.Fatalf("e-stop %d with the tick stuck: %+v", i, rep.Error)
		}
		if closed, n := tr.hw.gate(); !closed || n != i+1 {
			t.Fatalf("e-stop %d: gate closed %v after %d e-stops", i, closed, n)
		}
		if s := tr.State(); s.Mode != protocol.ModeEStop || !s.EStop {
			t.Fatalf("state with the e-stop engaged and the tick stuck: mode %s estop %v", s.Mode, s.EStop)
		}
	}
	select {
	case <-tr.Changed(): // telemetry publishes the state on this signal
	default:
		t.Fatal("the e-stop did not signal a state change")
	}
	release()
	s := tr.waitFor("mission paused by the e-stop", func(s protocol.State) bool {
		return s.Mission != nil && s.Mission.Status == protocol.RunPaused
	})
	if s.Mode != protocol.ModeEStop || !s.EStop {
		t.Fatalf("after the tick ran: mode %s estop %v", s.Mode, s.EStop)
	}
}

// A reset sent before an e-stop never releases it, whatever order they
// reach the tick goroutine in.
func TestResetSentBeforeAnEStopDoesNotReleaseIt(t *testing.T) {
	tr, hw := startStuckRunner(t)
	tr.mustOK(protocol.Command{Op: protocol.OpEStop})
	tr.waitMode(protocol.ModeEStop)
	release := hw.stick(t)
	reset := make(chan protocol.Reply, 1)
	go func() { reset <- tr.do(protocol.Command{ID: "reset", Op: protocol.OpEStopReset}) }()
	tr.waitFor("the reset queued", func(protocol.State) bool { return len(tr.cmds) == 1 })
	tr.mustOK(protocol.Command{ID: "stop-again", Op: protocol.OpEStop})
	release()
	if rep := <-reset; rep.OK || rep.Error.Code != protocol.ErrNotAllowedInMode {
		t.Fatalf("reset sent before the second e-stop: %+v", rep)
	}
	if closed, _ := tr.hw.gate(); !closed {
		t.Fatal("the gate was released")
	}
	if s := tr.State(); s.Mode != protocol.ModeEStop || !s.EStop {
		t.Fatalf("mode %s estop %v", s.Mode, s.EStop)
	}
	// A new reset releases. (A redelivery of the refused one gets its
	// refusal again from telemetry's reply cache, which is where repeats
	// are recognised: TestRedeliveryAcrossTheSeam.)
	tr.mustOK(protocol.Command{Op: protocol.OpEStopReset})
	tr.waitMode(protocol.ModeIdle)
	if closed, _ := tr.hw.gate(); closed {
		t.Fatal("the gate is still closed")
	}
}

// A command whose caller stopped waiting (its ctx ended while the tick
// was stuck) is still applied when the tick runs: Do said so (INTERNAL),
// and telemetry's reply cache gives the outcome to a retry
// (TestTransientRefusalsAreNotCached there).
func TestTimedOutCommandIsStillApplied(t *testing.T) {
	tr, hw := startStuckRunner(t)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	release := hw.stick(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := tr.Do(ctx, protocol.Command{ID: "pause-1", Op: protocol.OpMissionPause})
	if rep.OK || rep.Error.Code != protocol.ErrInternal || !strings.Contains(rep.Error.Message, "may still be applied") {
		t.Fatalf("pause with the tick stuck and no time: %+v", rep)
	}
	release()
	tr.waitMode(protocol.ModePaused)
}

// A mission with thousands of problems is refused with a small reply: the
// first problems, and how many more there were.
func TestRefusalWithManyProblemsIsSmall(t *testing.T) {
	tr := startRunner(t, "", nil)
	params := make([]string, 0, 20000)
	for i := range 20000 {
		params = append(params, fmt.Sprintf(`"unknown_%d":1`, i))
	}
	root := `{"type":"Log","params":{"message":"x",` + strings.Join(params, ",") + `}}`
	rep := tr.do(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, root)})
	if rep.OK {
		t.Fatal("a mission with 20000 unknown parameters was accepted")
	}
	b, _ := json.Marshal(rep)
	if e := rep.Error; len(e.Problems) != protocol.MaxReplyProblems || e.More != 20000-protocol.MaxReplyProblems || len(b) > 16<<10 {
		t.Fatalf("reply of %d bytes with %d problems and %d more", len(b), len(e.Problems), e.More)
	}
}

// A start queued right behind an e-stop reset (both reach the tick
// goroutine in one drain) finds the e-stop released: the reset moves the
// mode out of ESTOP at once, not at the end of the tick.
func TestStartRightAfterAReset(t *testing.T) {
	tr, hw := startStuckRunner(t)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong)})
	tr.mustOK(protocol.Command{Op: protocol.OpEStop})
	tr.waitMode(protocol.ModeEStop)
	release := hw.stick(t)
	reset := make(chan protocol.Reply, 1)
	go func() { reset <- tr.do(protocol.Command{ID: "reset", Op: protocol.OpEStopReset}) }()
	tr.waitFor("the reset queued", func(protocol.State) bool { return len(tr.cmds) == 1 })
	start := make(chan protocol.Reply, 1)
	go func() {
		start <- tr.do(protocol.Command{ID: "start", Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true, Replace: true})
	}()
	tr.waitFor("the start queued", func(protocol.State) bool { return len(tr.cmds) == 2 })
	release()
	if rep := <-reset; !rep.OK {
		t.Fatalf("reset: %+v", rep.Error)
	}
	if rep := <-start; !rep.OK {
		t.Fatalf("a start right after the reset: %+v", rep.Error)
	}
	tr.waitMode(protocol.ModeRunning)
}
