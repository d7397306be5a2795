package drivers

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/botd-project/botd/bt"
)

// Owner is the action that owns an actuator: a leaf of one agent. The zero Owner is nobody.
type Owner struct {
	a *bt.Agent
	n int32
}

type owner = Owner

// OwnerOf is the owner token of node n of agent a.
func OwnerOf(a *bt.Agent, n *bt.Node) Owner { return Owner{a, n.Index} }

func (o owner) none() bool { return o.a == nil }

// ActuatorImpl drives one actuator's Gobot drivers with commands of its family's type C.
type ActuatorImpl[C any] interface {
	// Safe is the actuator's safe state (stopped, hovering, at its safe level).
	Safe() C
	// Clamp brings a command within the configured limits.
	Clamp(c C) C
	// Write drives the hardware to c. Without force it writes only what differs from its
	// last successful write; with force it writes everything. It must not allocate.
	Write(c C, now time.Time, force bool) error
}

// EStopper is an ActuatorImpl whose e-stop differs from its safe state: a drone's safe state
// is hover, its e-stop is landing. The envelope writes EStopState after the safe state.
type EStopper[C any] interface{ EStopState() C }

// slot is the typed part of an actuator: its wanted command and the copy the envelope writes.
// The envelope calls it under its locks; no method allocates.
type slot interface {
	// impl is the family's implementation (for optional abilities checked by type).
	impl() any
	toSafe()                         // want = safe (envelope.mu)
	stage(safe bool)                 // staged = want, or safe (envelope.mu)
	writeStaged(now time.Time) error // (envelope.writeMu)
	writeSafe(now time.Time) error   // forced (envelope.writeMu)
	// writeEStop writes an e-stopper's e-stop state (forced); false for other actuators.
	writeEStop(now time.Time) (bool, error)
}

// actuator is one device's place in the envelope.
type actuator struct {
	dev *device
	env *envelope
	slot

	// guarded by envelope.mu
	owner    owner
	err      error // a driver error not yet seen by errOwner
	errOwner owner
	fault    *Fault // DRIVER_ERROR while writes fail

	// guarded by envelope.writeMu
	ready  bool  // the drivers are started: writes may go to them
	staged owner // the owner when the staged command was taken (apply)
}

// Actuator is an actuator of a family's command type C, as the family's leaves see it: they
// set its wanted command through the envelope, which clamps it, keeps its owner and refuses it
// during an e-stop; the tick loop's Apply writes it.
type Actuator[C any] struct {
	act          *actuator
	i            ActuatorImpl[C]
	est          EStopper[C] // nil: none
	want, staged C
}

// NewActuator makes the device an actuator driven by impl; its wanted command starts as the
// safe state.
func NewActuator[C any](b *Builder, impl ActuatorImpl[C]) *Actuator[C] {
	x := &Actuator[C]{i: impl}
	x.est, _ = impl.(EStopper[C])
	x.act = &actuator{dev: b.d, slot: x}
	b.d.act = x.act
	return x
}

func (x *Actuator[C]) impl() any { return x.i }

// Impl is the family's implementation the actuator drives (a leaf reaching its device).
func (x *Actuator[C]) Impl() ActuatorImpl[C] { return x.i }
func (x *Actuator[C]) toSafe()               { x.want = x.i.Safe() }
func (x *Actuator[C]) stage(safe bool) {
	x.staged = x.want
	if safe {
		x.staged = x.i.Safe()
	}
}
func (x *Actuator[C]) writeStaged(now time.Time) error {
	return guard(func() error { return x.i.Write(x.staged, now, false) })
}
func (x *Actuator[C]) writeSafe(now time.Time) error {
	return guard(func() error { return x.i.Write(x.i.Safe(), now, true) })
}
func (x *Actuator[C]) writeEStop(now time.Time) (bool, error) {
	if x.est == nil {
		return false, nil
	}
	return true, guard(func() error { return x.i.Write(x.est.EStopState(), now, true) })
}

// Command sets the wanted command. An owned command makes o the owner (a long action that
// stops the actuator when halted); otherwise the command is latched, owned by nobody, and
// stays until something else commands the actuator. It fails with ErrEStopped during an
// e-stop.
func (x *Actuator[C]) Command(o Owner, c C, owned bool) error {
	e := x.act.env
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.estop {
		return ErrEStopped
	}
	x.want = x.i.Clamp(c)
	if owned {
		x.act.owner = o
	} else {
		x.act.owner = owner{}
	}
	return nil
}

// Wanted returns the wanted command.
func (x *Actuator[C]) Wanted() C {
	e := x.act.env
	e.mu.Lock()
	defer e.mu.Unlock()
	return x.want
}

// Release is what a halted or closed action does: the actuator goes to its safe state if o
// still owns it, and nothing happens if another action has taken it over.
func (x *Actuator[C]) Release(o Owner) { x.act.env.release(x.act, o) }

// TakeErr returns (and forgets) a driver error that happened while o owned the actuator.
func (x *Actuator[C]) TakeErr(o Owner) error { return x.act.env.takeErr(x.act, o) }

// Device is the actuator's device name and kind.
func (x *Actuator[C]) Device() (name, kind string) { return x.act.dev.name, x.act.dev.kind }

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

	dm deadman
}

// hold commands an actuator's safe state, latched (a breach's hold); ErrEStopped during an
// e-stop.
func (e *envelope) hold(act *actuator) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.estop {
		return ErrEStopped
	}
	act.toSafe()
	act.owner = owner{}
	return nil
}

// release is what a halted or closed action does: the actuator goes to its safe state if o
// still owns it, and nothing happens if another action has taken it over.
func (e *envelope) release(act *actuator, o owner) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !o.none() && act.owner == o {
		act.toSafe()
		act.owner = owner{}
	}
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
	e.dm.renewed.Store(e.dm.mark(now))
	e.renew()
	e.mu.Lock()
	for _, act := range e.acts {
		safe := e.estop
		if !safe && e.dm.tripped {
			_, exempt := act.impl().(OwnDeadman)
			safe = !exempt
		}
		act.stage(safe)
		act.staged = act.owner
	}
	e.mu.Unlock()
	var errs []error
	for _, act := range e.acts {
		if !act.ready {
			continue
		}
		err := act.writeStaged(now)
		e.noteWrite(act, act.staged, err, now)
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
		act.toSafe()
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
		err := act.writeSafe(now)
		e.noteWrite(act, owner{}, err, now)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: safe state: %w", act.dev.name, err))
		}
	}
	return errors.Join(errs...)
}

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
		if !act.ready {
			continue
		}
		if ok, werr := act.writeEStop(now); ok {
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
	err := act.writeSafe(now)
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
