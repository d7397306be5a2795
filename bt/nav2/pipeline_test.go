package nav2

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
			Name: "ticks earlier children again",
			Tree: nd("PipelineSequence", "root", nil, sc("a", "RS"), sc("b", "RS"), sc("c", "RS")),
			Want: "RRRS",
			Counts: map[string]counts{
				"root": {1, 4, 1, 0}, "a": {2, 4, 2, 0}, "b": {2, 3, 1, 1}, "c": {1, 2, 1, 0},
			},
		},
		{
			Name:   "all succeed at once",
			Tree:   nd("PipelineSequence", "root", nil, sc("a", "S"), sc("b", "S")),
			Want:   "S",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			Name:   "failure fails",
			Tree:   nd("PipelineSequence", "root", nil, sc("a", "S"), sc("b", "RF"), sc("c", "S")),
			Want:   "RF",
			Counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 2, 1, 0}, "c": {}},
		},
		{
			Name:   "an earlier child failing halts the later running one",
			Tree:   nd("PipelineSequence", "root", nil, tl("a", "SSF"), sc("b", "R")),
			Want:   "RRF",
			Counts: map[string]counts{"a": {3, 3, 3, 0}, "b": {1, 2, 0, 1}},
		},
		{
			// The first child runs; nothing after it is ticked.
			Name:   "stops at the furthest running child",
			Tree:   nd("PipelineSequence", "root", nil, sc("a", "RRS"), sc("b", "S")),
			Want:   "RRS",
			Counts: map[string]counts{"a": {1, 3, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			Name:   "error passes through",
			Tree:   nd("PipelineSequence", "root", nil, sc("a", "S"), sc("b", "E"), sc("c", "S")),
			Want:   "E",
			Counts: map[string]counts{"c": {}},
		},
		{
			// After completing, the next activation starts from the first
			// child again: b's RUNNING stops the tick once more.
			Name:   "reopening forgets the furthest child",
			Tree:   nd("PipelineSequence", "root", nil, sc("a", "S"), sc("b", "RF")),
			Want:   "RFRF",
			Counts: map[string]counts{"a": {4, 4, 4, 0}, "b": {2, 4, 2, 0}},
		},
	})
}
