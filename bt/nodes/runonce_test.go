package nodes

import "testing"

func TestRunOnce(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "success is remembered",
			Tree:   nd("RunOnce", "once", nil, sc("child", "S|F")),
			Want:   "SSS",
			Counts: map[string]counts{"once": {3, 3, 3, 0}, "child": {1, 1, 1, 0}},
		},
		{
			Name:   "failure is remembered",
			Tree:   nd("RunOnce", "once", nil, sc("child", "RF|S")),
			Want:   "RFFF",
			Counts: map[string]counts{"child": {1, 2, 1, 0}},
		},
		{
			Name:   "error is returned but not remembered",
			Tree:   nd("RunOnce", "once", nil, sc("child", "E|S|F")),
			Want:   "ESS",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			// The child is halted at tick 2; it has not completed, so it
			// runs again when the RunOnce is next reached.
			Name: "a halted run does not count",
			Tree: nd("Priority", "root", nil,
				tl("guard", "FRF"),
				nd("RunOnce", "once", nil, sc("child", "R|S"))),
			Want:   "RRSS",
			Counts: map[string]counts{"child": {2, 2, 1, 1}},
		},
	})
}

func TestRunOncePerAgentAndReset(t *testing.T) {
	tree := compileTree(t, nd("RunOnce", "once", nil, sc("child", "S|F")))
	h0, h1 := harnessFor(t, tree, 0), harnessFor(t, tree, 1)
	h0.Run(2)
	if got := h1.Run(2); got != "SS" {
		t.Errorf("agent 1: %s, want SS", got)
	}
	if got := h1.Calls("child"); got.Tick != 1 {
		t.Errorf("agent 1's child: %v, want its own single run", got)
	}
	h0.A.Reset(h0.Now)
	// After Reset the child runs again; its own script memory was reset
	// too, so it succeeds as on its first activation.
	if got := h0.Run(2); got != "SS" {
		t.Errorf("agent 0 after Reset: %s, want SS", got)
	}
	if got := h0.Calls("child"); got.Tick != 2 {
		t.Errorf("agent 0's child after Reset: %v, want 2 runs in all", got)
	}
}
