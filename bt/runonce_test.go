package bt

import "testing"

func TestRunOnce(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "success is remembered",
			tree:   nd("RunOnce", "once", nil, sc("child", "S|F")),
			want:   "SSS",
			counts: map[string]counts{"once": {3, 3, 3, 0}, "child": {1, 1, 1, 0}},
		},
		{
			name:   "failure is remembered",
			tree:   nd("RunOnce", "once", nil, sc("child", "RF|S")),
			want:   "RFFF",
			counts: map[string]counts{"child": {1, 2, 1, 0}},
		},
		{
			name:   "error is returned but not remembered",
			tree:   nd("RunOnce", "once", nil, sc("child", "E|S|F")),
			want:   "ESS",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			// The child is halted at tick 2; it has not completed, so it
			// runs again when the RunOnce is next reached.
			name: "a halted run does not count",
			tree: nd("Priority", "root", nil,
				tl("guard", "FRF"),
				nd("RunOnce", "once", nil, sc("child", "R|S"))),
			want:   "RRSS",
			counts: map[string]counts{"child": {2, 2, 1, 1}},
		},
	})
}

func TestRunOncePerAgentAndReset(t *testing.T) {
	tree := compileTree(t, nd("RunOnce", "once", nil, sc("child", "S|F")))
	h0, h1 := harnessFor(t, tree, 0), harnessFor(t, tree, 1)
	h0.run(2)
	if got := h1.run(2); got != "SS" {
		t.Errorf("agent 1: %s, want SS", got)
	}
	if got := h1.calls("child"); got.tick != 1 {
		t.Errorf("agent 1's child: %v, want its own single run", got)
	}
	h0.a.Reset(h0.now)
	// After Reset the child runs again; its own script memory was reset
	// too, so it succeeds as on its first activation.
	if got := h0.run(2); got != "SS" {
		t.Errorf("agent 0 after Reset: %s, want SS", got)
	}
	if got := h0.calls("child"); got.tick != 2 {
		t.Errorf("agent 0's child after Reset: %v, want 2 runs in all", got)
	}
}
