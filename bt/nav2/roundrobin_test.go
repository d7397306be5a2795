package nav2

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
			Name:   "one child per activation, in turn",
			Tree:   nd("RoundRobin", "root", wrap, sc("a", "S"), sc("b", "S"), sc("c", "S")),
			Want:   "SSSS",
			Counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 1, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a F, b S. tick 2: c S. tick 3: a F, b S.
			Name:   "failure moves on within the tick",
			Tree:   nd("RoundRobin", "root", wrap, sc("a", "F"), sc("b", "S"), sc("c", "S")),
			Want:   "SSS",
			Counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 2, 2, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a, b, c fail: FAILURE, back to a. tick 2: a fails
			// again, b succeeds.
			Name:   "every child fails, then it starts at the first",
			Tree:   nd("RoundRobin", "root", wrap, sc("a", "F"), sc("b", "F|S"), sc("c", "F")),
			Want:   "FS",
			Counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 2, 2, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// A failure count of a running activation is kept: tick 1: a F,
			// b R. tick 2: b F, c F: every child failed once.
			Name:   "failures add up across the ticks of an activation",
			Tree:   nd("RoundRobin", "root", wrap, sc("a", "F"), sc("b", "RF"), sc("c", "F")),
			Want:   "RF",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 2, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			Name:   "a running child is ticked again",
			Tree:   nd("RoundRobin", "root", wrap, sc("a", "RS"), sc("b", "S")),
			Want:   "RSS",
			Counts: map[string]counts{"a": {1, 2, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			Name:   "error moves on",
			Tree:   nd("RoundRobin", "root", wrap, sc("a", "E"), sc("b", "S")),
			Want:   "ES",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			// tick 1: a S. tick 2: b R. tick 3: guard runs, the RoundRobin
			// is halted (b too) and restarts at a. tick 4: a S.
			Name: "a halt restarts at the first child",
			Tree: nd("Priority", "root", nil,
				tl("guard", "FFRF"),
				nd("RoundRobin", "rr", wrap, sc("a", "S"), sc("b", "R"), sc("c", "S"))),
			Want: "SRRS",
			Counts: map[string]counts{
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
			Name:   "all fail",
			Tree:   nd("RoundRobin", "root", nil, sc("a", "F"), sc("b", "F"), sc("c", "F")),
			Want:   "F",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a S. tick 2: b S. tick 3: c S at the end: FAILURE.
			// tick 4: back at a.
			Name:   "the end of the list is FAILURE",
			Tree:   nd("RoundRobin", "root", nil, sc("a", "S"), sc("b", "S"), sc("c", "S")),
			Want:   "SSFS",
			Counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 1, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// tick 1: a F, b F, c F within the tick: no wrapping to a.
			Name:   "failures do not wrap",
			Tree:   nd("RoundRobin", "root", nil, sc("a", "F|S"), sc("b", "F"), sc("c", "F")),
			Want:   "FS",
			Counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {1, 1, 1, 0}},
		},
	})
}
