package bt

import "testing"

func TestRepeater(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// One completion per tick: the child is reopened on the next.
			name:   "count successes",
			tree:   nd("Repeater", "rep", kv{"count": 3}, sc("child", "S")),
			want:   "RRS",
			counts: map[string]counts{"rep": {1, 3, 1, 0}, "child": {3, 3, 3, 0}},
		},
		{
			name:   "failures count too",
			tree:   nd("Repeater", "rep", kv{"count": 2}, sc("child", "F|S")),
			want:   "RS",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			name:   "running child",
			tree:   nd("Repeater", "rep", kv{"count": 2}, sc("child", "RS")),
			want:   "RRRS",
			counts: map[string]counts{"child": {2, 4, 2, 0}},
		},
		{
			name:   "forever",
			tree:   nd("Repeater", "rep", kv{"count": -1}, sc("child", "S")),
			want:   "RRRRRRRRRR",
			counts: map[string]counts{"child": {10, 10, 10, 0}},
		},
		{
			name:   "forever by default",
			tree:   nd("Repeater", "rep", nil, sc("child", "F")),
			want:   "RRRRR",
			counts: map[string]counts{"child": {5, 5, 5, 0}},
		},
		{
			name:   "count 0 succeeds without ticking the child",
			tree:   nd("Repeater", "rep", kv{"count": 0}, sc("child", "S")),
			want:   "SS",
			counts: map[string]counts{"child": {}},
		},
		{
			name:   "error passes through",
			tree:   nd("Repeater", "rep", kv{"count": 5}, sc("child", "S|E")),
			want:   "RE",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			// The count restarts when the Repeater reopens.
			name:   "count resets on reopen",
			tree:   nd("Repeater", "rep", kv{"count": 2}, sc("child", "S")),
			want:   "RSRS",
			counts: map[string]counts{"rep": {2, 4, 2, 0}, "child": {4, 4, 4, 0}},
		},
	})
}

func TestRepeatUntilFailure(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "child failure is success",
			tree:   nd("RepeatUntilFailure", "rep", nil, sc("child", "F")),
			want:   "S",
			counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			name:   "successes until failure",
			tree:   nd("RepeatUntilFailure", "rep", nil, sc("child", "S|S|F")),
			want:   "RRS",
			counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			name:   "count successes",
			tree:   nd("RepeatUntilFailure", "rep", kv{"count": 2}, sc("child", "S")),
			want:   "RS",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			name:   "running and error pass through",
			tree:   nd("RepeatUntilFailure", "rep", nil, sc("child", "RS|E")),
			want:   "RRE",
			counts: map[string]counts{"child": {2, 3, 2, 0}},
		},
	})
}

func TestRepeatUntilSuccess(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "child success is success",
			tree:   nd("RepeatUntilSuccess", "rep", nil, sc("child", "S")),
			want:   "S",
			counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			name:   "failures until success",
			tree:   nd("RepeatUntilSuccess", "rep", nil, sc("child", "F|F|S")),
			want:   "RRS",
			counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			// One completion per tick: three failures take three ticks.
			name:   "count failures",
			tree:   nd("RepeatUntilSuccess", "rep", kv{"count": 3}, sc("child", "F")),
			want:   "RRF",
			counts: map[string]counts{"rep": {1, 3, 1, 0}, "child": {3, 3, 3, 0}},
		},
		{
			name:   "running child",
			tree:   nd("RepeatUntilSuccess", "rep", kv{"count": 2}, sc("child", "RF")),
			want:   "RRRF",
			counts: map[string]counts{"child": {2, 4, 2, 0}},
		},
		{
			name:   "error passes through",
			tree:   nd("RepeatUntilSuccess", "rep", nil, sc("child", "E")),
			want:   "E",
			counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			name:   "Retry alias",
			tree:   nd("Retry", "rep", kv{"count": 1}, sc("child", "F")),
			want:   "F",
			counts: map[string]counts{"child": {1, 1, 1, 0}},
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
