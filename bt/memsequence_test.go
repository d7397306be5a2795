package bt

import "testing"

func TestMemSequence(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name: "resumes at the running child",
			tree: nd("MemSequence", "root", nil, sc("a", "S"), sc("b", "RRS"), sc("c", "S")),
			want: "RRS",
			counts: map[string]counts{
				"root": {1, 3, 1, 0}, "a": {1, 1, 1, 0}, "b": {1, 3, 1, 0}, "c": {1, 1, 1, 0},
			},
		},
		{
			name:   "failure of the running child",
			tree:   nd("MemSequence", "root", nil, sc("a", "S"), sc("b", "RF"), sc("c", "S")),
			want:   "RF",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 2, 1, 0}, "c": {}},
		},
		{
			name:   "error stops",
			tree:   nd("MemSequence", "root", nil, sc("a", "S"), sc("b", "E"), sc("c", "S")),
			want:   "E",
			counts: map[string]counts{"c": {}},
		},
		{
			// A completed earlier child is not re-evaluated while a later
			// one runs, even though it would now fail.
			name:   "does not re-tick completed children",
			tree:   nd("MemSequence", "root", nil, tl("a", "SF"), sc("b", "RRS")),
			want:   "RRS",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 3, 1, 0}},
		},
		{
			name:   "resets to the first child when it reopens after completing",
			tree:   nd("MemSequence", "root", nil, sc("a", "S"), sc("b", "RF")),
			want:   "RFRF",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 4, 2, 0}},
		},
		{
			// guard runs at tick 2, so the MemSequence is unreached and
			// halted with its running child; when it reopens at tick 3 it
			// starts again at a.
			name: "resets to the first child when it reopens after a halt",
			tree: nd("Priority", "root", nil,
				tl("guard", "FRF"),
				nd("MemSequence", "mem", nil, sc("a", "S"), sc("b", "R"))),
			want: "RRR",
			counts: map[string]counts{
				"mem": {2, 2, 0, 1}, "a": {2, 2, 2, 0}, "b": {2, 2, 0, 1},
			},
		},
	})
}

func TestMemPriority(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name: "resumes at the running child",
			tree: nd("MemPriority", "root", nil, sc("a", "F"), sc("b", "RRS"), sc("c", "S")),
			want: "RRS",
			counts: map[string]counts{
				"root": {1, 3, 1, 0}, "a": {1, 1, 1, 0}, "b": {1, 3, 1, 0}, "c": {},
			},
		},
		{
			// a would succeed from tick 2 on, but it already failed in this
			// activation and is not ticked again.
			name:   "does not re-tick failed children",
			tree:   nd("MemPriority", "root", nil, tl("a", "FS"), sc("b", "RRF"), sc("c", "S")),
			want:   "RRS",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 3, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			name:   "all fail",
			tree:   nd("MemPriority", "root", nil, sc("a", "F"), sc("b", "RF")),
			want:   "RF",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 2, 1, 0}},
		},
		{
			name:   "error stops",
			tree:   nd("MemPriority", "root", nil, sc("a", "E"), sc("b", "S")),
			want:   "E",
			counts: map[string]counts{"b": {}},
		},
		{
			name:   "resets to the first child when it reopens",
			tree:   nd("MemPriority", "root", nil, sc("a", "F"), sc("b", "RS")),
			want:   "RSRS",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 4, 2, 0}},
		},
		{
			name:   "MemFallback alias",
			tree:   nd("MemFallback", "root", nil, sc("a", "F"), sc("b", "S")),
			want:   "S",
			counts: map[string]counts{"b": {1, 1, 1, 0}},
		},
		{
			// BT.CPP's Fallback resumes at its running child, as MemPriority.
			name:   "Fallback alias",
			tree:   nd("Fallback", "root", nil, tl("a", "FS"), sc("b", "RS")),
			want:   "RS",
			counts: map[string]counts{"a": {1, 1, 1, 0}},
		},
		{
			name:   "FallbackStar alias",
			tree:   nd("FallbackStar", "root", nil, sc("a", "F"), sc("b", "S")),
			want:   "S",
			counts: map[string]counts{"b": {1, 1, 1, 0}},
		},
	})
}
