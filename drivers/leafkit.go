package drivers

import (
	"fmt"
	"time"

	"gobot.io/x/gobot/v2"

	"github.com/botd-project/botd/bt"
)

// The leaf kit: what a family's leaves use to reach their device through the envelope.

// ActuatorRef is a leaf's actuator, resolved when the mission is compiled (LeafKit.Device).
type ActuatorRef struct{ ref actuatorRef }

// DeviceParam declares the optional device parameter of a leaf acting on a kind's devices.
func (k *LeafKit) DeviceParam(kind string) bt.Param { return k.deviceParam(kind) }

// Device resolves a leaf's device of the kind from its device parameter (or the only device of
// the kind) when the node is compiled, reporting at the node's path what cannot be resolved.
func (k *LeafKit) Device(b *bt.Builder, kind string) ActuatorRef {
	return ActuatorRef{k.device(b, kind)}
}

// Resolved reports whether the reference found its device (false without a config).
func (r *ActuatorRef) Resolved() bool { return r.ref.index >= 0 }

// Name is the device's name ("" when the leaf named none and none resolved).
func (r *ActuatorRef) Name() string { return r.ref.name }

// Release stops the leaf's actuator if o still owns it (a halted or closed leaf).
func (r *ActuatorRef) Release(a *bt.Agent, o Owner) { r.ref.release(a, o) }

// LeafMem is the memory every actuator leaf keeps per agent (embed it in the leaf's own).
type LeafMem struct{ m leafMem }

// SetReady records whether Open found the actuator and read every parameter.
func (m *LeafMem) SetReady(ok bool) { m.m.ready = ok }

// Ready reports what SetReady last recorded.
func (m *LeafMem) Ready() bool { return m.m.ready }

// SetHolding records whether the leaf has stopped its actuator to wait for a fresh sample
// (so that it says so once per hold).
func (m *LeafMem) SetHolding(h bool) { m.m.holding = h }

// Holding reports what SetHolding last recorded.
func (m *LeafMem) Holding() bool { return m.m.holding }

// Use returns the leaf's actuator on the agent's robot, as the family's command type C; nil
// when there is none (said once per agent and node).
func Use[C any](r *ActuatorRef, a *bt.Agent, n *bt.Node, m *LeafMem) *Actuator[C] {
	_, act := r.ref.use(a, n, &m.m.reported)
	if act == nil {
		return nil
	}
	x, _ := act.slot.(*Actuator[C])
	return x
}

// StartTick is the common start of a long leaf's tick: its actuator and owner token; ok false
// (the leaf returns ERROR) when its Open failed, when the agent has no robot with the actuator
// (said once), or when a driver write of this leaf failed (said).
func StartTick[C any](r *ActuatorRef, a *bt.Agent, n *bt.Node, m *LeafMem) (x *Actuator[C], o Owner, ok bool) {
	_, act, o, ok := startTick(a, n, &r.ref, &m.m)
	if !ok {
		return nil, Owner{}, false
	}
	x, ok = act.slot.(*Actuator[C])
	return x, o, ok
}

// LeafDoc appends the notes every actuator leaf shares to its documentation.
func LeafDoc(s string) string { return leafDoc(s) }

// CommandStatus turns a command's outcome into the leaf's status: ok, FAILURE during an
// e-stop, ERROR (said) otherwise.
func CommandStatus(a *bt.Agent, n *bt.Node, err error, ok bt.Status) bt.Status {
	return commandStatus(a, n, err, ok)
}

// ReadNum reads a numeric parameter, saying why when it is not a finite number.
func ReadNum(a *bt.Agent, n *bt.Node, name string, p bt.Num) (float64, bool) {
	return readNum(a, n, name, p)
}

// FreshNumber reads a number from the blackboard and whether it is at most maxAgeMs old.
func FreshNumber(a *bt.Agent, s bt.Slot, maxAgeMs float64) (float64, bool) {
	return freshNumber(a, s, maxAgeMs)
}

// EStopped returns a function reporting whether the robot's e-stop is engaged (a device that
// checks it on its own goroutine: a vehicle refusing a failsafe action during an e-stop).
func (b *Builder) EStopped() func() bool {
	r := b.r
	return func() bool { on, _ := r.env.estopped(); return on }
}

// OwnBoard makes the adaptor a the device's own board (a boardless kind's link: a vehicle's
// autopilot connection), connected with the robot's boards and finalized after them; kind
// names it in the self-test.
func (b *Builder) OwnBoard(kind string, a gobot.Adaptor) {
	b.d.board = &board{name: a.Name(), cfg: &AdaptorConfig{Kind: kind}, adaptor: a}
	b.r.boards = append(b.r.boards, b.d.board)
}

// Clock is the robot's clock (Options.Now).
func (b *Builder) Clock() func() time.Time { return b.r.now }

// ActuatorOf returns the robot's actuator of a device, as its family's command type C.
func ActuatorOf[C any](r *Robot, device string) (*Actuator[C], error) {
	d, ok := r.byName[device]
	if !ok || d.act == nil {
		return nil, fmt.Errorf("drivers: no actuator %q", device)
	}
	x, ok := d.act.slot.(*Actuator[C])
	if !ok {
		return nil, fmt.Errorf("drivers: %q (%s) takes another command type", device, d.kind)
	}
	return x, nil
}
