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
	// renewed is when Apply last ran (unix ns; 0: never, the deadman is not armed yet).
	renewed atomic.Int64
	// tripped is guarded by envelope.mu (apply reads it with the wanted commands).
	tripped bool
	since   time.Time
	trips   atomic.Uint64
}

// SetDeadman sets the deadman time: the actuators go to their safe state when Apply has not run
// for d (0 turns it off). The runner sets a few tick periods, and again when a mission changes
// the rate. The deadman runs only when the robot runs goroutines of its own (not Options.Sync).
func (r *Robot) SetDeadman(d time.Duration) {
	r.env.dm.timeout.Store(int64(max(d, 0)))
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

// watchDeadman is the deadman's goroutine: it looks at the last renewal a few times per deadman
// time and trips when it is older than that.
func (r *Robot) watchDeadman(stop <-chan struct{}) {
	e := &r.env
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		wait := time.Hour
		if d := time.Duration(e.dm.timeout.Load()); d > 0 {
			wait = max(d/4, time.Millisecond)
			if at := e.dm.renewed.Load(); at != 0 {
				if age := r.now().Sub(time.Unix(0, at)); age > d {
					e.tripDeadman(age, d)
				}
			}
		}
		t.Reset(wait)
		select {
		case <-stop:
			return
		case <-r.dmChanged:
		case <-t.C:
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
