package runner

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/telemetry/protocol"
)

// deadmanHW is a fakeHW with a deadman the test trips, recording the mode
// the runner was in when it rearmed.
type deadmanHW struct {
	*fakeHW
	r       *Runner
	mu      sync.Mutex
	timeout time.Duration
	tripped bool
	rearmIn []string
}

func (h *deadmanHW) SetDeadman(d time.Duration) { h.mu.Lock(); h.timeout = d; h.mu.Unlock() }
func (h *deadmanHW) Deadman() (bool, time.Time, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tripped, time.Now(), 0
}

func (h *deadmanHW) Rearm() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tripped = false
	h.rearmIn = append(h.rearmIn, h.r.currentMode()) // the tick goroutine calls Rearm
}

// stuckNode blocks its tick until released: a tick stuck in a node (an
// expression that loops, a driver call that hangs).
type stuckNode struct {
	entered chan struct{}
	release chan struct{}
}

func (s *stuckNode) Tick(*bt.Agent, *bt.Node) bt.Status {
	close(s.entered)
	<-s.release
	return bt.Running
}

// TestStuckTickTripsTheDeadmanAndTheOverrunFailsafe: while a tick is
// stuck, the state (read from another goroutine, as telemetry does) says
// TICK_STALLED; when it ends, its missed deadlines trip the overrun
// failsafe before the deadman is rearmed, so the mission is held, not
// driven on.
func TestStuckTickTripsTheDeadmanAndTheOverrunFailsafe(t *testing.T) {
	stuck := &stuckNode{entered: make(chan struct{}), release: make(chan struct{})}
	reg := catalog.NewRegistry()
	reg.Register(bt.NodeType{Name: "Stuck", Kind: bt.Leaf, Category: "action", New: func(*bt.Builder) bt.Behavior { return stuck }})
	var hw *deadmanHW
	tr := startRunner(t, "", func(c *Config) {
		c.Registry = reg
		c.TickHz = 100
		c.DeadmanPeriods, c.DeadmanMin = 3, time.Millisecond
		c.Failsafe.MaxOverruns = 5
		hw = &deadmanHW{fakeHW: c.Hardware.(*fakeHW)}
		c.Hardware = hw
	})
	hw.r = tr.Runner
	hw.mu.Lock()
	if want := 30 * time.Millisecond; hw.timeout != want {
		t.Errorf("deadman set to %v, want 3 periods at 100 Hz: %v", hw.timeout, want)
	}
	hw.mu.Unlock()
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Start: true,
		Mission: mission(0, `{"type":"Sequence","children":[{"type":"Log","params":{"message":"go"}},{"type":"Stuck"}]}`)})
	<-stuck.entered
	tr.waitFor("TICK_STALLED in the state", func(s protocol.State) bool {
		for _, e := range s.Errors {
			if e.Code == "TICK_STALLED" {
				return true
			}
		}
		return false
	})
	// The drivers' deadman has tripped meanwhile (this fake trips when told).
	hw.mu.Lock()
	hw.tripped = true
	hw.mu.Unlock()
	// Stay stuck past the overrun limit (5 periods): by the runner's clock.
	for {
		if age, _ := tr.stalled(time.Now()); age > 6*10*time.Millisecond {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(stuck.release)
	tr.waitFor("the overrun failsafe", func(s protocol.State) bool {
		return s.Failsafe.Reason == "tick_overruns" || s.Mode == protocol.ModePaused
	})
	tr.waitFor("the rearm", func(protocol.State) bool {
		hw.mu.Lock()
		defer hw.mu.Unlock()
		return len(hw.rearmIn) > 0
	})
	hw.mu.Lock()
	if got := hw.rearmIn[0]; got != protocol.ModeFailsafe {
		t.Errorf("rearmed in mode %s, want FAILSAFE (the mission halted first)", got)
	}
	hw.mu.Unlock()
	if n := tr.events.count("tick.stalled"); n != 1 {
		t.Errorf("%d tick.stalled events, want 1", n)
	}
	var fs protocol.Event
	for _, e := range tr.events.snapshot() {
		if e.Kind == "failsafe.entered" {
			fs = e
		}
	}
	if !strings.Contains(fs.Message, "tick_overruns") {
		t.Errorf("failsafe.entered %q, want the overrun failsafe", fs.Message)
	}
}

// TestExprLimitsStayUnderTheDeadman: the expressions of one tick may take
// at most half the deadman time, so their own budget cannot trip it.
func TestExprLimitsStayUnderTheDeadman(t *testing.T) {
	r := &Runner{cfg: Config{DeadmanPeriods: 4, DeadmanMin: 10 * time.Millisecond}}
	if l := r.exprLimits(100); l.TickTime != 20*time.Millisecond || l.Time != 10*time.Millisecond {
		t.Errorf("at 100 Hz (deadman 40 ms): %+v", l)
	}
	if l := r.exprLimits(20); l.TickTime != bt.DefaultExprTickTime || l.Time != bt.DefaultExprTime {
		t.Errorf("at 20 Hz (deadman 200 ms): %+v, want bt's defaults", l)
	}
}

// TestTickWatchSignalsAtTheDeadmanTime checks the tick watch's bound on
// synctest's virtual time, where timers fire exactly when due: ticks that
// end in time are never signalled; a tick that runs on is signalled just
// past the deadman time from its start (stalled means older than the
// deadman time; the watch looks again a millisecond on), once.
func TestTickWatchSignalsAtTheDeadmanTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const period, deadman = 50 * time.Millisecond, 200 * time.Millisecond
		r := &Runner{cfg: Config{Clock: clockwork.NewRealClock()}, log: slog.New(slog.DiscardHandler), changed: make(chan struct{}, 1), tickBase: time.Now()}
		r.deadman.Store(int64(deadman))
		stop := r.watchTick()
		defer stop()
		signalled := func() bool {
			synctest.Wait()
			select {
			case <-r.changed:
				return true
			default:
				return false
			}
		}
		tick := func(d time.Duration) {
			r.markTickStart(time.Now())
			r.tickStarted()
			time.Sleep(d)
		}
		time.Sleep(10 * time.Millisecond) // not in step with anything the watch started with
		for range 20 {
			tick(period / 5)
			r.tickStart.Store(0)
			time.Sleep(period - period/5)
		}
		if signalled() {
			t.Fatal("signalled while every tick ended in time")
		}
		tick(deadman)
		if signalled() {
			t.Fatal("signalled at the deadman time: stalled means older than that")
		}
		time.Sleep(time.Millisecond)
		if !signalled() {
			t.Fatal("a tick stuck a millisecond past the deadman time was not signalled")
		}
		time.Sleep(10 * deadman)
		if signalled() {
			t.Fatal("the same stuck tick was signalled twice")
		}
		r.tickStart.Store(0)
	})
}
