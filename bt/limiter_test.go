package bt

import "testing"

func TestLimiter(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// The Limiter closes and reopens every tick; its count is not
			// reset.
			name:   "count is not reset when it reopens",
			tree:   nd("Limiter", "lim", kv{"max": 2}, sc("child", "S")),
			want:   "SSFF",
			counts: map[string]counts{"lim": {4, 4, 4, 0}, "child": {2, 2, 2, 0}},
		},
		{
			name:   "failures count",
			tree:   nd("Limiter", "lim", kv{"max": 2}, sc("child", "F|S")),
			want:   "FSF",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			name:   "running child counts once, when it completes",
			tree:   nd("Limiter", "lim", kv{"max": 1}, sc("child", "RRS")),
			want:   "RRSF",
			counts: map[string]counts{"child": {1, 3, 1, 0}},
		},
		{
			// Pinned: ERROR is not counted (like RunOnce, which does not
			// remember it).
			name:   "error is not counted",
			tree:   nd("Limiter", "lim", kv{"max": 1}, sc("child", "E|S")),
			want:   "ESF",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			name:   "max 0 never ticks the child",
			tree:   nd("Limiter", "lim", kv{"max": 0}, sc("child", "S")),
			want:   "FF",
			counts: map[string]counts{"child": {}},
		},
		{
			// Inside a Repeater, the Limiter is closed and reopened many
			// times: the count holds across activations.
			name:   "across reopens inside a repeater",
			tree:   nd("RepeatUntilFailure", "rep", nil, nd("Limiter", "lim", kv{"maxLoop": 3}, sc("child", "S"))),
			want:   "RRRS",
			counts: map[string]counts{"lim": {4, 4, 4, 0}, "child": {3, 3, 3, 0}},
		},
	})
}

func TestLimiterPerAgentAndReset(t *testing.T) {
	tree := compileTree(t, nd("Limiter", "lim", kv{"max": 1}, sc("child", "S")))
	h0, h1 := harnessFor(t, tree, 0), harnessFor(t, tree, 1)
	if got := h0.run(2); got != "SF" {
		t.Errorf("agent 0: %s, want SF", got)
	}
	if got := h1.run(2); got != "SF" {
		t.Errorf("agent 1 (its own count): %s, want SF", got)
	}
	h0.a.Reset(h0.now)
	if got := h0.run(2); got != "SF" {
		t.Errorf("agent 0 after Reset: %s, want SF", got)
	}
}

func TestLimiterNeedsMax(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Limiter", "", nil, sc("a", "S"))))
	wantProblems(t, ps, "/trees/main/params/max", `missing required parameter "max"`)
}
