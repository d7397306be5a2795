package bt

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func dyn(name, slot, def string) *NodeDef {
	p := kv{"slot": slot}
	if def != "" {
		p["default"] = def
	}
	return nd("DynamicSubTree", name, p)
}

// compileSlot compiles root as a tree to inject into parent's slot.
func compileSlot(tb testing.TB, parent *Tree, slot string, root *NodeDef) *Tree {
	tb.Helper()
	t, err := testRegistry().CompileSlotTree(parent, slot, mainSpec(root))
	if err != nil {
		tb.Fatalf("CompileSlotTree: %v", err)
	}
	return t
}

func TestDynamicSubTreeDefault(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil, dyn("dyn", "plan", "d"), sc("after", "S")),
		withTree("d", nd("Sequence", "inner", nil, sc("step", "RS"))))
	if got := h.tree.Slots(); strings.Join(got, ",") != "plan" {
		t.Fatalf("Slots() = %v, want [plan]", got)
	}
	if h.tree.Len() != 3 {
		t.Fatalf("the parent has %d nodes, want 3 (the child tree's nodes are not in its table)", h.tree.Len())
	}
	if got := h.run(2); got != "RS" {
		t.Fatalf("root statuses %s, want RS", got)
	}
	if got := h.counts("dyn"); got != (counts{1, 2, 1, 0}) {
		t.Errorf("dyn: %v", got)
	}
	d := h.a.SlotTree("plan")
	if d == nil || d.Root().Name != "inner" {
		t.Fatalf("SlotTree = %v, want the default tree", d)
	}
	if got := h.childCalls(d, "step"); got != (counts{1, 2, 1, 0}) {
		t.Errorf("step in the default tree: %v, want {1 2 1 0}", got)
	}
	h.checkProbe()
}

func TestDynamicSubTree(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "an empty slot without a default fails",
			tree:   dyn("dyn", "plan", ""),
			want:   "FF",
			counts: map[string]counts{"dyn": {2, 2, 2, 0}},
		},
	})
}

// The child tree is stopped, deepest first, when the node is halted.
func TestDynamicSubTreeHalt(t *testing.T) {
	h := newHarness(t, nd("Priority", "root", nil, tl("guard", "FFS"), dyn("dyn", "plan", "d")),
		withTree("d", nd("Sequence", "inner", nil, sc("long", "R"))))
	h.run(2)
	d := h.a.SlotTree("plan")
	h.tick()
	if got := h.counts("dyn"); got != (counts{1, 2, 0, 1}) {
		t.Errorf("dyn: %v, want halted once", got)
	}
	if got := h.childCalls(d, "long"); got != (counts{1, 2, 0, 1}) {
		t.Errorf("long in the child tree: %v, want halted once", got)
	}
}

// An injection takes effect the next time the node opens, never in the
// middle of a run, whether made for every agent or for one.
func TestDynamicSubTreeInjectionAtNextOpen(t *testing.T) {
	for _, perAgent := range []bool{false, true} {
		name := map[bool]string{false: "InjectAll", true: "Agent.Inject"}[perAgent]
		t.Run(name, func(t *testing.T) {
			tree := compileTree(t, nd("Repeater", "root", kv{"count": 3}, dyn("dyn", "plan", "d")),
				withTree("d", sc("d-step", "RS")))
			x := compileSlot(t, tree, "plan", sc("x-step", "S"))
			h := harnessFor(t, tree, 0)
			h.tick() // the default runs
			d := h.a.SlotTree("plan")
			var err error
			if perAgent {
				err = h.a.Inject("plan", x)
			} else {
				err = tree.InjectAll("plan", x)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := h.a.SlotTree("plan"); got != d {
				t.Fatalf("right after the injection the running tree changed")
			}
			h.tick() // the default finishes its run
			h.tick() // the node reopens with x
			h.tick()
			if got := h.childCalls(d, "d-step"); got != (counts{1, 2, 1, 0}) {
				t.Errorf("d-step: %v, want one whole run", got)
			}
			if got := h.childCalls(x, "x-step"); got != (counts{2, 2, 2, 0}) {
				t.Errorf("x-step: %v, want two runs after the injection", got)
			}
			if st := h.a.Status(0); st != Success {
				t.Errorf("root %v, want SUCCESS after three runs", st)
			}
		})
	}
}

// The latest injection that applies to an agent wins: its own (Inject) or
// the tree-wide one (InjectAll); clearing one falls back to the other,
// then to the default.
func TestDynamicSubTreePerAgentAndAll(t *testing.T) {
	sets := func(who string) *NodeDef { return nd("Set", "", kv{"key": "who", "value": who}) }
	tree := compileTree(t, nd("Sequence", "root", nil, dyn("dyn", "plan", "d")),
		withTree("d", sets("d")), withKeys("who"))
	x := compileSlot(t, tree, "plan", sets("x"))
	y := compileSlot(t, tree, "plan", sets("y"))
	z := compileSlot(t, tree, "plan", sets("z"))
	h0, h1 := harnessFor(t, tree, 0), harnessFor(t, tree, 1)
	who, _ := tree.Slot("who")
	step := func(want0, want1 string) {
		t.Helper()
		h0.tick()
		h1.tick()
		got0, got1 := h0.a.BB.Get(who).String(), h1.a.BB.Get(who).String()
		if got0 != want0 || got1 != want1 {
			t.Errorf("agents ran %s and %s, want %s and %s", got0, got1, want0, want1)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	step("d", "d")
	must(h0.a.Inject("plan", x))
	step("x", "d")
	must(tree.InjectAll("plan", y))
	step("y", "y")
	if tree.Injected("plan") != y {
		t.Error("Injected does not return the tree-wide injection")
	}
	must(h0.a.Inject("plan", z))
	step("z", "y")
	must(h0.a.Inject("plan", nil))
	step("y", "y")
	must(h0.a.Inject("plan", x))
	must(tree.InjectAll("plan", nil))
	step("x", "d")
	h0.a.Reset(h0.now)
	step("d", "d")
}

func TestDynamicSubTreeRefusals(t *testing.T) {
	tree := compileTree(t, nd("Parallel", "root", nil, dyn("", "a", ""), dyn("", "b", "")))
	other := compileTree(t, dyn("", "a", ""))
	r := testRegistry()

	_, err := r.CompileSlotTree(tree, "a", mainSpec(nd("Sequence", "", nil,
		nd("Sequense", "", nil), nd("Wait", "", kv{"ms": -1}))))
	ps, ok := err.(Problems)
	if !ok {
		t.Fatalf("invalid injected tree: %v, want Problems", err)
	}
	wantProblems(t, ps,
		"/trees/main/children/0/type", `unknown node type "Sequense"`,
		"/trees/main/children/1/params/ms", "below the limit 0")

	if _, err := r.CompileSlotTree(tree, "c", mainSpec(sc("", "S"))); !errors.Is(err, ErrUnknownSlot) {
		t.Errorf("unknown slot: %v, want ErrUnknownSlot", err)
	}
	forA := compileSlot(t, tree, "a", sc("", "S"))
	forOther := compileSlot(t, other, "a", sc("", "S"))
	a := NewAgent(tree, 0, 0)
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"Inject unknown slot", a.Inject("c", forA), ErrUnknownSlot},
		{"InjectAll unknown slot", tree.InjectAll("c", forA), ErrUnknownSlot},
		{"Inject another tree's", a.Inject("a", forOther), ErrSlotMismatch},
		{"InjectAll another tree's", tree.InjectAll("a", forOther), ErrSlotMismatch},
		{"Inject another slot's", a.Inject("b", forA), ErrSlotMismatch},
		{"InjectAll another slot's", tree.InjectAll("b", forA), ErrSlotMismatch},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if a.SlotTree("a") != nil || tree.Injected("a") != nil {
		t.Error("a refused injection was applied")
	}
}

// Global keys known to both trees are shared both ways: copied in before
// every child tick (values and stamps) and out after it when the child
// changed them, even at the stamp of a parent's write in the same tick.
// The child's other keys are private to it.
func TestDynamicSubTreeBlackboardBridge(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil,
		nd("Set", "", kv{"key": "y", "value": 100}),
		dyn("dyn", "plan", "d"),
		nd("Check", "", kv{"key": "label", "value": "from child"})),
		withTree("d", nd("Sequence", "", nil,
			nd("Set", "", kv{"key": "y", "value": "{x}"}),
			nd("Set", "", kv{"key": "mine", "value": "{x}"}),
			nd("Set", "", kv{"key": "label", "value": "from child"}),
			nd("Check", "fresh?", kv{"key": "sensor", "op": ">", "value": 0, "max_age_ms": 15}))),
		withBB(kv{"x": 1, "sensor": 1}), withKeys("label"))
	x, _ := h.tree.Slot("x")
	y, _ := h.tree.Slot("y")
	if st := h.tick(); st != Success {
		t.Fatalf("tick 1: %v, want SUCCESS", st)
	}
	if v, _ := h.a.BB.Number(y); v != 1 {
		t.Errorf("parent y = %v, want 1 (the child's write wins over the parent's in the same tick)", v)
	}
	if ts, _ := h.a.BB.Stamp(y); ts != h.now {
		t.Errorf("parent y stamped %d, want %d", ts, h.now)
	}
	if _, ok := h.tree.Slot("mine"); ok {
		t.Error("the child's private key exists in the parent")
	}
	d := h.a.SlotTree("plan")
	child := h.a.ext.ptrs[0].(*Agent)
	mine, _ := d.Slot("mine")
	if v, _ := child.BB.Number(mine); v != 1 {
		t.Errorf("child's private key = %v, want 1", v)
	}
	h.a.BB.SetNumber(x, 7)
	// Tick 2 at 20ms: the sensor value from time 0 is now too old for the
	// child's guard, so its stamp crossed the bridge unchanged.
	if st := h.tick(); st != Failure {
		t.Fatalf("tick 2: %v, want FAILURE (stale sensor)", st)
	}
	if v, _ := h.a.BB.Number(y); v != 7 {
		t.Errorf("parent y = %v, want 7 (x copied in, y copied out)", v)
	}
	if c := h.a.ext.ptrs[0].(*Agent); c != child {
		t.Error("the same tree got a new child agent on reopening")
	}
}

// What the child tree emits comes from the DynamicSubTree node of the
// parent agent.
func TestDynamicSubTreeMessages(t *testing.T) {
	tree := compileTree(t, nd("Sequence", "root", nil, sc("", "S"), dyn("dyn", "plan", "d")),
		withTree("d", nd("Error", "", nil)))
	a := NewAgent(tree, 4, 0)
	var got []string
	a.Sink = sinkFunc(func(from *Agent, node int32, level, msg string) {
		got = append(got, from.Tree().Node(int(node)).Name+" "+level+": "+msg)
		if from != a {
			t.Errorf("message from agent %p, want the parent %p", from, a)
		}
	})
	a.Tick(1)
	if strings.Join(got, "|") != "dyn error: Error: returns ERROR by design (a test or stand-in node)" {
		t.Errorf("messages %q", got)
	}
}

type sinkFunc func(a *Agent, node int32, level, msg string)

func (f sinkFunc) Emit(a *Agent, node int32, level, msg string) { f(a, node, level, msg) }

func TestDynamicSubTreeProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		dyn("", "a", "nowhere"),
		dyn("", "b", "main"),
		dyn("", "{k}", ""),
		dyn("", "c", "broken"),
		dyn("", "d", "loop"),
		nd("DynamicSubTree", "", kv{"slot": "e"}, sc("", "S"))),
		withTree("broken", nd("Wait", "", kv{"ms": -1})),
		withTree("loop", dyn("", "x", "loop"))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/default", `unknown tree "nowhere"`,
		"/trees/main/children/1/params/default", "recursive subtree: main -> main",
		"/trees/main/children/2/params/slot", "constant",
		"/trees/broken/params/ms", "below the limit 0",
		"/trees/loop/params/default", "recursive subtree: main -> loop -> loop",
		"/trees/main/children/5/children", "leaf and takes no children")
}

// Child trees run in the parent's evaluation mode; a tree injected for
// every agent is one tree shared by all of them (its Gates and global
// Cooldowns are too).
func TestDynamicSubTreeSharedChildTree(t *testing.T) {
	tree := compileTree(t, dyn("dyn", "plan", "d"),
		withTree("d", nd("Gate", "g", nil, sc("work", "R"))),
		func(s *Spec) { s.Evaluation = StoredState })
	f := newFleet(t, tree, 2)
	f.tick()
	f.want("R", "F")
	d := f.hs[0].a.SlotTree("plan")
	if d.Evaluation() != StoredState {
		t.Errorf("child tree evaluation %v, want stored-state", d.Evaluation())
	}
	if f.hs[1].a.SlotTree("plan") != d {
		t.Error("the agents run different default trees")
	}
}

// Once warmed up, ticking through a DynamicSubTree (reopening the same
// tree, bridging keys) allocates nothing.
func TestDynamicSubTreeAllocatesNothing(t *testing.T) {
	tree := compileTree(t, nd("Repeater", "", kv{"count": -1}, dyn("", "plan", "d")),
		withTree("d", nd("Sequence", "", nil,
			nd("Set", "", kv{"key": "y", "value": "{x}"}),
			nd("Set", "", kv{"key": "s", "value": "{name}"}),
			nd("Wait", "", kv{"ms": 20}))),
		withBB(kv{"x": 1, "y": 0, "name": "n", "s": ""}))
	a := NewAgent(tree, 0, 0)
	now := int64(0)
	for k := 0; k < 10; k++ {
		now += 10 * ms
		a.Tick(now)
	}
	if n := testing.AllocsPerRun(200, func() { now += 10 * ms; a.Tick(now) }); n != 0 {
		t.Errorf("%v allocations per tick, want 0", n)
	}
}

// Child trees are compiled once per parent tree and name, but defaults
// can chain (each parent compiles its own copy): their total size is
// bounded.
func TestDynamicSubTreeBudget(t *testing.T) {
	spec := mainSpec(dyn("", "s", "t0"))
	const n = 14
	for i := 0; i < n; i++ {
		var children []*NodeDef
		for _, j := range []int{i + 1, i + 2} {
			if j < n {
				children = append(children, dyn("", "s", "t"+strconv.Itoa(j)))
			}
		}
		if len(children) == 0 {
			children = append(children, sc("", "S"))
		}
		spec.Trees["t"+strconv.Itoa(i)] = nd("Sequence", "", nil, children...)
	}
	spec.MaxNodes = 10
	ps := compileProblems(t, spec)
	if len(ps) != 1 || ps[0].Code != CodeLimit || !strings.Contains(ps[0].Message, "more than 40 nodes") {
		t.Errorf("problems %v, want one size limit on child trees", ps)
	}
	spec.MaxNodes = 0
	if _, err := testRegistry().Compile(spec); err != nil {
		t.Errorf("with the default limit: %v", err)
	}
}

// Trees injected for every agent from another goroutine while agents run
// (run with -race).
func TestDynamicSubTreeConcurrentInjection(t *testing.T) {
	tree := compileTree(t, nd("Repeater", "", kv{"count": -1}, dyn("", "plan", "d")),
		withTree("d", nd("Set", "", kv{"key": "who", "value": "d"})), withKeys("who"))
	var injected []*Tree
	for i := 0; i < 4; i++ {
		injected = append(injected, compileSlot(t, tree, "plan",
			nd("Sequence", "", nil,
				nd("Set", "", kv{"key": "who", "value": strconv.Itoa(i)}),
				nd("Gate", "", kv{"max": 2}, nd("Wait", "", kv{"ms": 20})))))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k := 0; k < 200; k++ {
			if err := tree.InjectAll("plan", injected[k%len(injected)]); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			a := NewAgent(tree, w, 0)
			for k := 1; k <= 300; k++ {
				if st := a.Tick(int64(k) * 10 * ms); st != Running {
					t.Errorf("agent %d tick %d: %v", w, k, st)
					return
				}
			}
			a.HaltAll()
		}(w)
	}
	wg.Wait()
	<-done
}

// A script's `=` in a child tree (a DynamicSubTree default) writes a key
// a port of that tree names, as in the main tree: the child tree is
// compiled on its own and learns its ported keys too.
func TestDynamicSubTreeDefaultAssign(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil, dyn("dyn", "plan", "d")),
		withTree("d", nd("Sequence", "inner", nil,
			nd("Script", "", kv{"code": "x = 1"}),
			nd("Set", "", kv{"key": "x", "value": 2}))))
	if got := h.run(1); got != "S" {
		t.Fatalf("root statuses %s, want S", got)
	}
}
