package bt

import "testing"

// Nav2's NonblockingSequence and PersistentSequence
// (test_nonblocking_sequence.cpp, test_persistent_sequence.cpp, shortly).
func TestNonblockingSequence(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// Every child is ticked every tick, succeeded ones too.
			name:   "all ticked",
			tree:   nd("NonblockingSequence", "seq", nil, sc("a", "S"), sc("b", "RS|S"), sc("c", "RRS")),
			want:   "RRS",
			counts: map[string]counts{"a": {3, 3, 3, 0}, "b": {2, 3, 2, 0}, "c": {1, 3, 1, 0}},
		},
		{
			name:   "a failure ends it",
			tree:   nd("NonblockingSequence", "seq", nil, sc("a", "RF"), sc("b", "R")),
			want:   "RF",
			counts: map[string]counts{"b": {1, 1, 0, 1}},
		},
	})
}

func TestPersistentSequence(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "resumes at the index on the blackboard",
			tree:   nd("PersistentSequence", "seq", kv{"current_child_idx": "{idx}"}, sc("a", "S"), sc("b", "S"), sc("c", "S")),
			bb:     kv{"idx": 2},
			want:   "S",
			counts: map[string]counts{"a": {}, "b": {}, "c": {1, 1, 1, 0}},
		},
		{
			// The index outlives the node: after the guard halts the
			// sequence in b, it resumes in b, not at a.
			name: "the index survives a halt",
			tree: nd("Priority", "root", nil, tl("guard", "FSF"),
				nd("PersistentSequence", "seq", kv{"current_child_idx": "{idx}"}, sc("a", "S"), sc("b", "R"))),
			bb:     kv{"idx": 0},
			want:   "RSR",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {2, 2, 0, 1}},
		},
		{
			name: "a missing index is ERROR",
			tree: nd("PersistentSequence", "seq", kv{"current_child_idx": "{idx}"}, sc("a", "S")),
			want: "E",
		},
	})
}
