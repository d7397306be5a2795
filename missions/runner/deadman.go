package runner

import (
	"fmt"
	"time"

	"github.com/botd-project/botd/bt"

	"github.com/botd-project/botd/telemetry/protocol"
)

// Deadman is a Hardware with a deadman under the tick (drivers.Robot): it
// puts the actuators in their safe state on its own, from a goroutine the
// tick cannot block, when Apply has not run for the deadman time, and
// holds them there until Rearm.
type Deadman interface {
	SetDeadman(d time.Duration)
	Deadman() (tripped bool, since time.Time, trips uint64)
	Rearm()
}

// deadmanTime is the deadman time at rate hz.
func (c *Config) deadmanTime(hz float64) time.Duration {
	return max(time.Duration(c.DeadmanPeriods*float64(time.Second)/hz), c.DeadmanMin)
}

// exprLimits are the expression budgets of an agent ticked at hz: the
// time all its expressions may take in one tick stays under half the
// deadman time (so that a mission's own expressions, on their budget,
// cannot trip the deadman), one evaluation under a quarter of it; bt's
// defaults where they are tighter.
func (r *Runner) exprLimits(hz float64) bt.ExprLimits {
	d := r.cfg.deadmanTime(hz)
	return bt.ExprLimits{TickTime: min(bt.DefaultExprTickTime, d/2), Time: min(bt.DefaultExprTime, d/4)}
}

// setDeadman gives the hardware the deadman time of the current rate (tick
// goroutine: at the start and when a mission changes the rate).
func (r *Runner) setDeadman() {
	d := r.cfg.deadmanTime(r.hz)
	r.deadman.Store(int64(d))
	if dm, ok := r.cfg.Hardware.(Deadman); ok {
		dm.SetDeadman(d)
	}
}

// rearmDeadman runs on every tick after the supervisor and the mode
// machine: a deadman that tripped while the tick was stuck has been seen
// (the overrun failsafe counted the deadlines that tick missed and halted
// the mission if its action says so), so the wanted commands may go
// through again.
func (r *Runner) rearmDeadman(now time.Time) {
	dm, ok := r.cfg.Hardware.(Deadman)
	if !ok {
		return
	}
	tripped, since, _ := dm.Deadman()
	if !tripped {
		return
	}
	r.emit(protocol.Event{Kind: "tick.stalled", Level: "error",
		Message: fmt.Sprintf("the tick stopped for longer than the deadman time (%v): the actuators were put in their safe state at %s; the overrun failsafe decides what the mission does now",
			time.Duration(r.deadman.Load()).Round(time.Millisecond), since.UTC().Format(time.RFC3339Nano)),
		Data: map[string]any{"deadman_ms": time.Duration(r.deadman.Load()).Milliseconds()}})
	dm.Rearm()
}

// markTickStart records that a tick started at t (tick goroutine).
func (r *Runner) markTickStart(t time.Time) { r.tickStart.Store(int64(t.Sub(r.tickBase)) + 1) }

// stalled reports how long the tick now running has run when that is
// longer than the deadman time (any goroutine).
func (r *Runner) stalled(now time.Time) (time.Duration, bool) {
	start := r.tickStart.Load()
	if start == 0 {
		return 0, false
	}
	age := now.Sub(r.tickBase) - time.Duration(start-1)
	return age, age > time.Duration(r.deadman.Load())
}

// stallError is the state error of a stuck tick, added by State (which
// telemetry calls from its own goroutine, so a stuck tick is visible).
func (r *Runner) stallError(now time.Time) (protocol.StateError, bool) {
	age, ok := r.stalled(now)
	if !ok {
		return protocol.StateError{}, false
	}
	return protocol.StateError{Code: "TICK_STALLED", Level: "ERROR",
		Message: fmt.Sprintf("the tick has not finished for %v (deadman %v): actuators held in their safe state",
			age.Round(time.Millisecond), time.Duration(r.deadman.Load()).Round(time.Millisecond))}, true
}

// watchTick is a goroutine that wakes telemetry when the tick gets stuck,
// so the state with TICK_STALLED goes out without the tick's help. It
// sleeps on an alarm that every tick sets to the deadman time from its
// start (tickStarted), so it wakes only for a tick that has run that long
// (or a rate whose period is longer than the deadman time). It reads the
// wall clock (it only signals; what it reports comes from the runner's
// clock in State). Start it before the first tick; the returned func
// stops it and waits.
func (r *Runner) watchTick() (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	alarm := time.NewTimer(time.Hour)
	alarm.Stop()
	r.tickAlarm = alarm
	go func() {
		defer close(exited)
		defer alarm.Stop()
		var seen int64 // the stuck tick already signalled
		for {
			select {
			case <-done:
				return
			case <-alarm.C:
			}
			start := r.tickStart.Load()
			if start == 0 {
				continue // between ticks: the next one sets the alarm
			}
			age, ok := r.stalled(r.cfg.Clock.Now())
			if !ok {
				// Not stuck yet by the runner's clock (a tick that started
				// as the alarm went off, a fake clock): look again when it
				// would be, at least a millisecond on (a clock that stands
				// still must not make this spin).
				alarm.Reset(max(time.Duration(r.deadman.Load())-age, time.Millisecond))
				continue
			}
			if start != seen {
				seen = start
				r.log.Error("the tick is stuck: actuators held safe by the deadman", "deadman", time.Duration(r.deadman.Load()))
				r.signal()
			}
		}
	}()
	return func() { close(done); <-exited }
}

// tickStarted sets the tick watch's alarm to the deadman time from now
// (tick goroutine, after tickStart is stored). A Reset to a later time
// wakes no goroutine and allocates nothing.
func (r *Runner) tickStarted() {
	if t := r.tickAlarm; t != nil {
		t.Reset(time.Duration(r.deadman.Load()))
	}
}
