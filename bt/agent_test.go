package bt

import (
	"fmt"
	"strings"
	"testing"
)

func TestObserverEventOrder(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil, sc("a", "S"), sc("b", "RS")))
	h.tick()
	eqLines(t, "tick 1", h.rec.take(), []string{
		"root open",
		"a open", "a tick SUCCESS", "a close",
		"b open", "b tick RUNNING",
		"root tick RUNNING",
	})
	h.tick()
	eqLines(t, "tick 2", h.rec.take(), []string{
		"a open", "a tick SUCCESS", "a close",
		"b tick SUCCESS", "b close",
		"root tick SUCCESS", "root close",
	})
}

// Close rule: before a node closes, its open descendants are halted,
// deepest first in reverse pre-order (highest index first).
func TestHaltOrderCloseRule(t *testing.T) {
	// indexes: root 0, A 1, a1 2, B 3, C 4, c1 5, c2 6, D 7
	h := newHarness(t, nd("Parallel", "root", kv{"success": 1},
		nd("Sequence", "A", nil, sc("a1", "R")),
		sc("B", "R"),
		nd("Parallel", "C", nil, sc("c1", "R"), sc("c2", "R")),
		sc("D", "RS")))
	h.tick()
	h.rec.take()
	if st := h.tick(); st != Success {
		t.Fatalf("tick 2: %v, want SUCCESS", st)
	}
	eqLines(t, "tick 2", h.rec.take(), []string{
		"a1 tick RUNNING", "A tick RUNNING",
		"B tick RUNNING",
		"c1 tick RUNNING", "c2 tick RUNNING", "C tick RUNNING",
		"D tick SUCCESS", "D close",
		"root tick SUCCESS",
		"c2 halt", "c1 halt", "C halt", "B halt", "a1 halt", "A halt",
		"root close",
	})
	h.checkProbe()
}

// Unreached-node rule: after the root returns RUNNING, open nodes not
// reached in the tick are halted, highest index first.
func TestHaltOrderUnreachedRule(t *testing.T) {
	// indexes: root 0, guard 1, P 2, A 3, a1 4, B 5, C 6
	h := newHarness(t, nd("Priority", "root", nil,
		tl("guard", "FR"),
		nd("Parallel", "P", nil,
			nd("Sequence", "A", nil, sc("a1", "R")),
			sc("B", "R"),
			sc("C", "R"))))
	h.tick()
	h.rec.take()
	if st := h.tick(); st != Running {
		t.Fatalf("tick 2: %v, want RUNNING", st)
	}
	eqLines(t, "tick 2", h.rec.take(), []string{
		"guard open", "guard tick RUNNING",
		"root tick RUNNING",
		"C halt", "B halt", "a1 halt", "A halt", "P halt",
	})
	for _, name := range []string{"P", "A", "a1", "B", "C"} {
		if i := h.idx(name); h.a.IsOpen(i) || h.a.Status(i) != Idle {
			t.Errorf("%s after its halt: open %v, status %v; want closed and IDLE", name, h.a.IsOpen(i), h.a.Status(i))
		}
	}
	h.checkProbe()
}

// wideTree is a Priority over a guard and a Parallel of n running
// children, so the halts cross several 64-node words.
func wideTree(n int, guard string, parallelParams kv, last string) *NodeDef {
	kids := make([]*NodeDef, n)
	for i := range kids {
		kids[i] = sc(fmt.Sprintf("k%03d", i), "R")
	}
	kids[n-1] = sc(fmt.Sprintf("k%03d", n-1), last)
	return nd("Priority", "root", nil, tl("guard", guard), nd("Parallel", "P", parallelParams, kids...))
}

func wantHalts(n int, then ...string) []string {
	var want []string
	for i := n - 1; i >= 0; i-- {
		want = append(want, fmt.Sprintf("k%03d halt", i))
	}
	return append(want, then...)
}

func TestHaltOrderAcrossWords(t *testing.T) {
	const n = 150
	t.Run("unreached", func(t *testing.T) {
		h := newHarness(t, wideTree(n, "FR", nil, "R"))
		h.tick()
		h.rec.take()
		h.tick()
		eqLines(t, "halts", only(h.rec.take(), "halt"), wantHalts(n, "P halt"))
	})
	t.Run("close", func(t *testing.T) {
		h := newHarness(t, wideTree(n, "F", kv{"success": 1}, "RS"))
		h.tick()
		h.rec.take()
		if st := h.tick(); st != Success {
			t.Fatalf("tick 2: %v", st)
		}
		eqLines(t, "halts", only(h.rec.take(), "halt"), wantHalts(n-1))
	})
	t.Run("HaltAll", func(t *testing.T) {
		h := newHarness(t, wideTree(n, "F", nil, "R"))
		h.tick()
		h.rec.take()
		h.a.HaltAll()
		eqLines(t, "halts", h.rec.take(), wantHalts(n, "P halt", "root halt"))
		checkOpenUnderOpen(t, h.a, Idle)
	})
}

func TestHaltAll(t *testing.T) {
	h := newHarness(t, nd("MemSequence", "root", nil, sc("a", "S"), nd("Inverter", "inv", nil, sc("b", "R"))))
	h.tick()
	h.rec.take()
	h.a.HaltAll()
	eqLines(t, "HaltAll", h.rec.take(), []string{"b halt", "inv halt", "root halt"})
	for i := int32(0); i < int32(h.tree.Len()); i++ {
		if h.a.IsOpen(i) || h.a.Status(i) != Idle && i != h.idx("a") {
			t.Errorf("node %d: open %v status %v", i, h.a.IsOpen(i), h.a.Status(i))
		}
	}
	// a completed before the halt and keeps its last status.
	if st := h.a.Status(h.idx("a")); st != Success {
		t.Errorf("a: %v, want its last status SUCCESS", st)
	}
	// Halting twice halts nothing more.
	h.a.HaltAll()
	if l := h.rec.take(); len(l) != 0 {
		t.Errorf("second HaltAll: %v", l)
	}
	// The tree starts afresh.
	h.tick()
	if got := only(h.rec.take(), "open"); len(got) != 4 {
		t.Errorf("after HaltAll: opened %v, want all four nodes", got)
	}
	h.checkProbe()
}

func TestPanickingLeaf(t *testing.T) {
	h := newHarness(t, nd("Priority", "root", nil,
		nd("Sequence", "seq", nil, sc("ok", "S"), sc("bad", "P|S")),
		sc("fallback", "S")))
	if st := h.tick(); st != Error {
		t.Fatalf("tick 1: %v, want ERROR from the panicking leaf", st)
	}
	eqLines(t, "tick 1", h.rec.take(), []string{
		"root open", "seq open",
		"ok open", "ok tick SUCCESS", "ok close",
		"bad open", "bad tick ERROR", "bad close",
		"seq tick ERROR", "seq close",
		"root tick ERROR", "root close",
	})
	if len(h.sink.msgs) != 1 || h.sink.msgs[0] != "error: panic in Scripted: scripted panic" {
		t.Errorf("sink got %q", h.sink.msgs)
	}
	// The agent keeps working.
	if got := h.run(2); got != "SS" {
		t.Errorf("after the panic: %s, want SS", got)
	}
	if got := h.calls("bad"); got != (counts{3, 3, 3, 0}) {
		t.Errorf("bad: %v", got)
	}
	h.checkProbe()
}

func TestPanickingHalt(t *testing.T) {
	// A leaf whose Halt panics must not keep the others from being halted.
	h := newHarness(t, nd("Priority", "root", nil,
		tl("guard", "FS"),
		nd("Parallel", "P", nil, sc("a", "R"), nd("BadHalt", "bad", nil), sc("c", "R"))))
	h.tick()
	h.rec.take()
	if st := h.tick(); st != Success {
		t.Fatalf("tick 2: %v, want SUCCESS", st)
	}
	eqLines(t, "halts", only(h.rec.take(), "halt"), []string{"c halt", "bad halt", "a halt", "P halt"})
	if len(h.sink.msgs) != 1 || !strings.Contains(h.sink.msgs[0], "driver gone") {
		t.Errorf("sink got %q", h.sink.msgs)
	}
	for i := int32(0); i < int32(h.tree.Len()); i++ {
		if h.a.IsOpen(i) {
			t.Errorf("node %d still open", i)
		}
	}
	h.checkProbe()
}

func TestPanickingComposite(t *testing.T) {
	// A bug in a non-leaf node: the tick returns ERROR, everything open is
	// halted deepest first, and the next tick works.
	h := newHarness(t, nd("Priority", "root", nil,
		tl("guard", "FS"),
		nd("Panicky", "bug", nil, sc("a", "R"), sc("b", "R"))))
	if st := h.tick(); st != Error {
		t.Fatalf("tick 1: %v, want ERROR", st)
	}
	eqLines(t, "halts", only(h.rec.take(), "halt", "close"), []string{
		"guard close", "b halt", "a halt", "bug halt", "root halt",
	})
	if len(h.sink.msgs) != 1 || !strings.Contains(h.sink.msgs[0], "composite bug") {
		t.Errorf("sink got %q", h.sink.msgs)
	}
	if st := h.tick(); st != Success {
		t.Errorf("tick 2: %v, want SUCCESS", st)
	}
	h.checkProbe()
}

func TestNoObserver(t *testing.T) {
	def := nd("Priority", "root", nil,
		tl("guard", "FFRFS"),
		nd("MemSequence", "mem", nil, sc("a", "S"), sc("b", "RRS"), nd("Wait", "w", kv{"ms": 20})))
	with := newHarness(t, def)
	tree := compileTree(t, def)
	bare := NewAgent(tree, 0, 0)
	bare.Env = &probe{calls: make([]counts, tree.Len())}
	if bare.Observer() != nil {
		t.Error("a new agent has an observer")
	}
	for k := 1; k <= 6; k++ {
		if got, want := bare.Tick(int64(k)*10*ms), with.tick(); got != want {
			t.Errorf("tick %d: %v without an observer, %v with one", k, got, want)
		}
	}
	// Detaching works too.
	with.a.SetObserver(nil)
	if with.a.Observer() != nil {
		t.Error("SetObserver(nil) did not detach")
	}
	n := len(with.rec.events)
	with.tick()
	if len(with.rec.events) != n {
		t.Error("a detached observer still sees events")
	}
}

func TestAgentReset(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil,
		nd("Set", "set", kv{"key": "written", "value": 1}),
		nd("Set", "bump", kv{"key": "speed", "value": 9}),
		nd("RunOnce", "once", nil, sc("first", "S|F")),
		nd("Limiter", "lim", kv{"max": 2}, sc("limited", "S")),
		sc("run", "R")),
		withBB(kv{"speed": 0.3}))
	h.run(2)
	if !h.a.IsOpen(h.idx("run")) || h.a.Ticks() != 2 {
		t.Fatalf("before Reset: run open %v, ticks %d", h.a.IsOpen(h.idx("run")), h.a.Ticks())
	}
	h.rec.take()
	h.now += 5 * ms
	h.a.Reset(h.now)
	eqLines(t, "Reset halts what is open", h.rec.take(), []string{"run halt", "root halt"})
	if h.a.Ticks() != 0 {
		t.Errorf("ticks %d after Reset", h.a.Ticks())
	}
	for i := int32(0); i < int32(h.tree.Len()); i++ {
		if h.a.IsOpen(i) || h.a.Status(i) != Idle {
			t.Errorf("node %d after Reset: open %v status %v", i, h.a.IsOpen(i), h.a.Status(i))
		}
	}
	speed, _ := h.tree.Slot("speed")
	written, _ := h.tree.Slot("written")
	if v, _ := h.a.BB.Number(speed); v != 0.3 {
		t.Errorf("speed %v after Reset, want the initial 0.3", v)
	}
	if ts, _ := h.a.BB.Stamp(speed); ts != h.now {
		t.Errorf("speed stamped %d, want the Reset time %d", ts, h.now)
	}
	if k := h.a.BB.Get(written).Kind(); k != KindNone {
		t.Errorf("written is %v after Reset, want unset", k)
	}
	// Node memory is forgotten: RunOnce and Limiter run their children
	// again, and the Scripted children restart their scripts.
	h.a.Env = &probe{calls: make([]counts, h.tree.Len())}
	if got := h.run(1); got != "R" {
		t.Errorf("after Reset: %s", got)
	}
	if got := h.calls("first"); got.tick != 1 {
		t.Errorf("RunOnce child after Reset: %v, want run again", got)
	}
	if got := h.calls("limited"); got.tick != 1 {
		t.Errorf("Limiter child after Reset: %v, want run again", got)
	}
}

// steadyTree mixes the engine's common nodes; with battery toggled it
// switches branches, so closes and halts happen while measuring.
func steadyTree() *NodeDef {
	return nd("Priority", "root", nil,
		nd("Sequence", "low", nil,
			nd("Check", "", kv{"key": "battery", "op": "<", "value": 20}),
			nd("Wait", "", kv{"ms": 70})),
		nd("MemSequence", "patrol", nil,
			nd("Check", "", kv{"key": "range", "op": ">", "value": 0.5, "max_age_ms": 1000}),
			nd("Wait", "", kv{"ms": 50}),
			nd("Priority", "", nil,
				nd("Check", "", kv{"key": "mode", "value": "manual"}),
				nd("Wait", "", kv{"ms": "{pause}"}))))
}

type eventCounter struct{ n [4]int }

func (c *eventCounter) OnNode(_ *Agent, _ int32, ev Event, _ Status) { c.n[ev]++ }

func TestTickAllocatesNothing(t *testing.T) {
	tree := compileTree(t, steadyTree(), withBB(kv{"battery": 80, "range": 2, "mode": "auto", "pause": 30}))
	a := NewAgent(tree, 0, 0)
	battery, _ := tree.Slot("battery")
	rng, _ := tree.Slot("range")
	now := int64(0)
	step := func() {
		now += 10 * ms
		if k := now / (10 * ms); k%13 == 0 {
			a.BB.SetNumber(battery, float64(k%2)*100) // flip between branches
		}
		a.BB.SetNumberAt(rng, 2, now)
		a.Tick(now)
	}
	for i := 0; i < 100; i++ {
		step()
	}
	if n := testing.AllocsPerRun(1000, step); n != 0 {
		t.Errorf("%v allocations per tick, want 0", n)
	}
	c := &eventCounter{}
	a.SetObserver(c)
	if n := testing.AllocsPerRun(1000, step); n != 0 {
		t.Errorf("%v allocations per tick with an observer, want 0", n)
	}
	if c.n[EventHalt] == 0 || c.n[EventClose] == 0 {
		t.Errorf("events %v: the measured ticks should close and halt nodes", c.n)
	}
}

func TestAgentAccessors(t *testing.T) {
	tree := compileTree(t, sc("x", "R"))
	a := NewAgent(tree, 7, 123)
	if a.ID != 7 || a.Tree() != tree || a.Now() != 123 || a.Ticks() != 0 {
		t.Errorf("new agent: id %d now %d ticks %d", a.ID, a.Now(), a.Ticks())
	}
	a.Emit(0, "info", "no sink: dropped")
	a.Tick(456)
	if a.Now() != 456 || a.Ticks() != 1 || !a.IsOpen(0) || a.Status(0) != Running {
		t.Errorf("after a tick: now %d ticks %d open %v status %v", a.Now(), a.Ticks(), a.IsOpen(0), a.Status(0))
	}
	if tree.MemoryBytes() <= 0 {
		t.Errorf("MemoryBytes %d", tree.MemoryBytes())
	}
}

func TestStatusAndEventNames(t *testing.T) {
	for _, st := range []Status{Idle, Success, Failure, Running, Error} {
		back, err := ParseStatus(st.String())
		if err != nil || back != st {
			t.Errorf("ParseStatus(%q) = %v, %v", st, back, err)
		}
		if back, err := ParseStatus(string(st.Letter())); err != nil || back != st {
			t.Errorf("ParseStatus(%q) = %v, %v", st.Letter(), back, err)
		}
	}
	if _, err := ParseStatus("success"); err == nil {
		t.Error("lower-case status accepted")
	}
	if Running.Done() || Idle.Done() || !Error.Done() || !Success.Done() || !Failure.Done() {
		t.Error("Done is wrong")
	}
	if got := fmt.Sprint(EventOpen, EventTick, EventClose, EventHalt); got != "open tick close halt" {
		t.Errorf("event names %q", got)
	}
}
