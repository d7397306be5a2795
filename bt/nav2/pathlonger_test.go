package nav2

import (
	"testing"

	"github.com/botd-project/botd/bt"
)

// Nav2's test_path_longer_on_approach.cpp, the paths written to the
// blackboard as lists of [x, y].

func pathOf(n int, step, from float64) bt.Value {
	poses := make([]any, n)
	for i := range poses {
		poses[i] = []any{from + step*float64(i), 0.0}
	}
	return bt.ValueOf(poses)
}

func TestPathLongerOnApproach(t *testing.T) {
	// Success test: the first path ticks nothing.
	h := newHarness(t, nd("PathLongerOnApproach", "plo", kv{"path": "{path}", "prox_len": 5.0, "length_factor": 2.0},
		sc("child", "S")), withKeys("path"))
	path, _ := h.Tree.Slot("path")
	h.A.BB.Set(path, pathOf(10, 1.5, 0))
	if got := h.Run(1); got != "S" {
		t.Errorf("first path: %s", got)
	}
	if c := h.Counts("child"); c.Tick != 0 {
		t.Errorf("the child ran on the first path")
	}
	// Failure test: near the goal (the old path, 12 m, is within 20 m), a
	// replanned path to the same goal (15 m) longer than 1.0 times the old
	// one ticks the child, whose FAILURE is the node's.
	h = newHarness(t, nd("PathLongerOnApproach", "plo", kv{"path": "{path}", "prox_len": 20.0, "length_factor": 1.0},
		sc("child", "F")), withKeys("path"))
	path, _ = h.Tree.Slot("path")
	h.A.BB.Set(path, pathOf(5, 3, 3)) // 3 .. 15
	h.Run(1)
	h.A.BB.Set(path, pathOf(11, 1.5, 0)) // 0 .. 15
	if got := h.Run(1); got != "F" {
		t.Errorf("longer path on approach: %s, want F", got)
	}
	// The same path again is no update: SUCCESS without the child.
	if got := h.Run(1); got != "S" {
		t.Errorf("unchanged path: %s", got)
	}
	// A new goal (another last position) is a first path again.
	h.A.BB.Set(path, pathOf(5, 3, 4))
	h.Run(1)
	h.A.BB.Set(path, pathOf(3, 1, 16))
	if got := h.Run(1); got != "S" || h.Counts("child").Tick != 1 {
		t.Errorf("after a new goal: %s, child ticks %d", got, h.Counts("child").Tick)
	}
	// Not a path: ERROR.
	h.A.BB.Set(path, bt.StringValue("nope"))
	if got := h.Run(1); got != "E" {
		t.Errorf("a string path: %s", got)
	}
}
