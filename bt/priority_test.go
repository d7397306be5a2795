package bt

import "testing"

func TestPriority(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "first success stops",
			tree:   nd("Priority", "root", nil, sc("a", "S"), sc("b", "S")),
			want:   "S",
			counts: map[string]counts{"root": {1, 1, 1, 0}, "a": {1, 1, 1, 0}, "b": {}},
		},
		{
			name:   "all fail",
			tree:   nd("Priority", "root", nil, sc("a", "F"), sc("b", "F"), sc("c", "F")),
			want:   "F",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			name:   "error passes through and stops",
			tree:   nd("Priority", "root", nil, sc("a", "E"), sc("b", "S")),
			want:   "E",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {}},
		},
		{
			name:   "restarts at the first child every tick",
			tree:   nd("Priority", "root", nil, sc("a", "F"), sc("b", "RRS")),
			want:   "RRS",
			counts: map[string]counts{"a": {3, 3, 3, 0}, "b": {1, 3, 1, 0}},
		},
		{
			// a succeeds while b runs: the root closes and the close rule
			// halts b.
			name:   "higher priority succeeds while a lower one runs",
			tree:   nd("Priority", "root", nil, tl("a", "FFS"), sc("b", "R")),
			want:   "RRS",
			counts: map[string]counts{"a": {3, 3, 3, 0}, "b": {1, 2, 0, 1}},
		},
		{
			// a starts running while b runs: b is unreached and halted.
			name:   "higher priority starts running while a lower one runs",
			tree:   nd("Priority", "root", nil, tl("a", "FFR"), sc("b", "R")),
			want:   "RRRR",
			counts: map[string]counts{"a": {3, 4, 2, 0}, "b": {1, 2, 0, 1}},
		},
		{
			name:   "Selector alias, succeeding",
			tree:   nd("Selector", "root", nil, sc("a", "F"), sc("b", "S")),
			want:   "S",
			counts: map[string]counts{"b": {1, 1, 1, 0}},
		},
		{
			name:   "Selector alias",
			tree:   nd("Selector", "root", nil, sc("a", "F"), sc("b", "F")),
			want:   "F",
			counts: map[string]counts{"b": {1, 1, 1, 0}},
		},
		{
			name:   "ReactiveFallback alias",
			tree:   nd("ReactiveFallback", "root", nil, tl("a", "FS"), sc("b", "R")),
			want:   "RS",
			counts: map[string]counts{"b": {1, 1, 0, 1}},
		},
	})
}
