package drivers

import (
	"fmt"
	"strings"
	"unique"

	"github.com/botd-project/botd/bt"
)

// actuatorLayout identifies a list of actuators by kind and name, in order: a config's
// actuator devices, or a robot's actuators. Handles of equal lists are equal, so comparing a
// leaf's layout with a robot's is one comparison.
type actuatorLayout = unique.Handle[string]

// layoutOf makes the layout of items, whose kind and name kindName returns.
func layoutOf[T any](items []T, kindName func(T) (kind, name string)) actuatorLayout {
	var b strings.Builder
	for _, it := range items {
		kind, name := kindName(it)
		b.WriteString(kind)
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteByte('\n')
	}
	return unique.Make(b.String())
}

// describeLayout lists a layout's actuators for a message.
func describeLayout(l actuatorLayout) string {
	s := strings.TrimSuffix(l.Value(), "\n")
	if s == "" {
		return "none"
	}
	return strings.ReplaceAll(s, "\n", ", ")
}

// actuatorRef is a leaf's actuator, resolved when the mission is compiled: its index among the
// actuators of the config the leaves were registered with. Every robot built from a config
// with the same actuators (Robot.layout) has it at that index, so the agents of a shared tree,
// each with its own robot, reach it without a lookup.
type actuatorRef struct {
	index  int // -1: the leaves were registered without a config, or the device was refused
	layout actuatorLayout
	name   string // for messages
}

// get returns the agent's robot and the leaf's actuator on it; nils when the agent's Env is
// not a robot with the actuators the mission was compiled for.
func (ref *actuatorRef) get(a *bt.Agent) (*Robot, *actuator) {
	r, _ := a.Env.(*Robot)
	if r == nil || ref.index < 0 || r.layout != ref.layout {
		return nil, nil
	}
	return r, r.env.acts[ref.index]
}

// use is get for a leaf about to command its actuator: when there is none, it says why, once
// per agent and node (*reported remembers, in the node's memory), and returns nils.
func (ref *actuatorRef) use(a *bt.Agent, n *bt.Node, reported *bool) (*Robot, *actuator) {
	if r, act := ref.get(a); act != nil {
		return r, act
	}
	if !*reported {
		*reported = true
		a.Emit(n.Index, "error", n.Type.Name+": "+ref.whyNot(a))
	}
	return nil, nil
}

// whyNot says why get found no actuator for agent a.
func (ref *actuatorRef) whyNot(a *bt.Agent) string {
	r, _ := a.Env.(*Robot)
	switch {
	case ref.index < 0:
		return "the device leaves were registered without a hardware config (drivers.Register with a nil config): there is nothing to drive"
	case r == nil:
		return fmt.Sprintf("the agent has no robot (Env is %T): set bt.Agent.Env to the *drivers.Robot built from the hardware config the mission was compiled with", a.Env)
	}
	return fmt.Sprintf("robot %q has other actuators (%s) than the hardware config the mission was compiled with (%s), which has %q",
		r.name, describeLayout(r.layout), describeLayout(ref.layout), ref.name)
}

// release stops the leaf's actuator if the leaf (owner o) still owns it; nothing happens
// without one.
func (ref *actuatorRef) release(a *bt.Agent, o owner) {
	if r, act := ref.get(a); act != nil {
		r.env.release(act, o)
	}
}
