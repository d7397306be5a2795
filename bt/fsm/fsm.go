// Package fsm provides finite state machines that, like behavior trees,
// are defined once and shared by any number of agents: the definition
// (states, transitions) is immutable, and each agent keeps only a small
// Memory (its current state and when it was entered).
//
// T is whatever a machine acts on: a bt.Agent for the StateMachine node, the
// daemon for its own mode. Time is passed in by the caller (clock
// nanoseconds); fsm never reads a clock, never blocks and starts no
// goroutine.
package fsm

import (
	"errors"
	"fmt"
)

// Any is the From of a transition that applies in every state.
const Any = "*"

// State is one state of a machine. Enter runs when the state becomes
// current, Tick on every tick while it is, Exit when it stops being
// current; any of them may be nil.
type State[T any] struct {
	Name  string
	Enter func(t T, m *Memory)
	Tick  func(t T, m *Memory)
	Exit  func(t T, m *Memory)
	// Final states end the machine: once entered, Tick does nothing more.
	Final bool
}

// Transition moves from From (a state name, or Any) to To when When holds.
// Transitions are tried in the order given. A transition with a nil When
// never fires on its own: it is taken only by Fire (an operator command,
// an event).
type Transition[T any] struct {
	From string
	To   string
	When func(t T, m *Memory) bool
	// Name labels the transition for Fire (optional, unique when given).
	Name string
}

// Machine is an immutable state machine definition.
type Machine[T any] struct {
	states  []State[T]
	byName  map[string]int32
	trans   []transition[T]
	initial int32
}

type transition[T any] struct {
	from, to int32 // from -1: any state
	when     func(t T, m *Memory) bool
	name     string
}

// Memory is one agent's state of a machine: 16 bytes, zero value "not
// started".
type Memory struct {
	cur   int32 // state index + 1; 0: not started
	_     int32
	since int64 // clock ns when the current state was entered
}

// Errors callers branch on.
var (
	ErrUnknownState = errors.New("unknown state")
	ErrNotStarted   = errors.New("machine not started")
)

// New checks and builds a machine definition.
func New[T any](initial string, states []State[T], transitions []Transition[T]) (*Machine[T], error) {
	m := &Machine[T]{states: states, byName: make(map[string]int32, len(states))}
	var errs []error
	for i, s := range states {
		if s.Name == "" || s.Name == Any {
			errs = append(errs, fmt.Errorf("state %d: invalid name %q", i, s.Name))
			continue
		}
		if _, dup := m.byName[s.Name]; dup {
			errs = append(errs, fmt.Errorf("state %q defined twice", s.Name))
			continue
		}
		m.byName[s.Name] = int32(i)
	}
	init, ok := m.byName[initial]
	if !ok {
		errs = append(errs, fmt.Errorf("initial state %q: %w", initial, ErrUnknownState))
	}
	m.initial = init
	names := map[string]bool{}
	for i, t := range transitions {
		tr := transition[T]{from: -1, when: t.When, name: t.Name}
		if t.From != Any {
			f, ok := m.byName[t.From]
			if !ok {
				errs = append(errs, fmt.Errorf("transition %d: from %q: %w", i, t.From, ErrUnknownState))
			}
			tr.from = f
		}
		to, ok := m.byName[t.To]
		if !ok {
			errs = append(errs, fmt.Errorf("transition %d: to %q: %w", i, t.To, ErrUnknownState))
		}
		tr.to = to
		if t.Name != "" {
			if names[t.Name] {
				errs = append(errs, fmt.Errorf("transition name %q used twice", t.Name))
			}
			names[t.Name] = true
		}
		m.trans = append(m.trans, tr)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return m, nil
}

// States returns the state names in definition order.
func (m *Machine[T]) States() []string {
	out := make([]string, len(m.states))
	for i, s := range m.states {
		out[i] = s.Name
	}
	return out
}

// Has reports whether the machine has a state of that name.
func (m *Machine[T]) Has(name string) bool {
	_, ok := m.byName[name]
	return ok
}

// Current returns the agent's current state name ("" before Start).
func (m *Machine[T]) Current(mem *Memory) string {
	if mem.cur == 0 {
		return ""
	}
	return m.states[mem.cur-1].Name
}

// Since returns when the current state was entered.
func (m *Machine[T]) Since(mem *Memory) int64 { return mem.since }

// Done reports whether the agent is in a final state.
func (m *Machine[T]) Done(mem *Memory) bool {
	return mem.cur != 0 && m.states[mem.cur-1].Final
}

// Start enters the initial state (exiting the current one, if any).
func (m *Machine[T]) Start(t T, mem *Memory, now int64) { m.enter(t, mem, m.initial, now) }

// To moves the agent to the named state: the current state exits, the new
// one enters (even when it is the same state).
func (m *Machine[T]) To(name string, t T, mem *Memory, now int64) error {
	i, ok := m.byName[name]
	if !ok {
		return fmt.Errorf("%q: %w", name, ErrUnknownState)
	}
	m.enter(t, mem, i, now)
	return nil
}

// Fire takes the named transition if it applies from the current state,
// without evaluating its condition. It reports whether it fired; a
// transition out of a final state never fires.
func (m *Machine[T]) Fire(name string, t T, mem *Memory, now int64) (bool, error) {
	if mem.cur == 0 {
		return false, ErrNotStarted
	}
	for _, tr := range m.trans {
		if tr.name == name {
			if (tr.from != -1 && tr.from != mem.cur-1) || m.Done(mem) {
				return false, nil
			}
			m.enter(t, mem, tr.to, now)
			return true, nil
		}
	}
	return false, fmt.Errorf("no transition named %q", name)
}

func (m *Machine[T]) enter(t T, mem *Memory, to int32, now int64) {
	if mem.cur != 0 {
		if exit := m.states[mem.cur-1].Exit; exit != nil {
			exit(t, mem)
		}
	}
	mem.cur, mem.since = to+1, now
	if enter := m.states[to].Enter; enter != nil {
		enter(t, mem)
	}
}

// Step fires the first transition from the current state whose condition
// holds (a transition to the current state itself re-enters it) and
// reports whether one fired. It does not tick the state.
func (m *Machine[T]) Step(t T, mem *Memory, now int64) bool {
	if mem.cur == 0 {
		m.Start(t, mem, now)
	}
	if m.Done(mem) {
		return false
	}
	cur := mem.cur - 1
	for _, tr := range m.trans {
		if tr.when != nil && (tr.from == -1 || tr.from == cur) && tr.when(t, mem) {
			m.enter(t, mem, tr.to, now)
			return true
		}
	}
	return false
}

// Tick runs one tick: Step, then the current state's Tick (unless the
// machine is in a final state). It reports whether a transition fired.
func (m *Machine[T]) Tick(t T, mem *Memory, now int64) bool {
	fired := m.Step(t, mem, now)
	if !m.Done(mem) {
		if tick := m.states[mem.cur-1].Tick; tick != nil {
			tick(t, mem)
		}
	}
	return fired
}
