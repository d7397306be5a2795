package bt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// shadow checks the fast path against the general path in every harness
// test. The harness's agent has an observer, so it takes the general path
// (the one the traces record); before each of its ticks the shadow copies
// its state into a second agent of the same tree, which has no observer,
// and after it ticks that agent on the fast path from the same state and
// at the same time. The two must end in the same state: the same root
// status, memory block (node states, open bits, node memory, blackboard),
// string values, lifecycle calls of the Scripted leaves and messages.
//
// Trees whose nodes keep state outside the agent (shared by agents, such
// as Gate, or child agents of DynamicSubTree) and stored-state trees
// (always on the general path) have no shadow.
type shadow struct {
	a     *Agent
	probe *probe
	sink  *sinkRec
	// what the harness's agent had before the tick
	block []uint64
	ref   []any
	now   int64
	rng   uint64
	ticks uint64
	epoch uint8
	// resuming: marks of a Pause not consumed yet
	resuming bool
	calls    []counts
	msgs     int
}

func newShadow(t *Tree) *shadow {
	if t.eval == StoredState || t.ptrN > 0 || len(t.slots) > 0 {
		return nil
	}
	for _, s := range t.shared {
		if s != nil {
			return nil
		}
	}
	s := &shadow{a: NewAgent(t, 0, 0), probe: &probe{tree: t, calls: make([]counts, t.Len())}, sink: &sinkRec{}}
	s.a.Env, s.a.Sink = s.probe, s.sink
	return s
}

// before records the state of a, about to be ticked.
func (s *shadow) before(a *Agent) {
	s.block = append(s.block[:0], a.block...)
	s.ref = append(s.ref[:0], a.BB.ref...)
	if a.BB.ref == nil {
		s.ref = nil
	}
	s.now, s.rng, s.ticks, s.epoch, s.resuming = a.now, a.rng, a.ticks, a.epoch, a.resuming
	p, _ := a.Env.(*probe)
	s.calls = nil
	if p != nil {
		s.calls = append([]counts(nil), p.calls...)
	}
	s.msgs = -1
	if rs, ok := a.Sink.(*sinkRec); ok {
		rs.mu.Lock()
		s.msgs = len(rs.msgs)
		rs.mu.Unlock()
	}
}

// after ticks the shadow agent from the recorded state at now and compares
// it with a, which returned st.
func (s *shadow) after(tb testing.TB, a *Agent, now int64, st Status) {
	tb.Helper()
	if a.ext != nil || s.calls == nil {
		return
	}
	f := s.a
	copy(f.block, s.block)
	f.BB.ref = nil
	if s.ref != nil {
		f.BB.ref = append([]any(nil), s.ref...)
	}
	f.now, f.BB.now, f.rng, f.ticks, f.epoch, f.resuming = s.now, s.now, s.rng, s.ticks, s.epoch, s.resuming
	copy(s.probe.calls, s.calls)
	s.sink.msgs = s.sink.msgs[:0]
	if f.general {
		tb.Fatal("the shadow agent is on the general path")
	}
	got := f.Tick(now)
	where := fmt.Sprintf("tick %d, fast path against general path", a.ticks)
	if got != st {
		tb.Errorf("%s: root %v, want %v", where, got, st)
	}
	if f.resuming != a.resuming {
		tb.Errorf("%s: resuming %v, want %v", where, f.resuming, a.resuming)
	}
	if !slices.Equal(f.block, a.block) {
		for i := range a.state {
			if f.state[i] != a.state[i] {
				tb.Errorf("%s: node %d (%s): state %#x, want %#x", where, i, a.nodes[i].Name, f.state[i], a.state[i])
			}
		}
		tb.Errorf("%s: memory blocks differ", where)
	}
	if !reflect.DeepEqual(f.BB.ref, a.BB.ref) && !(len(f.BB.ref) == 0 && len(a.BB.ref) == 0) {
		tb.Errorf("%s: string values %v, want %v", where, f.BB.ref, a.BB.ref)
	}
	if p, _ := a.Env.(*probe); p != nil && !slices.Equal(s.probe.calls, p.calls) {
		tb.Errorf("%s: lifecycle calls %v, want %v", where, s.probe.calls, p.calls)
	}
	if rs, ok := a.Sink.(*sinkRec); ok && s.msgs >= 0 {
		rs.mu.Lock()
		want := slices.Clone(rs.msgs[s.msgs:])
		rs.mu.Unlock()
		if !slices.Equal(s.sink.msgs, want) {
			tb.Errorf("%s: messages %q, want %q", where, s.sink.msgs, want)
		}
	}
}

// A composite that panics under built-ins that opened in the same tick:
// the fast path, which writes a built-in's state only when it returns,
// halts them as the general path does (they end closed and IDLE, where
// they had a status of a previous tick).
func TestPanickingCompositeUnderBuiltIns(t *testing.T) {
	def := nd("Priority", "root", nil,
		tl("guard", "SF"),
		nd("Sequence", "s", nil, nd("Panicky", "bug", nil, sc("a", "R"))))
	h := newHarness(t, def)
	if h.shadow == nil {
		t.Fatal("no shadow: the fast path is not compared")
	}
	bare := NewAgent(h.tree, 0, 0)
	bare.Env = &probe{calls: make([]counts, h.tree.Len())}
	for k, want := range []Status{Success, Error} {
		now := int64(k+1) * h.step
		if st := h.tick(); st != want {
			t.Fatalf("tick %d: %v, want %v", k+1, st, want)
		}
		if st := bare.Tick(now); st != want {
			t.Fatalf("tick %d without an observer: %v, want %v", k+1, st, want)
		}
	}
	for _, name := range []string{"root", "s", "bug", "a"} {
		i := h.idx(name)
		for _, a := range []*Agent{h.a, bare} {
			if a.IsOpen(i) || a.Status(i) != Idle {
				t.Errorf("%s (observer %v): open %v, status %v after the panic; want closed and IDLE", name, a.Observer() != nil, a.IsOpen(i), a.Status(i))
			}
		}
	}
}

// The shadow compares the fast path in the harness tests: a change to the
// fast path's result is caught.
func TestShadowCatchesADifference(t *testing.T) {
	tree := compileTree(t, nd("Sequence", "root", nil, nd("Check", "c", kv{"key": "x", "op": ">", "value": 1})), withBB(kv{"x": 2.0}))
	s := newShadow(tree)
	if s == nil {
		t.Fatal("no shadow")
	}
	a := NewAgent(tree, 0, 0)
	a.Env, a.Sink = &probe{calls: make([]counts, tree.Len())}, &sinkRec{}
	a.SetObserver(&visitCounter{})
	s.before(a)
	st := a.Tick(10 * ms)
	a.state[1] ^= 3 // as if the general path had decided otherwise
	ft := &fakeTB{TB: t}
	s.after(ft, a, 10*ms, st)
	if !ft.failed {
		t.Error("a different node state went unnoticed")
	}
}

type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Errorf(string, ...any) { f.failed = true }
func (f *fakeTB) Fatal(...any)          { f.failed = true }

// Random trees of the built-ins the fast path runs in line (Sequence,
// Priority, MemSequence, numeric Check, Set, Wait) mixed with others
// (Parallel, Inverter, MemPriority, Checks it does not take, Scripted
// leaves that run, fail and panic, a panicking composite), ticked while
// the blackboard changes under them (numbers, NaN, booleans, strings,
// deleted keys): the shadow compares the fast path with the general path
// after every tick.
func TestFastPathRandomTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"k0", "k1", "k2", "k3"}
	ops := []string{"<", "<=", ">", ">=", "==", "!="}
	num := func() float64 { return float64(rng.IntN(4)) }
	var gen func(depth int) *NodeDef
	gen = func(depth int) *NodeDef {
		k := keys[rng.IntN(len(keys))]
		if depth == 0 || rng.IntN(3) == 0 {
			switch rng.IntN(10) {
			case 0, 1, 2:
				return nd("Check", "", kv{"key": k, "op": ops[rng.IntN(len(ops))], "value": num()})
			case 3:
				return nd("Check", "", kv{"key": k, "op": ops[rng.IntN(len(ops))], "value": num(), "max_age_ms": 20})
			case 4:
				return nd("Check", "", kv{"key": k, "op": "==", "other_key": keys[rng.IntN(len(keys))]})
			case 5:
				if rng.IntN(2) == 0 {
					return nd("Set", "", kv{"key": k, "value": num()})
				}
				return nd("Set", "", kv{"key": k, "value": "{" + keys[rng.IntN(len(keys))] + "}"})
			case 6:
				if rng.IntN(3) == 0 {
					return nd("Wait", "", kv{"ms": "{" + k + "}"})
				}
				return nd("Wait", "", kv{"ms": []int{0, 10, 30}[rng.IntN(3)]})
			case 7, 8:
				script := make([]byte, 1+rng.IntN(4))
				for i := range script {
					script[i] = "SSFFRRRE"[rng.IntN(8)]
				}
				if rng.IntN(20) == 0 {
					script[len(script)-1] = 'P'
				}
				return sc("", string(script))
			default:
				return nd([]string{"Succeed", "Fail", "Running"}[rng.IntN(3)], "", nil)
			}
		}
		n := 1 + rng.IntN(4)
		var children []*NodeDef
		for range n {
			children = append(children, gen(depth-1))
		}
		switch rng.IntN(12) {
		case 0, 1, 2:
			return nd("Sequence", "", nil, children...)
		case 3, 4, 5:
			return nd("Priority", "", nil, children...)
		case 6, 7:
			return nd("MemSequence", "", nil, children...)
		case 8:
			return nd("MemPriority", "", nil, children...)
		case 9:
			return nd("Parallel", "", kv{"success": -1, "failure": 1}, children...)
		case 10:
			return nd("Inverter", "", nil, children[0])
		default:
			if rng.IntN(4) == 0 {
				return nd("Panicky", "", nil, children...)
			}
			return nd("Sequence", "", nil, children...)
		}
	}
	compared := 0
	for tree := range 300 {
		def := gen(4)
		h := newHarness(t, def, withKeys(keys...), withBB(kv{"k0": 1.0, "k1": 2.0, "k2": 0.0, "k3": 3.0}))
		if h.shadow == nil {
			t.Fatalf("tree %d: no shadow", tree)
		}
		for range 40 {
			for _, k := range keys {
				s, _ := h.tree.Slot(k)
				switch rng.IntN(12) {
				case 0:
					h.a.BB.Set(s, NumberValue(math.NaN()))
				case 1:
					h.a.BB.Set(s, BoolValue(rng.IntN(2) == 0))
				case 2:
					h.a.BB.Set(s, StringValue("x"))
				case 3:
					h.a.BB.Delete(s)
				case 4, 5, 6:
					h.a.BB.Set(s, NumberValue(num()))
				}
			}
			h.tick()
			compared++
		}
		if t.Failed() {
			t.Fatalf("tree %d differs: %+v", tree, def)
		}
	}
	t.Logf("%d ticks compared", compared)
}
