package bt

import "testing"

// RoundRobin follows Nav2's RoundRobinNode as implemented: the current
// child is kept across activations and moves on after every completion;
// a failure moves on within the tick; failing every child ends with
// FAILURE and restarts at the first child; a halt restarts at the first
// child too. These cases wrap around (wrap_around="true", as Nav2's own
// test fixture sets it).
func TestRoundRobin(t *testing.T) {
	wrap := kv{"wrap_around": true}
	runTickCases(t, []tickCase{
		{
			name:   "one child per activation, in turn",
			tree:   nd("RoundRobin", "root", wrap, sc("a", "S"), sc("b", "S"), sc("c", "S")),
			want:   "SSSS",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 1, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a F, b S. tick 2: c S. tick 3: a F, b S.
			name:   "failure moves on within the tick",
			tree:   nd("RoundRobin", "root", wrap, sc("a", "F"), sc("b", "S"), sc("c", "S")),
			want:   "SSS",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 2, 2, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a, b, c fail: FAILURE, back to a. tick 2: a fails
			// again, b succeeds.
			name:   "every child fails, then it starts at the first",
			tree:   nd("RoundRobin", "root", wrap, sc("a", "F"), sc("b", "F|S"), sc("c", "F")),
			want:   "FS",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 2, 2, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// A failure count of a running activation is kept: tick 1: a F,
			// b R. tick 2: b F, c F: every child failed once.
			name:   "failures add up across the ticks of an activation",
			tree:   nd("RoundRobin", "root", wrap, sc("a", "F"), sc("b", "RF"), sc("c", "F")),
			want:   "RF",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 2, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			name:   "a running child is ticked again",
			tree:   nd("RoundRobin", "root", wrap, sc("a", "RS"), sc("b", "S")),
			want:   "RSS",
			counts: map[string]counts{"a": {1, 2, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			name:   "error moves on",
			tree:   nd("RoundRobin", "root", wrap, sc("a", "E"), sc("b", "S")),
			want:   "ES",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			// tick 1: a S. tick 2: b R. tick 3: guard runs, the RoundRobin
			// is halted (b too) and restarts at a. tick 4: a S.
			name: "a halt restarts at the first child",
			tree: nd("Priority", "root", nil,
				tl("guard", "FFRF"),
				nd("RoundRobin", "rr", wrap, sc("a", "S"), sc("b", "R"), sc("c", "S"))),
			want: "SRRS",
			counts: map[string]counts{
				"rr": {3, 3, 2, 1}, "a": {2, 2, 2, 0}, "b": {1, 1, 0, 1}, "c": {},
			},
		},
	})
}

// Without wrap_around (Nav2's default, and how its default trees use
// RoundRobin), the node gives up when it has been through its last child:
// FAILURE, and the next activation starts at the first child again. Nav2
// returns FAILURE even when that last child succeeded.
func TestRoundRobinNoWrap(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// Nav2 test_wrap_around_disabled: three failures, FAILURE.
			name:   "all fail",
			tree:   nd("RoundRobin", "root", nil, sc("a", "F"), sc("b", "F"), sc("c", "F")),
			want:   "F",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a S. tick 2: b S. tick 3: c S at the end: FAILURE.
			// tick 4: back at a.
			name:   "the end of the list is FAILURE",
			tree:   nd("RoundRobin", "root", nil, sc("a", "S"), sc("b", "S"), sc("c", "S")),
			want:   "SSFS",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 1, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a F, b F, c F within the tick: no wrapping to a.
			name:   "failures do not wrap",
			tree:   nd("RoundRobin", "root", nil, sc("a", "F|S"), sc("b", "F"), sc("c", "F")),
			want:   "FS",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 1, 1, 0}},
		},
	})
}
