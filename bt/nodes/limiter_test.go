package nodes

import "testing"

func TestLimiter(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// The Limiter closes and reopens every tick; its count is not
			// reset.
			Name:   "count is not reset when it reopens",
			Tree:   nd("Limiter", "lim", kv{"max": 2}, sc("child", "S")),
			Want:   "SSFF",
			Counts: map[string]counts{"lim": {4, 4, 4, 0}, "child": {2, 2, 2, 0}},
		},
		{
			Name:   "failures count",
			Tree:   nd("Limiter", "lim", kv{"max": 2}, sc("child", "F|S")),
			Want:   "FSF",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			Name:   "running child counts once, when it completes",
			Tree:   nd("Limiter", "lim", kv{"max": 1}, sc("child", "RRS")),
			Want:   "RRSF",
			Counts: map[string]counts{"child": {1, 3, 1, 0}},
		},
		{
			// Pinned: ERROR is not counted (like RunOnce, which does not
			// remember it).
			Name:   "error is not counted",
			Tree:   nd("Limiter", "lim", kv{"max": 1}, sc("child", "E|S")),
			Want:   "ESF",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			Name:   "max 0 never ticks the child",
			Tree:   nd("Limiter", "lim", kv{"max": 0}, sc("child", "S")),
			Want:   "FF",
			Counts: map[string]counts{"child": {}},
		},
		{
			// Inside a Repeater, the Limiter is closed and reopened many
			// times: the count holds across activations.
			Name:   "across reopens inside a repeater",
			Tree:   nd("RepeatUntilFailure", "rep", nil, nd("Limiter", "lim", kv{"maxLoop": 3}, sc("child", "S"))),
			Want:   "RRRS",
			Counts: map[string]counts{"lim": {4, 4, 4, 0}, "child": {3, 3, 3, 0}},
		},
	})
}

func TestLimiterPerAgentAndReset(t *testing.T) {
	tree := compileTree(t, nd("Limiter", "lim", kv{"max": 1}, sc("child", "S")))
	h0, h1 := harnessFor(t, tree, 0), harnessFor(t, tree, 1)
	if got := h0.Run(2); got != "SF" {
		t.Errorf("agent 0: %s, want SF", got)
	}
	if got := h1.Run(2); got != "SF" {
		t.Errorf("agent 1 (its own count): %s, want SF", got)
	}
	h0.A.Reset(h0.Now)
	if got := h0.Run(2); got != "SF" {
		t.Errorf("agent 0 after Reset: %s, want SF", got)
	}
}

func TestLimiterNeedsMax(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Limiter", "", nil, sc("a", "S"))))
	wantProblems(t, ps, "/trees/main/params/max", `missing required parameter "max"`)
}
