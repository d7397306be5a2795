package bt

import "testing"

// Precondition as BehaviorTree.CPP has it (gtest_preconditions.cpp).
func TestPrecondition(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// PreconditionsDecorator.Integers: A==B runs TestA; A==C is
			// false and gives its else (SUCCESS) without TestB; A!=C runs
			// TestC.
			name: "Integers",
			tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "A:=1; B:=1; C:=3"}),
				nd("Precondition", "", kv{"if": "A==B", "else": "FAILURE"}, sc("testA", "S")),
				nd("Precondition", "", kv{"if": "A==C", "else": "SUCCESS"}, sc("testB", "S")),
				nd("Precondition", "", kv{"if": "A!=C", "else": "FAILURE"}, sc("testC", "S"))),
			want:   "S",
			counts: map[string]counts{"testA": {1, 1, 1, 0}, "testB": {}, "testC": {1, 1, 1, 0}},
		},
		{
			// PreconditionsDecorator.DoubleEquals and StringEquals, shortly.
			name: "DoubleEquals and StringEquals",
			tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "x := 1.1; s := 'hello'"}),
				nd("Precondition", "", kv{"if": "x == 1.1"}, sc("a", "S")),
				nd("Precondition", "", kv{"if": "s == 'hello'"}, sc("b", "S"))),
			want:   "S",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			name:   "else RUNNING",
			tree:   nd("Precondition", "p", kv{"if": "false", "else": "RUNNING"}, sc("a", "S")),
			want:   "RR",
			counts: map[string]counts{"a": {}},
		},
		{
			name: "a condition that fails to evaluate is ERROR",
			tree: nd("Precondition", "p", kv{"if": "missing > 1"}, sc("a", "S")),
			want: "E",
		},
	})
}

// PreconditionsDecorator.ChecksConditionOnce: once the child runs, the
// condition is not evaluated again until the child completes.
func TestPreconditionChecksConditionOnce(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil,
		nd("Script", "", kv{"code": "A:=0"}),
		nd("Precondition", "", kv{"if": " A==0 ", "else": "FAILURE"}, sc("child", "RRS"))))
	if got := h.run(1); got != "R" {
		t.Fatalf("tick 1: %s", got)
	}
	a, _ := h.tree.Slot("A")
	h.a.BB.Set(a, NumberValue(1))
	if got := h.run(2); got != "RS" {
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
	a, _ := h.tree.Slot("A")
	h.run(1)
	h.a.BB.Set(a, NumberValue(1))
	h.run(1)
	h.a.BB.Set(a, NumberValue(0))
	if got := h.run(2); got != "RS" {
		t.Fatalf("statuses %s", got)
	}
	if c := h.counts("testA"); c.tick != 2 {
		t.Errorf("testA ticked %d times, want 2", c.tick)
	}
}

func TestScript(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name: "assignments and a condition",
			tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "x := 2; y := x * 3; msg := 'a' + 'b'"}),
				nd("ScriptCondition", "", kv{"code": "y == 6 && msg == 'ab'"})),
			want: "S",
		},
		{
			// Issue_636 of gtest_sequence.cpp in script form: a counter
			// the condition itself increments.
			name: "compound assignment",
			tree: nd("SequenceWithMemory", "root", nil,
				nd("Script", "", kv{"code": " var := 0 "}),
				nd("ScriptCondition", "", kv{"code": "var+=1; var >= 5"})),
			want: "FFFFS",
		},
		{
			name: "+= needs a value",
			tree: nd("Script", "", kv{"code": "nope += 1"}),
			want: "E",
		},
		// `=` wants an existing entry, as BT.CPP's scripts do: one with a
		// value, or one a node's port names (BT.CPP creates those with
		// the tree); a SubTree's remapping alone creates none.
		// (gtest_subtree.cpp's copy subtree writes `thoughts` with `=`
		// and throws.)
		{
			name: "= on a key nothing created is ERROR",
			tree: nd("Script", "", kv{"code": "thoughts = 'hello'"}),
			want: "E",
		},
		{
			name: "= on a key a port names",
			tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "x = 1"}),
				nd("Set", "", kv{"key": "x", "value": 2})),
			want: "S",
		},
		{
			name: "= on a key a \"{key}\" port names",
			tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "y = 1"}),
				nd("Set", "", kv{"key": "x", "value": "{y}"})),
			want: "S",
		},
		{
			name: "= after := and after a value",
			tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "x := 1; x = x + 1"}),
				nd("ScriptCondition", "", kv{"code": "x == 2"})),
			want: "S",
		},
		{
			name: "a condition that is not a boolean is ERROR",
			tree: nd("ScriptCondition", "", kv{"code": "1 + 1"}),
			want: "E",
		},
		{
			name: "semicolons inside strings",
			tree: nd("Sequence", "root", nil,
				nd("Script", "", kv{"code": "s := 'a;b'"}),
				nd("ScriptCondition", "", kv{"code": "s == \"a;b\""})),
			want: "S",
		},
	})
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Script", "", kv{"code": "x := "}),
		nd("ScriptCondition", "", kv{"code": "(("}))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/code", "nothing to assign",
		"/trees/main/children/1/params/code", "")
}
