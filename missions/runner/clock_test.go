package runner

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/telemetry/protocol"
)

// fakeTicks drives a runner on a fake clock: each step waits until the
// loop sleeps on its timer (the previous tick is done), then moves the
// clock one period on.
type fakeTicks struct {
	t      *testing.T
	clock  *clockwork.FakeClock
	period time.Duration
}

func (f fakeTicks) step(n int) {
	f.t.Helper()
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), waitEvent)
		err := f.clock.BlockUntilContext(ctx, 1)
		cancel()
		if err != nil {
			f.t.Fatalf("the tick loop never waited on its timer: %v", err)
		}
		f.clock.Advance(f.period)
	}
}

// settle waits until the tick the last step started is done (the loop
// sleeps on its timer again), so what the test does next is seen first by
// the next tick, never by that one.
func (f fakeTicks) settle() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitEvent)
	defer cancel()
	if err := f.clock.BlockUntilContext(ctx, 1); err != nil {
		f.t.Fatalf("the tick loop never waited on its timer: %v", err)
	}
}

// do sends a command, waits until it is queued, and runs the one tick
// that applies it.
func (f fakeTicks) do(tr *testRunner, c protocol.Command) protocol.Reply {
	f.t.Helper()
	got := make(chan protocol.Reply, 1)
	go func() { got <- tr.do(c) }()
	tr.waitFor("the command queued", func(protocol.State) bool { return len(tr.cmds) > 0 })
	f.step(1)
	select {
	case r := <-got:
		return r
	case <-time.After(waitEvent):
		f.t.Fatalf("no reply to %s after its tick", c.Op)
		return protocol.Reply{}
	}
}

// On a fake clock the schedule is exact: every tick starts on its
// deadline, and the link-loss failsafe trips on the tick at which the link
// has been down for LinkLossTimeout, not one tick earlier.
func TestRunnerOnFakeClock(t *testing.T) {
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	tr := startRunner(t, "", func(c *Config) {
		c.Clock = clock
		c.TickHz = 20
		c.Failsafe.LinkLossTimeout = 2 * time.Second
	})
	ft := fakeTicks{t: t, clock: clock, period: 50 * time.Millisecond}
	if r := ft.do(tr, protocol.Command{ID: "load", Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true}); !r.OK {
		t.Fatalf("load: %+v", r.Error)
	}
	loadedAt := clock.Now() // the tick that applied the command ran at this time
	ft.step(3)
	ft.settle()
	tr.SetLink(protocol.LinkState{Broker: false})
	ft.step(1) // the first tick that sees the link down
	ft.step(39)
	ft.settle()
	if s := tr.State(); s.Failsafe.Active {
		t.Fatalf("failsafe after 1.95 s without a link: %+v", s.Failsafe)
	}
	ft.step(1)
	s := tr.waitFor("the link-loss failsafe", func(s protocol.State) bool { return s.Failsafe.Active })
	if s.Failsafe.Reason != "link_lost" {
		t.Fatalf("failsafe %+v, want link_lost", s.Failsafe)
	}
	if s.Tick.JitterMaxUs != 0 || s.Tick.Overruns != 0 {
		t.Fatalf("on a fake clock every tick is on time: %+v", s.Tick)
	}
	if s.Mission == nil || !s.Mission.Started.Equal(loadedAt) {
		t.Fatalf("mission %+v started, want the fake clock's time at the loading tick", s.Mission)
	}
}

// An e-stop that finds the runner's command queue full still engages: the
// gate closes at once and the mode becomes ESTOP without a tick having
// drained the queue first.
func TestEStopWithAFullQueue(t *testing.T) {
	clock := clockwork.NewFakeClock() // never advanced: no tick drains the queue
	tr := startRunner(t, "", func(c *Config) { c.Clock = clock })
	for i := 0; len(tr.cmds) < cap(tr.cmds); i++ {
		go tr.Do(context.Background(), protocol.Command{ID: fmt.Sprintf("fill-%d", i), Op: protocol.OpStateRequest})
		tr.waitFor("the command queued", func(protocol.State) bool { return len(tr.cmds) > i || len(tr.cmds) == cap(tr.cmds) })
	}
	rep := tr.Do(context.Background(), protocol.Command{ID: "stop", Op: protocol.OpEStop})
	if !rep.OK {
		t.Fatalf("e-stop with a full queue: %+v", rep.Error)
	}
	if !tr.hw.estop {
		t.Fatal("the hardware gate is open")
	}
	tr.waitMode(protocol.ModeEStop)
}
