package bt

import (
	"strings"
	"testing"
)

// machine builds a StateMachine definition writing its state to "state".
func machine(name, initial string, states kv, trans ...kv) *NodeDef {
	ts := make([]any, len(trans))
	for i, t := range trans {
		ts[i] = t
	}
	return nd("StateMachine", name, kv{"initial": initial, "states": states, "transitions": ts, "state_key": "state"})
}

func tr(from, to string, when any) kv { return kv{"from": from, "to": to, "when": when} }

// cond is a condition node driven by the agent's tick number.
func cond(timeline string) kv { return kv{"type": "Scripted", "params": kv{"timeline": timeline}} }

func treeState(name string) kv { return kv{"tree": name} }

func final(result string) kv { return kv{"result": result} }

func stateKey(h *harness) string {
	s, _ := h.tree.Slot("state")
	return h.a.BB.Get(s).String()
}

// idle -> work when go is true; work -> done (SUCCESS) on tick 5.
func TestStateMachineRun(t *testing.T) {
	h := newHarness(t, machine("sm", "idle",
		kv{"idle": treeState("idle_t"), "work": treeState("work_t"), "done": final("SUCCESS")},
		tr("idle", "work", "go == true"),
		tr("work", "done", cond("FFFFS"))),
		withTree("idle_t", sc("idling", "R")),
		withTree("work_t", nd("Sequence", "working", nil, sc("step", "RRS"))),
		withBB(kv{"go": false}))
	goKey, _ := h.tree.Slot("go")

	// The state trees and conditions are nodes of the compiled tree.
	var table []string
	for i := 0; i < h.tree.Len(); i++ {
		n := h.tree.Node(i)
		table = append(table, n.Type.Name+" "+n.Name+" "+n.Path)
	}
	eqLines(t, "node table", table, []string{
		"StateMachine sm /trees/main",
		"SubTree idle /trees/main/params/states/idle",
		"Scripted idling /trees/idle_t",
		"SubTree work /trees/main/params/states/work",
		"Sequence working /trees/work_t",
		"Scripted step /trees/work_t/children/0",
		"Expr when idle -> work /trees/main/params/transitions/0/when",
		"Scripted when work -> done /trees/main/params/transitions/1/when",
	})

	h.tick()
	if got, st := stateKey(h), h.a.MachineState(0); got != "idle" || st != "idle" {
		t.Fatalf("tick 1: state_key %q, State %q; want idle", got, st)
	}
	h.rec.take()
	h.a.BB.Set(goKey, BoolValue(true))
	h.tick()
	// The transition fires: the idle state's tree is halted at that
	// moment, deepest first, then the work state's tree opens.
	eqLines(t, "tick 2", h.rec.take(), []string{
		"when idle -> work open", "when idle -> work tick SUCCESS", "when idle -> work close",
		"idling halt", "idle halt",
		"work open", "working open", "step open", "step tick RUNNING", "working tick RUNNING", "work tick RUNNING",
		"sm tick RUNNING",
	})
	if got := stateKey(h); got != "work" {
		t.Fatalf("tick 2: state_key %q, want work", got)
	}
	if got := h.run(3); got != "RRS" {
		t.Fatalf("ticks 3-5: %s, want RRS", got)
	}
	if got := stateKey(h); got != "done" {
		t.Errorf("state_key %q, want done", got)
	}
	if got := h.counts("idling"); got != (counts{1, 1, 0, 1}) {
		t.Errorf("idling: %v", got)
	}
	// The work tree completed on tick 4 and was not ticked again.
	if got := h.counts("step"); got != (counts{1, 3, 1, 0}) {
		t.Errorf("step: %v", got)
	}
	if got := h.counts("when idle -> work"); got.tick != 2 {
		t.Errorf("the idle condition was ticked %d times, want 2 (only while idle)", got.tick)
	}
	// Reopened, the machine starts at initial again; go is still true.
	h.tick()
	if got := h.a.MachineState(0); got != "work" {
		t.Errorf("after reopening: state %q, want work", got)
	}
	h.checkProbe()
}

func TestStateMachine(t *testing.T) {
	states := kv{"a": treeState("ta"), "b": treeState("tb"), "c": treeState("tc"),
		"ok": final("SUCCESS"), "ko": final("FAILURE")}
	for _, tc := range []struct {
		name   string
		tree   *NodeDef
		want   string
		state  string // state_key at the end
		counts map[string]counts
	}{
		{
			name: "the first transition that holds fires",
			tree: machine("sm", "a", states,
				tr("a", "b", cond("FS")),
				tr("a", "c", cond("FS")),
				tr("b", "ok", cond("FFFS"))),
			want:  "RRRS",
			state: "ok",
			counts: map[string]counts{
				"when a -> b": {2, 2, 2, 0},
				"when a -> c": {1, 1, 1, 0}, // not evaluated once a -> b fired
				"ta":          {1, 1, 0, 1},
				"tb":          {1, 2, 0, 1},
				"tc":          {},
			},
		},
		{
			name: "* leaves any state",
			tree: machine("sm", "a", states,
				tr("a", "b", cond("FS")),
				tr("*", "ko", cond("FFFS")),
				tr("b", "c", cond("S"))),
			want:   "RRRF",
			state:  "ko",
			counts: map[string]counts{"tb": {1, 1, 0, 1}, "tc": {1, 1, 0, 1}},
		},
		{
			name:   "an initial final state completes at once",
			tree:   machine("sm", "ko", states),
			want:   "FF",
			state:  "ko",
			counts: map[string]counts{"sm": {2, 2, 2, 0}},
		},
		{
			// The state's tree runs once per entry; a transition to the
			// same state runs it again.
			name: "a completed state tree waits for a transition",
			tree: machine("sm", "a", kv{"a": treeState("once")},
				tr("a", "a", cond("FFFFSF"))),
			want:   "RRRRRRR",
			state:  "a",
			counts: map[string]counts{"once": {2, 4, 2, 0}},
		},
		{
			name: "a state tree that errs is ERROR",
			tree: machine("sm", "a", kv{"a": treeState("bad")},
				tr("a", "a", cond("F"))),
			want:   "RE",
			counts: map[string]counts{"bad": {1, 2, 1, 0}},
		},
		{
			// A condition that is RUNNING does not fire and stays open
			// while it is evaluated; it is halted when no longer reached.
			name: "a running condition",
			tree: machine("sm", "a", states,
				tr("a", "b", cond("RRS")),
				tr("b", "c", cond("S"))),
			want:   "RRRR",
			state:  "c",
			counts: map[string]counts{"when a -> b": {1, 3, 1, 0}, "tb": {1, 1, 0, 1}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.tree,
				withTree("ta", sc("ta", "R")), withTree("tb", sc("tb", "R")), withTree("tc", sc("tc", "R")),
				withTree("once", sc("once", "RS")), withTree("bad", sc("bad", "RE")))
			if got := h.run(len(tc.want)); got != tc.want {
				t.Errorf("root statuses %s, want %s\nevents:\n  %s", got, tc.want, strings.Join(h.rec.lines(), "\n  "))
			}
			if tc.state != "" {
				if got := stateKey(h); got != tc.state {
					t.Errorf("state_key %q, want %q", got, tc.state)
				}
			}
			for name, want := range tc.counts {
				if got := h.counts(name); got != want {
					t.Errorf("%s: %v, want %v", name, got, want)
				}
			}
			h.checkProbe()
		})
	}
}

func TestStateMachineConditionError(t *testing.T) {
	h := newHarness(t, machine("sm", "a", kv{"a": treeState("ta"), "b": treeState("tb")},
		tr("a", "b", cond("RE")),
		tr("a", "b", kv{"type": "Scripted", "name": "second", "params": kv{"timeline": "FS"}})),
		withTree("ta", sc("ta", "R")), withTree("tb", sc("tb", "R")))
	if got := h.run(2); got != "RE" {
		t.Fatalf("%s, want RE", got)
	}
	// Tick 1: the first condition is RUNNING (it does not fire), the
	// second fails, the state tree runs. Tick 2: the first errs, so the
	// second (which would hold) is not evaluated and nothing fires; the
	// state tree is halted by the close rule.
	if got := h.counts("second"); got != (counts{1, 1, 1, 0}) {
		t.Errorf("second: %v, want evaluated once", got)
	}
	if got := h.counts("ta"); got != (counts{1, 1, 0, 1}) {
		t.Errorf("ta: %v, want ticked once, then halted", got)
	}
	if got := h.counts("tb"); got != (counts{}) {
		t.Errorf("tb: %v, want never run", got)
	}
	h.checkProbe()
}

// The machine is halted with everything open under it (state tree and
// running conditions), deepest first, by the engine's rules.
func TestStateMachineHalted(t *testing.T) {
	h := newHarness(t, nd("Priority", "root", nil,
		tl("guard", "FFS"),
		machine("sm", "a", kv{"a": treeState("ta"), "b": treeState("tb")},
			tr("a", "b", cond("R")))),
		withTree("ta", sc("ta", "R")), withTree("tb", sc("tb", "R")))
	h.run(2)
	h.rec.take()
	if st := h.tick(); st != Success {
		t.Fatalf("tick 3: %v", st)
	}
	eqLines(t, "tick 3 halts", only(h.rec.take(), "halt"), []string{
		"when a -> b halt", "ta halt", "a halt", "sm halt",
	})
}

// In stored-state evaluation the conditions are evaluated afresh every
// tick (a completed condition keeps no status), and a state entered again
// runs its tree again.
func TestStateMachineStoredState(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil,
		sc("first", "S"),
		machine("sm", "a", kv{"a": treeState("ta"), "b": treeState("tb"), "ok": final("SUCCESS")},
			tr("a", "b", cond("FFSF")),
			tr("b", "a", cond("FFFSF")),
			tr("a", "ok", cond("FFFFFFS")))),
		withTree("ta", sc("ta", "S")), withTree("tb", sc("tb", "R")),
		storedEval)
	if got := h.run(7); got != "RRRRRRS" {
		t.Fatalf("root statuses %s, want RRRRRRS", got)
	}
	if got := h.counts("first"); got.tick != 1 {
		t.Errorf("first ticked %d times, want 1 (stored)", got.tick)
	}
	if got := h.counts("when a -> b"); got.tick != 6 {
		t.Errorf("a -> b evaluated %d times, want 6 (every tick in state a)", got.tick)
	}
	if got := h.counts("ta"); got.open != 2 {
		t.Errorf("ta ran %d times, want 2 (once per entry)", got.open)
	}
}

// One machine definition, two agents in different states.
func TestStateMachineSharedByAgents(t *testing.T) {
	tree := compileTree(t, machine("sm", "idle", kv{"idle": treeState("t"), "busy": treeState("t")},
		tr("idle", "busy", "go == true"),
		tr("busy", "idle", "go == false")),
		withTree("t", sc("", "R")), withBB(kv{"go": false}))
	f := newFleet(t, tree, 2)
	f.set(1, "go", true)
	f.run(2)
	if a, b := f.hs[0].a.MachineState(0), f.hs[1].a.MachineState(0); a != "idle" || b != "busy" {
		t.Errorf("states %q and %q, want idle and busy", a, b)
	}
	f.set(0, "go", true)
	f.set(1, "go", false)
	f.run(1)
	if a, b := f.hs[0].a.MachineState(0), f.hs[1].a.MachineState(0); a != "busy" || b != "idle" {
		t.Errorf("states %q and %q, want busy and idle", a, b)
	}
}

func TestStateMachineProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		// 0: unknown states, trees, bad conditions
		nd("StateMachine", "", kv{
			"initial": "nope",
			"states": kv{
				"a":    kv{"tree": "nowhere"},
				"b":    kv{"tree": "t", "result": "SUCCESS"},
				"c":    kv{"result": "MAYBE"},
				"d":    kv{},
				"e":    kv{"tree": "t", "colour": "red"},
				"*":    kv{"result": "SUCCESS"},
				"loop": kv{"tree": "main"},
			},
			"transitions": []any{
				kv{"from": "x", "to": "*", "when": "true"},
				kv{"from": "a", "to": "e"},
				kv{"from": "a", "to": "e", "when": "a +"},
				kv{"from": "a", "to": "e", "when": kv{"type": "Sequense"}},
				kv{"from": "a", "to": "e", "when": kv{"type": "Check", "params": kv{"key": "k"}}},
				kv{"from": "a", "to": "e", "when": kv{"params": kv{}, "extra": 1}},
				kv{"from": "a", "to": "e", "when": 42, "why": "?"},
				"a -> e",
			},
		}),
		// 1: missing initial and states; written children
		nd("StateMachine", "", nil, sc("", "S")),
		// 2: malformed parameters
		nd("StateMachine", "", kv{"initial": "", "states": []any{}, "transitions": kv{}})),
		withTree("t", sc("", "S"))))
	const sm = "/trees/main/children/0/params"
	wantProblems(t, ps,
		sm+"/initial", `unknown state "nope"`,
		sm+"/states/a/tree", `unknown tree "nowhere"`,
		sm+"/states/b", "a tree or a result, not both",
		sm+"/states/c/result", "want SUCCESS or FAILURE",
		sm+"/states/d", "needs a tree",
		sm+"/states/e/colour", `unknown field "colour"`,
		sm+"/states/*", `invalid state name "*"`,
		sm+"/states/loop/tree", "recursive subtree: main -> main",
		sm+"/transitions/0/from", `unknown state "x"`,
		sm+"/transitions/0/to", `unknown state "*" ("*" is only allowed in from)`,
		sm+"/transitions/1/when", "missing condition",
		sm+"/transitions/2/when", "unexpected token",
		sm+"/transitions/3/when/type", `unknown node type "Sequense"`,
		sm+"/transitions/4/when/params/value", "missing value",
		sm+"/transitions/5/when/type", "missing node type",
		sm+"/transitions/5/when/extra", `unknown field "extra"`,
		sm+"/transitions/6/when", "want a node definition",
		sm+"/transitions/6/why", `unknown field "why"`,
		sm+"/transitions/7", "want {",
		"/trees/main/children/1/params/initial", "missing required parameter",
		"/trees/main/children/1/params/states", "missing required parameter",
		"/trees/main/children/1/children", "takes no children",
		"/trees/main/children/2/params/initial", "missing initial state",
		"/trees/main/children/2/params/states", "want an object of states",
		"/trees/main/children/2/params/transitions", "want a list of transitions",
	)
}

// A condition definition may be a whole subtree, with its own children
// and ids; the catalog lists StateMachine without written children.
func TestStateMachineConditionTree(t *testing.T) {
	h := newHarness(t, machine("sm", "a", kv{"a": treeState("t"), "ok": final("SUCCESS")},
		tr("a", "ok", kv{"type": "Sequence", "name": "both", "children": []any{
			kv{"type": "Check", "params": kv{"key": "x", "op": ">", "value": 1}},
			kv{"type": "Expr", "id": "cond-y", "params": kv{"expr": "y"}},
		}})),
		withTree("t", sc("", "R")), withBB(kv{"x": 2, "y": false}))
	if got := h.run(2); got != "RR" {
		t.Fatalf("%s, want RR", got)
	}
	y, _ := h.tree.Slot("y")
	h.a.BB.Set(y, BoolValue(true))
	if got := h.run(1); got != "S" {
		t.Fatalf("%s, want S", got)
	}
	if got := h.tree.Node(int(h.idx("both")) + 2).ID; got != "cond-y" {
		t.Errorf("condition node id %q, want cond-y", got)
	}
	for _, ti := range NewRegistry().Catalog() {
		if ti.Name == "StateMachine" && ti.Children != [2]int{0, 0} {
			t.Errorf("catalog: StateMachine children %v, want [0 0]", ti.Children)
		}
	}
}

// A machine whose states make the tree too large is refused, not a panic.
func TestStateMachineSizeLimit(t *testing.T) {
	spec := mainSpec(machine("sm", "a", kv{"a": treeState("t"), "b": treeState("t"), "c": treeState("t")},
		tr("a", "b", "true")), withTree("t", nd("Sequence", "", nil, sc("", "R"), sc("", "R"))))
	spec.MaxNodes = 6
	ps := compileProblems(t, spec)
	if len(ps) != 1 || ps[0].Code != CodeLimit {
		t.Errorf("problems %v, want the size limit", ps)
	}
}
