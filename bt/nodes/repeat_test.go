package nodes

import "testing"

func TestRepeater(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// One completion per tick: the child is reopened on the next.
			Name:   "count successes",
			Tree:   nd("Repeater", "rep", kv{"count": 3}, sc("child", "S")),
			Want:   "RRS",
			Counts: map[string]counts{"rep": {1, 3, 1, 0}, "child": {3, 3, 3, 0}},
		},
		{
			Name:   "failures count too",
			Tree:   nd("Repeater", "rep", kv{"count": 2}, sc("child", "F|S")),
			Want:   "RS",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			Name:   "running child",
			Tree:   nd("Repeater", "rep", kv{"count": 2}, sc("child", "RS")),
			Want:   "RRRS",
			Counts: map[string]counts{"child": {2, 4, 2, 0}},
		},
		{
			Name:   "forever",
			Tree:   nd("Repeater", "rep", kv{"count": -1}, sc("child", "S")),
			Want:   "RRRRRRRRRR",
			Counts: map[string]counts{"child": {10, 10, 10, 0}},
		},
		{
			Name:   "forever by default",
			Tree:   nd("Repeater", "rep", nil, sc("child", "F")),
			Want:   "RRRRR",
			Counts: map[string]counts{"child": {5, 5, 5, 0}},
		},
		{
			Name:   "count 0 succeeds without ticking the child",
			Tree:   nd("Repeater", "rep", kv{"count": 0}, sc("child", "S")),
			Want:   "SS",
			Counts: map[string]counts{"child": {}},
		},
		{
			Name:   "error passes through",
			Tree:   nd("Repeater", "rep", kv{"count": 5}, sc("child", "S|E")),
			Want:   "RE",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			// The count restarts when the Repeater reopens.
			Name:   "count resets on reopen",
			Tree:   nd("Repeater", "rep", kv{"count": 2}, sc("child", "S")),
			Want:   "RSRS",
			Counts: map[string]counts{"rep": {2, 4, 2, 0}, "child": {4, 4, 4, 0}},
		},
	})
}

func TestRepeatUntilFailure(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "child failure is success",
			Tree:   nd("RepeatUntilFailure", "rep", nil, sc("child", "F")),
			Want:   "S",
			Counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			Name:   "successes until failure",
			Tree:   nd("RepeatUntilFailure", "rep", nil, sc("child", "S|S|F")),
			Want:   "RRS",
			Counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			Name:   "count successes",
			Tree:   nd("RepeatUntilFailure", "rep", kv{"count": 2}, sc("child", "S")),
			Want:   "RS",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			Name:   "running and error pass through",
			Tree:   nd("RepeatUntilFailure", "rep", nil, sc("child", "RS|E")),
			Want:   "RRE",
			Counts: map[string]counts{"child": {2, 3, 2, 0}},
		},
	})
}

func TestRepeatUntilSuccess(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "child success is success",
			Tree:   nd("RepeatUntilSuccess", "rep", nil, sc("child", "S")),
			Want:   "S",
			Counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			Name:   "failures until success",
			Tree:   nd("RepeatUntilSuccess", "rep", nil, sc("child", "F|F|S")),
			Want:   "RRS",
			Counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			// One completion per tick: three failures take three ticks.
			Name:   "count failures",
			Tree:   nd("RepeatUntilSuccess", "rep", kv{"count": 3}, sc("child", "F")),
			Want:   "RRF",
			Counts: map[string]counts{"rep": {1, 3, 1, 0}, "child": {3, 3, 3, 0}},
		},
		{
			Name:   "running child",
			Tree:   nd("RepeatUntilSuccess", "rep", kv{"count": 2}, sc("child", "RF")),
			Want:   "RRRF",
			Counts: map[string]counts{"child": {2, 4, 2, 0}},
		},
		{
			Name:   "error passes through",
			Tree:   nd("RepeatUntilSuccess", "rep", nil, sc("child", "E")),
			Want:   "E",
			Counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			Name:   "Retry alias",
			Tree:   nd("Retry", "rep", kv{"count": 1}, sc("child", "F")),
			Want:   "F",
			Counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
	})
}

func TestRepeatCountProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Repeater", "", kv{"count": 1.5}, sc("a", "S")),
		nd("Repeater", "", kv{"count": -2}, sc("a", "S")),
		nd("Repeater", "", kv{"count": "{n}"}, sc("a", "S")))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/count", "want a whole number, got 1.5",
		"/trees/main/children/1/params/count", "-2 is below the limit -1",
		"/trees/main/children/2/params/count", "want a whole number")
}
