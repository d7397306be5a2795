package bt

import "testing"

// PipelineSequence follows Nav2: children that already succeeded are
// ticked again every tick, and a child before the furthest one that
// returns RUNNING does not stop the tick.
func TestPipelineSequence(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// tick 1: a R. tick 2: a S, b R. tick 3: a R (reopened, before
			// the furthest), b S, c R. tick 4: a S, b R (reopened), c S:
			// SUCCESS, and the close rule halts b.
			name: "ticks earlier children again",
			tree: nd("PipelineSequence", "root", nil, sc("a", "RS"), sc("b", "RS"), sc("c", "RS")),
			want: "RRRS",
			counts: map[string]counts{
				"root": {1, 4, 1, 0}, "a": {2, 4, 2, 0}, "b": {2, 3, 1, 1}, "c": {1, 2, 1, 0},
			},
		},
		{
			name:   "all succeed at once",
			tree:   nd("PipelineSequence", "root", nil, sc("a", "S"), sc("b", "S")),
			want:   "S",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			name:   "failure fails",
			tree:   nd("PipelineSequence", "root", nil, sc("a", "S"), sc("b", "RF"), sc("c", "S")),
			want:   "RF",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 2, 1, 0}, "c": {}},
		},
		{
			name:   "an earlier child failing halts the later running one",
			tree:   nd("PipelineSequence", "root", nil, tl("a", "SSF"), sc("b", "R")),
			want:   "RRF",
			counts: map[string]counts{"a": {3, 3, 3, 0}, "b": {1, 2, 0, 1}},
		},
		{
			// The first child runs; nothing after it is ticked.
			name:   "stops at the furthest running child",
			tree:   nd("PipelineSequence", "root", nil, sc("a", "RRS"), sc("b", "S")),
			want:   "RRS",
			counts: map[string]counts{"a": {1, 3, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			name:   "error passes through",
			tree:   nd("PipelineSequence", "root", nil, sc("a", "S"), sc("b", "E"), sc("c", "S")),
			want:   "E",
			counts: map[string]counts{"c": {}},
		},
		{
			// After completing, the next activation starts from the first
			// child again: b's RUNNING stops the tick once more.
			name:   "reopening forgets the furthest child",
			tree:   nd("PipelineSequence", "root", nil, sc("a", "S"), sc("b", "RF")),
			want:   "RFRF",
			counts: map[string]counts{"a": {4, 4, 4, 0}, "b": {2, 4, 2, 0}},
		},
	})
}
