package bt

import "testing"

// RoundRobin follows Nav2's RoundRobinNode as implemented: the current
// child is kept across activations and moves on after every completion;
// a failure moves on within the tick; failing every child ends with
// FAILURE and restarts at the first child; a halt restarts at the first
// child too.
func TestRoundRobin(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "one child per activation, in turn",
			tree:   nd("RoundRobin", "root", nil, sc("a", "S"), sc("b", "S"), sc("c", "S")),
			want:   "SSSS",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 1, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a F, b S. tick 2: c S. tick 3: a F, b S.
			name:   "failure moves on within the tick",
			tree:   nd("RoundRobin", "root", nil, sc("a", "F"), sc("b", "S"), sc("c", "S")),
			want:   "SSS",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 2, 2, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a, b, c fail: FAILURE, back to a. tick 2: a fails
			// again, b succeeds.
			name:   "every child fails, then it starts at the first",
			tree:   nd("RoundRobin", "root", nil, sc("a", "F"), sc("b", "F|S"), sc("c", "F")),
			want:   "FS",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 2, 2, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// A failure count of a running activation is kept: tick 1: a F,
			// b R. tick 2: b F, c F: every child failed once.
			name:   "failures add up across the ticks of an activation",
			tree:   nd("RoundRobin", "root", nil, sc("a", "F"), sc("b", "RF"), sc("c", "F")),
			want:   "RF",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 2, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			name:   "a running child is ticked again",
			tree:   nd("RoundRobin", "root", nil, sc("a", "RS"), sc("b", "S")),
			want:   "RSS",
			counts: map[string]counts{"a": {1, 2, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			name:   "error moves on",
			tree:   nd("RoundRobin", "root", nil, sc("a", "E"), sc("b", "S")),
			want:   "ES",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			// tick 1: a S. tick 2: b R. tick 3: guard runs, the RoundRobin
			// is halted (b too) and restarts at a. tick 4: a S.
			name: "a halt restarts at the first child",
			tree: nd("Priority", "root", nil,
				tl("guard", "FFRF"),
				nd("RoundRobin", "rr", nil, sc("a", "S"), sc("b", "R"), sc("c", "S"))),
			want: "SRRS",
			counts: map[string]counts{
				"rr": {3, 3, 2, 1}, "a": {2, 2, 2, 0}, "b": {1, 1, 0, 1}, "c": {},
			},
		},
	})
}
