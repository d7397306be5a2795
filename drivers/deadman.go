package drivers

import (
	"sync/atomic"
	"time"
)

// The deadman: the tick renews the actuators' commands with every Apply; when no Apply has come
// for the deadman time, a goroutine of the robot's own (which the tick cannot block) writes
// every actuator's safe state, and the envelope keeps writing safe states until the tick
// rearms it. The tick rearms it only after its supervisor has seen the stall (the overrun
// failsafe counts the deadlines a long tick missed), so the Apply that ends a stuck tick
// cannot set the motors going again before the failsafe has halted the mission.
//
// An actuator with a deadman of its own (OwnDeadman: a vehicle whose autopilot flies its last
// goal and holds there, and whose link-loss failsafe covers a daemon that is gone) is left out.

// deadman is the envelope's part of it; the goroutine is Robot.watchDeadman.
type deadman struct {
	// timeout is the current deadman time in ns (0: off), set by SetDeadman.
	timeout atomic.Int64
	// renewed is when Apply last ran, in ns after base, plus one (0: never, the deadman is not
	// armed yet). An offset from base, not a wall-clock instant: time.Time's Sub reads the
	// monotonic clock, so a wall clock stepped back (NTP setting a Pi's clock after boot) cannot
	// make the last renewal look recent and keep the deadman from tripping.
	renewed atomic.Int64
	// base is the instant renewals are counted from (set once, before any Apply).
	base time.Time
	// timer is the goroutine's alarm (nil without the goroutine: Options.Sync): every Apply sets
	// it to the deadman time from now, so it fires only when the tick has stopped renewing.
	// Set by Start before the robot is started; Apply reads it after.
	timer *time.Timer
	// alarms counts the alarm's wakes (a test's: Apply keeps the goroutine asleep).
	alarms atomic.Uint64
	// tripped is guarded by envelope.mu (apply reads it with the wanted commands).
	tripped bool
	since   time.Time
	trips   atomic.Uint64
}

// SetDeadman sets the deadman time: the actuators go to their safe state when Apply has not run
// for d (0 turns it off). The runner sets a few tick periods, and again when a mission changes
// the rate. The deadman runs only when the robot runs goroutines of its own (not Options.Sync).
func (r *Robot) SetDeadman(d time.Duration) {
	// Under writeMu, so that an Apply on another goroutine cannot set the alarm from the old time
	// after the goroutine has set it from the new one.
	r.env.writeMu.Lock()
	r.env.dm.timeout.Store(int64(max(d, 0)))
	r.env.writeMu.Unlock()
	select {
	case r.dmChanged <- struct{}{}:
	default:
	}
}

// Deadman reports whether the deadman has tripped (the actuators are held safe until Rearm),
// since when, and how many times it tripped since the start.
func (r *Robot) Deadman() (tripped bool, since time.Time, trips uint64) {
	r.env.mu.Lock()
	defer r.env.mu.Unlock()
	return r.env.dm.tripped, r.env.dm.since, r.env.dm.trips.Load()
}

// Rearm lets the wanted commands through again after the deadman tripped (the tick calls it once
// its supervisor has acted on the stall). It does nothing when the deadman has not tripped.
func (r *Robot) Rearm() {
	e := &r.env
	e.mu.Lock()
	was := e.dm.tripped
	e.dm.tripped = false
	e.mu.Unlock()
	if was {
		e.log.Info("deadman rearmed: actuator commands go through again")
	}
}

// renew is Apply's part (writeMu held, after renewed is stored): the alarm goes off the deadman
// time from now. A Reset to a later time wakes no goroutine, and allocates nothing.
func (e *envelope) renew() {
	if t := e.dm.timer; t != nil {
		if d := e.dm.timeout.Load(); d > 0 {
			t.Reset(time.Duration(d))
		}
	}
}

// startDeadman starts the deadman's goroutine (Start, before the robot is started).
func (r *Robot) startDeadman() {
	if r.env.dm.base.IsZero() {
		r.env.dm.base = r.now()
	}
	alarm := time.NewTimer(time.Hour)
	alarm.Stop()
	r.env.dm.timer = alarm
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.watchDeadman(r.stop, alarm)
	}()
}

// watchDeadman is the deadman's goroutine: it sleeps until its alarm, which Apply pushes back
// on every renewal, so it wakes only when no Apply has come for the deadman time (or the time
// changed). On a wake it checks the last renewal itself: it trips when that is a deadman time
// old, and otherwise sleeps until it will be (a renewal that raced with the alarm, a clock of
// its own in Options.Now).
func (r *Robot) watchDeadman(stop <-chan struct{}, t *time.Timer) {
	e := &r.env
	defer t.Stop()
	for {
		if d := time.Duration(e.dm.timeout.Load()); d > 0 {
			if at := e.dm.renewed.Load(); at != 0 {
				if age := e.dm.age(r.now(), at); age >= d {
					// Tripped (or already): the next Apply rearms the alarm.
					e.tripDeadman(age, d)
				} else {
					// At least a millisecond: a clock of Options.Now that stands still
					// must not make this spin.
					t.Reset(max(d-age, time.Millisecond))
				}
			}
		}
		select {
		case <-stop:
			return
		case <-r.dmChanged:
		case <-t.C:
			e.dm.alarms.Add(1)
		}
	}
}

// tripDeadman holds every actuator (but the exempt) in its safe state, once per trip. The wanted
// commands are kept: after Rearm, whatever still owns an actuator drives it again.
func (e *envelope) tripDeadman(age, d time.Duration) {
	e.mu.Lock()
	if e.dm.tripped {
		e.mu.Unlock()
		return
	}
	e.dm.tripped, e.dm.since = true, e.now()
	e.dm.trips.Add(1)
	e.mu.Unlock()
	e.log.Error("deadman: no actuator commands from the tick; holding every actuator in its safe state",
		"since", age.Round(time.Millisecond), "deadman", d)
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	now := e.now()
	for _, act := range e.acts {
		if _, exempt := act.impl().(OwnDeadman); exempt || !act.ready {
			continue
		}
		err := act.writeSafe(now)
		e.noteWrite(act, owner{}, err, now)
	}
}

// mark is now as renewed stores it.
func (dm *deadman) mark(now time.Time) int64 { return int64(now.Sub(dm.base)) + 1 }

// age is how long before now the renewal at (a mark) was.
func (dm *deadman) age(now time.Time, at int64) time.Duration {
	return now.Sub(dm.base) - time.Duration(at-1)
}
