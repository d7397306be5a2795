package btcpp

import (
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

// Precondition as BehaviorTree.CPP has it (gtest_preconditions.cpp).
func TestPrecondition(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// PreconditionsDecorator.Integers: A==B runs TestA; A==C is
			// false and gives its else (SUCCESS) without TestB; A!=C runs
			// TestC.
			Name: "Integers",
			Tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "A:=1; B:=1; C:=3"}),
				nd("Precondition", "", kv{"if": "A==B", "else": "FAILURE"}, sc("testA", "S")),
				nd("Precondition", "", kv{"if": "A==C", "else": "SUCCESS"}, sc("testB", "S")),
				nd("Precondition", "", kv{"if": "A!=C", "else": "FAILURE"}, sc("testC", "S"))),
			Want:   "S",
			Counts: map[string]counts{"testA": {1, 1, 1, 0}, "testB": {}, "testC": {1, 1, 1, 0}},
		},
		{
			// PreconditionsDecorator.DoubleEquals and StringEquals, shortly.
			Name: "DoubleEquals and StringEquals",
			Tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "x := 1.1; s := 'hello'"}),
				nd("Precondition", "", kv{"if": "x == 1.1"}, sc("a", "S")),
				nd("Precondition", "", kv{"if": "s == 'hello'"}, sc("b", "S"))),
			Want:   "S",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			Name:   "else RUNNING",
			Tree:   nd("Precondition", "p", kv{"if": "false", "else": "RUNNING"}, sc("a", "S")),
			Want:   "RR",
			Counts: map[string]counts{"a": {}},
		},
		{
			Name: "a condition that fails to evaluate is ERROR",
			Tree: nd("Precondition", "p", kv{"if": "missing > 1"}, sc("a", "S")),
			Want: "E",
		},
	})
}

// PreconditionsDecorator.ChecksConditionOnce: once the child runs, the
// condition is not evaluated again until the child completes.
func TestPreconditionChecksConditionOnce(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil,
		nd("Script", "", kv{"code": "A:=0"}),
		nd("Precondition", "", kv{"if": " A==0 ", "else": "FAILURE"}, sc("child", "RRS"))))
	if got := h.Run(1); got != "R" {
		t.Fatalf("tick 1: %s", got)
	}
	a, _ := h.Tree.Slot("A")
	h.A.BB.Set(a, bt.NumberValue(1))
	if got := h.Run(2); got != "RS" {
		t.Fatalf("ticks 2-3: %s, want RS (the else branch must not be taken)", got)
	}
}

// PreconditionsDecorator.CanRunChildrenMultipleTimes, shortly: inside a
// Repeat, each run of the child evaluates the condition anew. (BT.CPP's
// Sequence is botd's MemSequence.)
func TestPreconditionEvaluatedPerRun(t *testing.T) {
	h := newHarness(t, nd("Repeat", "rep", kv{"num_cycles": 3},
		nd("MemSequence", "", nil,
			nd("Precondition", "", kv{"if": "A==0", "else": "SUCCESS"}, sc("testA", "S")),
			sc("wait", "RS"))), withBB(kv{"A": 0}))
	a, _ := h.Tree.Slot("A")
	h.Run(1)
	h.A.BB.Set(a, bt.NumberValue(1))
	h.Run(1)
	h.A.BB.Set(a, bt.NumberValue(0))
	if got := h.Run(2); got != "RS" {
		t.Fatalf("statuses %s", got)
	}
	if c := h.Counts("testA"); c.Tick != 2 {
		t.Errorf("testA ticked %d times, want 2", c.Tick)
	}
}

func TestScript(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name: "assignments and a condition",
			Tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "x := 2; y := x * 3; msg := 'a' + 'b'"}),
				nd("ScriptCondition", "", kv{"code": "y == 6 && msg == 'ab'"})),
			Want: "S",
		},
		{
			// Issue_636 of gtest_sequence.cpp in script form: a counter
			// the condition itself increments.
			Name: "compound assignment",
			Tree: nd("SequenceWithMemory", "root", nil,
				nd("Script", "", kv{"code": " var := 0 "}),
				nd("ScriptCondition", "", kv{"code": "var+=1; var >= 5"})),
			Want: "FFFFS",
		},
		{
			Name: "+= needs a value",
			Tree: nd("Script", "", kv{"code": "nope += 1"}),
			Want: "E",
		},
		// `=` wants an existing entry, as BT.CPP's scripts do: one with a
		// value, or one a node's port names (BT.CPP creates those with
		// the tree); a SubTree's remapping alone creates none.
		// (gtest_subtree.cpp's copy subtree writes `thoughts` with `=`
		// and throws.)
		{
			Name: "= on a key nothing created is ERROR",
			Tree: nd("Script", "", kv{"code": "thoughts = 'hello'"}),
			Want: "E",
		},
		{
			Name: "= on a key a port names",
			Tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "x = 1"}),
				nd("Set", "", kv{"key": "x", "value": 2})),
			Want: "S",
		},
		{
			Name: "= on a key a \"{key}\" port names",
			Tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "y = 1"}),
				nd("Set", "", kv{"key": "x", "value": "{y}"})),
			Want: "S",
		},
		{
			Name: "= after := and after a value",
			Tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "x := 1; x = x + 1"}),
				nd("ScriptCondition", "", kv{"code": "x == 2"})),
			Want: "S",
		},
		{
			Name: "a condition that is not a boolean is ERROR",
			Tree: nd("ScriptCondition", "", kv{"code": "1 + 1"}),
			Want: "E",
		},
		{
			Name: "semicolons inside strings",
			Tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "s := 'a;b'"}),
				nd("ScriptCondition", "", kv{"code": "s == \"a;b\""})),
			Want: "S",
		},
	})
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Script", "", kv{"code": "x := "}),
		nd("ScriptCondition", "", kv{"code": "(("}))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/code", "nothing to assign",
		"/trees/main/children/1/params/code", "")
}

// Precondition's script has the engine's cost warnings (the budget of
// every script and expression, budget_static.go), and fails over them.
func TestPreconditionCostWarning(t *testing.T) {
	def := nd("Precondition", "p", kv{"if": `len(repeat("x", 2000000)) > 0`}, nd("Succeed", "", nil))
	ws := compileTree(t, def).Warnings()
	if len(ws) != 1 || ws[0].Path != "/trees/main/params/if" || !strings.Contains(ws[0].Message, "this script makes at least 1.91 MiB") ||
		ws[0].Code != bt.CodeWarning {
		t.Fatalf("warnings %v, want one at /trees/main/params/if", ws)
	}
	if st := newHarness(t, def).Tick(); st != bt.Error {
		t.Errorf("%v when it runs, want ERROR", st)
	}
}
