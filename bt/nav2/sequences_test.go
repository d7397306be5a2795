package nav2

import "testing"

// Nav2's NonblockingSequence and PersistentSequence
// (test_nonblocking_sequence.cpp, test_persistent_sequence.cpp, shortly).
func TestNonblockingSequence(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// Every child is ticked every tick, succeeded ones too.
			Name:   "all ticked",
			Tree:   nd("NonblockingSequence", "seq", nil, sc("a", "S"), sc("b", "RS|S"), sc("c", "RRS")),
			Want:   "RRS",
			Counts: map[string]counts{"a": {3, 3, 3, 0}, "b": {2, 3, 2, 0}, "c": {1, 3, 1, 0}},
		},
		{
			Name:   "a failure ends it",
			Tree:   nd("NonblockingSequence", "seq", nil, sc("a", "RF"), sc("b", "R")),
			Want:   "RF",
			Counts: map[string]counts{"b": {1, 1, 0, 1}},
		},
	})
}

func TestPersistentSequence(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "resumes at the index on the blackboard",
			Tree:   nd("PersistentSequence", "seq", kv{"current_child_idx": "{idx}"}, sc("a", "S"), sc("b", "S"), sc("c", "S")),
			BB:     kv{"idx": 2},
			Want:   "S",
			Counts: map[string]counts{"a": {}, "b": {}, "c": {1, 1, 1, 0}},
		},
		{
			// The index outlives the node: after the guard halts the
			// sequence in b, it resumes in b, not at a.
			Name: "the index survives a halt",
			Tree: nd("Priority", "root", nil, tl("guard", "FSF"),
				nd("PersistentSequence", "seq", kv{"current_child_idx": "{idx}"}, sc("a", "S"), sc("b", "R"))),
			BB:     kv{"idx": 0},
			Want:   "RSR",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {2, 2, 0, 1}},
		},
		{
			Name: "a missing index is ERROR",
			Tree: nd("PersistentSequence", "seq", kv{"current_child_idx": "{idx}"}, sc("a", "S")),
			Want: "E",
		},
	})
}
