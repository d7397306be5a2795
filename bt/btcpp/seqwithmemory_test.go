package btcpp

import "testing"

// SequenceWithMemory as BehaviorTree.CPP has it (gtest_sequence.cpp).
func TestSequenceWithMemory(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// SimpleSequenceWithMemoryTest.ConditionTurnToFalse: a
			// condition that turns false is not ticked again while the
			// action after it runs.
			Name:   "ConditionTurnToFalse",
			Tree:   nd("SequenceWithMemory", "seq", nil, tl("cond", "SF"), sc("action", "RRS")),
			Want:   "RRS",
			Counts: map[string]counts{"cond": {1, 1, 1, 0}, "action": {1, 3, 1, 0}},
		},
		{
			// ComplexSequenceWithMemoryTest.Conditions1ToFalse: nested, the
			// inner sequence of conditions completed and is not re-run.
			Name: "Conditions1ToFalse",
			Tree: nd("SequenceWithMemory", "root", nil,
				nd("SequenceWithMemory", "conds", nil, tl("c1", "SF"), sc("c2", "S")),
				nd("SequenceWithMemory", "actions", nil, sc("a1", "RS"), sc("a2", "RS"))),
			Want:   "RRS",
			Counts: map[string]counts{"c1": {1, 1, 1, 0}, "a1": {1, 2, 1, 0}, "a2": {1, 2, 1, 0}},
		},
		{
			// SequenceWithMemoryTest.Issue_636: a child that fails is the
			// one the next activation starts at: the children before it
			// (a setup step and TestA) run once, the condition is tried
			// on every tick until its fifth try succeeds, then TestB and
			// TestC run once.
			Name: "Issue_636",
			Tree: nd("SequenceWithMemory", "root", nil, sc("setup", "S"), sc("testA", "S"),
				sc("cond", "F|F|F|F|S"), sc("testB", "S"), sc("testC", "S")),
			Want: "FFFFS",
			Counts: map[string]counts{"setup": {1, 1, 1, 0}, "testA": {1, 1, 1, 0}, "cond": {5, 5, 5, 0},
				"testB": {1, 1, 1, 0}, "testC": {1, 1, 1, 0}},
		},
		{
			// After all children succeed it rewinds.
			Name:   "rewinds after success",
			Tree:   nd("SequenceWithMemory", "root", nil, sc("a", "S"), sc("b", "S")),
			Want:   "SS",
			Counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 2, 2, 0}},
		},
		{
			// A halt does not rewind it either (BT.CPP's halt keeps the
			// index): tick 2 halts it in b; tick 3 resumes at b.
			Name: "a halt does not rewind",
			Tree: nd("Priority", "root", nil, tl("guard", "FSF"),
				nd("SequenceWithMemory", "seq", nil, sc("a", "S"), sc("b", "R"))),
			Want:   "RSR",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {2, 2, 0, 1}},
		},
		{
			Name:   "SequenceStar is its BT.CPP 3 name",
			Tree:   nd("SequenceStar", "root", nil, sc("a", "S"), sc("b", "F|S")),
			Want:   "FS",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {2, 2, 2, 0}},
		},
	})
}
