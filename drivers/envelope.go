package drivers

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/botd-project/botd/bt"
)

// command is what a leaf asks of an actuator. The fields mean, per kind:
//
//	diff_drive:                     a = linear m/s, b = angular rad/s
//	servo:                          a = angle, degrees
//	led:                            mode (ledOff, ledOn, ledBlink); b = blink Hz, t0 = blink start (ns)
//	relay, buzzer, digital_out:     a = logical level, 0 or 1
//	pwm_out:                        a = duty cycle, 0..1
//	tello:                          mode (sticks, takeoff, land, flip); a, b, c, d = forward, right, up, yaw sticks; t0 = request id
type command struct {
	a, b float64
	c, d float64
	mode uint8
	t0   int64
}

const (
	ledOff uint8 = iota
	ledOn
	ledBlink
)

// owner is the action that owns an actuator: a leaf of one agent. The zero owner is nobody.
type owner struct {
	a *bt.Agent
	n int32
}

func (o owner) none() bool { return o.a == nil }

// actuatorImpl drives one actuator's Gobot drivers.
type actuatorImpl interface {
	// safe is the actuator's safe state (stopped, at its safe angle, at its safe level).
	safe() command
	// clamp brings a command within the configured limits.
	clamp(c command) command
	// write drives the hardware to c. Without force it writes only what differs from its
	// last successful write; with force it writes everything.
	write(c command, now time.Time, force bool) error
}

// actuator is one device's place in the envelope.
type actuator struct {
	dev  *device
	impl actuatorImpl

	// guarded by envelope.mu
	want     command
	owner    owner
	err      error // a driver error not yet seen by errOwner
	errOwner owner
	fault    *Fault // DRIVER_ERROR while writes fail

	// guarded by envelope.writeMu
	ready bool // the drivers are started: writes may go to them
}

// envelope stands between the leaves and the drivers: limits, ownership and the e-stop gate.
// Leaves change only the wanted commands; Apply (the tick loop) and the safety paths (EStop,
// Safe, Start, Close) write the drivers, one at a time under writeMu.
type envelope struct {
	log *slog.Logger
	now func() time.Time

	mu     sync.Mutex
	acts   []*actuator
	estop  bool
	reason string

	writeMu sync.Mutex
	batch   []pending // Apply's scratch, guarded by writeMu

	dm deadman
}

type pending struct {
	c     command
	owner owner
}

// command sets an actuator's wanted command. An owned command makes o the owner (a long action
// that stops the actuator when halted); otherwise the command is latched, owned by nobody, and
// stays until something else commands the actuator. It fails with ErrEStopped during an e-stop.
func (e *envelope) command(act *actuator, o owner, c command, owned bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.estop {
		return ErrEStopped
	}
	act.want = act.impl.clamp(c)
	if owned {
		act.owner = o
	} else {
		act.owner = owner{}
	}
	return nil
}

// release is what a halted or closed action does: the actuator goes to its safe state if o
// still owns it, and nothing happens if another action has taken it over.
func (e *envelope) release(act *actuator, o owner) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !o.none() && act.owner == o {
		act.want = act.impl.safe()
		act.owner = owner{}
	}
}

// wanted returns the actuator's wanted command.
func (e *envelope) wanted(act *actuator) command {
	e.mu.Lock()
	defer e.mu.Unlock()
	return act.want
}

// takeErr returns (and forgets) a driver error that happened while o owned the actuator.
func (e *envelope) takeErr(act *actuator, o owner) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if act.err == nil || act.errOwner != o {
		return nil
	}
	err := act.err
	act.err, act.errOwner = nil, owner{}
	return err
}

func (e *envelope) estopped() (bool, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.estop, e.reason
}

// apply writes the wanted commands that changed to the drivers. A failed write is kept for the
// owner to see on its next tick and raises a DRIVER_ERROR fault until a write succeeds.
func (e *envelope) apply() error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	now := e.now()
	e.dm.renewed.Store(now.UnixNano())
	e.mu.Lock()
	e.batch = e.batch[:0]
	for _, act := range e.acts {
		c := act.want
		if e.estop {
			c = act.impl.safe()
		} else if e.dm.tripped {
			if _, exempt := act.impl.(deadmanExempt); !exempt {
				c = act.impl.safe()
			}
		}
		e.batch = append(e.batch, pending{c, act.owner})
	}
	e.mu.Unlock()
	var errs []error
	for i, act := range e.acts {
		if !act.ready {
			continue
		}
		c := e.batch[i].c
		err := guard(func() error { return act.impl.write(c, now, false) })
		e.noteWrite(act, e.batch[i].owner, err, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", act.dev.name, err))
		}
	}
	return errors.Join(errs...)
}

// noteWrite records the outcome of a write: a failure for its owner and as a fault, a success
// clears the fault.
func (e *envelope) noteWrite(act *actuator, o owner, err error, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case err != nil:
		act.err, act.errOwner = err, o
		if act.fault == nil {
			act.fault = &Fault{Device: act.dev.name, Code: FaultDriverError, Since: now}
			e.log.Warn("actuator write failed", "device", act.dev.name, "err", err)
		}
		act.fault.Message = err.Error()
	case act.fault != nil:
		act.fault = nil
		e.log.Info("actuator writes again", "device", act.dev.name)
	}
}

// safeAll forgets every command and owner and writes every ready actuator's safe state at once,
// whatever it was before (mission end, abort, e-stop, start, close).
func (e *envelope) safeAll() error {
	e.mu.Lock()
	for _, act := range e.acts {
		act.want = act.impl.safe()
		act.owner = owner{}
	}
	e.mu.Unlock()
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	now := e.now()
	var errs []error
	for _, act := range e.acts {
		if !act.ready {
			continue
		}
		err := guard(func() error { return act.impl.write(act.impl.safe(), now, true) })
		e.noteWrite(act, owner{}, err, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: safe state: %w", act.dev.name, err))
		}
	}
	return errors.Join(errs...)
}

// eStopper is an actuator whose e-stop differs from its safe state: a drone's safe state is
// hover, its e-stop is landing.
type eStopper interface{ eStopState() command }

// eStop engages the gate first, so no command gets through from this moment, then writes the
// safe states (and an e-stopper's e-stop state).
func (e *envelope) eStop(reason string) error {
	e.mu.Lock()
	e.estop, e.reason = true, reason
	e.mu.Unlock()
	err := e.safeAll()
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	now := e.now()
	for _, act := range e.acts {
		if s, ok := act.impl.(eStopper); ok && act.ready {
			werr := guard(func() error { return act.impl.write(s.eStopState(), now, true) })
			e.noteWrite(act, owner{}, werr, now)
			if werr != nil {
				err = errors.Join(err, fmt.Errorf("%s: e-stop: %w", act.dev.name, werr))
			}
		}
	}
	return err
}

func (e *envelope) releaseEStop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.estop, e.reason = false, ""
}

// setReady marks an actuator's drivers as started (or stopped).
func (e *envelope) setReady(act *actuator, ready bool) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	act.ready = ready
}

// forceSafe writes one actuator's safe state (right after its driver started).
func (e *envelope) forceSafe(act *actuator) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	now := e.now()
	err := guard(func() error { return act.impl.write(act.impl.safe(), now, true) })
	e.noteWrite(act, owner{}, err, now)
	return err
}

func (e *envelope) faults() []Fault {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Fault
	for _, act := range e.acts {
		if act.fault != nil {
			out = append(out, *act.fault)
		}
	}
	return out
}
