package bt

import "testing"

func TestSequence(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name: "all succeed",
			tree: nd("Sequence", "root", nil, sc("a", "S"), sc("b", "S")),
			want: "S",
			counts: map[string]counts{
				"root": {1, 1, 1, 0}, "a": {1, 1, 1, 0}, "b": {1, 1, 1, 0},
			},
		},
		{
			name:   "first failure stops",
			tree:   nd("Sequence", "root", nil, sc("a", "F"), sc("b", "S")),
			want:   "F",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {}},
		},
		{
			name:   "error passes through and stops",
			tree:   nd("Sequence", "root", nil, sc("a", "E"), sc("b", "S")),
			want:   "E",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {}},
		},
		{
			// Reactive: every tick starts again at the first child, which
			// is reopened each time; the running child stays open.
			name: "restarts at the first child every tick",
			tree: nd("Sequence", "root", nil, sc("a", "S"), sc("b", "RRS"), sc("c", "S")),
			want: "RRS",
			counts: map[string]counts{
				"root": {1, 3, 1, 0}, "a": {3, 3, 3, 0}, "b": {1, 3, 1, 0}, "c": {1, 1, 1, 0},
			},
		},
		{
			// a fails while b runs: b is halted by the close rule.
			name: "earlier child fails while a later one runs",
			tree: nd("Sequence", "root", nil, tl("a", "SSF"), sc("b", "R")),
			want: "RRF",
			counts: map[string]counts{
				"a": {3, 3, 3, 0}, "b": {1, 2, 0, 1},
			},
		},
		{
			// a turns RUNNING while b runs: b is not reached and is halted
			// by the unreached-node rule.
			name: "earlier child runs while a later one runs",
			tree: nd("Sequence", "root", nil, tl("a", "SR"), sc("b", "R")),
			want: "RRR",
			counts: map[string]counts{
				"a": {2, 3, 1, 0}, "b": {1, 1, 0, 1},
			},
		},
		{
			name:   "reopens after completing",
			tree:   nd("Sequence", "root", nil, sc("a", "S|F"), sc("b", "S")),
			want:   "SFF",
			counts: map[string]counts{"root": {3, 3, 3, 0}, "a": {3, 3, 3, 0}, "b": {1, 1, 1, 0}},
		},
		{
			name:   "ReactiveSequence alias",
			tree:   nd("ReactiveSequence", "root", nil, sc("a", "S"), sc("b", "RF")),
			want:   "RF",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 2, 1, 0}},
		},
	})
}
