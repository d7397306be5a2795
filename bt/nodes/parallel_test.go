package nodes

import (
	"fmt"
	"github.com/botd-project/botd/bt"
	"strings"
	"testing"
)

func TestParallel(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// Completed children are not ticked again in the activation.
			Name: "all must succeed by default",
			Tree: nd("Parallel", "root", nil, sc("a", "RS"), sc("b", "RRS"), sc("c", "S")),
			Want: "RRS",
			Counts: map[string]counts{
				"root": {1, 3, 1, 0}, "a": {1, 2, 1, 0}, "b": {1, 3, 1, 0}, "c": {1, 1, 1, 0},
			},
		},
		{
			Name:   "one failure fails by default and halts running children",
			Tree:   nd("Parallel", "root", nil, sc("a", "R"), sc("b", "RF"), sc("c", "R")),
			Want:   "RF",
			Counts: map[string]counts{"a": {1, 2, 0, 1}, "b": {1, 2, 1, 0}, "c": {1, 2, 0, 1}},
		},
		{
			Name:   "success threshold halts the children still running",
			Tree:   nd("Parallel", "root", kv{"success": 1, "failure": 2}, sc("a", "R"), sc("b", "RRS"), sc("c", "F")),
			Want:   "RRS",
			Counts: map[string]counts{"a": {1, 3, 0, 1}, "b": {1, 3, 1, 0}, "c": {1, 1, 1, 0}},
		},
		{
			// Completions from earlier ticks of the activation count.
			Name:   "failure threshold counts earlier completions",
			Tree:   nd("Parallel", "root", kv{"failure": 2}, sc("a", "F"), sc("b", "RF"), sc("c", "R")),
			Want:   "RF",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 2, 1, 0}, "c": {1, 2, 0, 1}},
		},
		{
			// Neither threshold can be reached any more once every child
			// has completed.
			Name:   "every child completed below both thresholds",
			Tree:   nd("Parallel", "root", kv{"success": 3, "failure": 3}, sc("a", "S"), sc("b", "F"), sc("c", "RS")),
			Want:   "RF",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}, "c": {1, 2, 1, 0}},
		},
		{
			Name:   "success is checked before failure",
			Tree:   nd("Parallel", "root", kv{"success": 1, "failure": 1}, sc("a", "F"), sc("b", "S")),
			Want:   "S",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			// ERROR returns at once: c is not ticked, a is halted.
			Name:   "error at once",
			Tree:   nd("Parallel", "root", kv{"failure": 3}, sc("a", "R"), sc("b", "RE"), sc("c", "R")),
			Want:   "RE",
			Counts: map[string]counts{"a": {1, 2, 0, 1}, "b": {1, 2, 1, 0}, "c": {1, 1, 0, 1}},
		},
		{
			Name:   "error beats a success threshold reached earlier in the tick",
			Tree:   nd("Parallel", "root", kv{"success": 1}, sc("a", "S"), sc("b", "E")),
			Want:   "E",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 1, 1, 0}},
		},
		{
			Name:   "-1 means all children",
			Tree:   nd("Parallel", "root", kv{"success": -1, "failure": -1}, sc("a", "F"), sc("b", "RF")),
			Want:   "RF",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {1, 2, 1, 0}},
		},
		{
			Name:   "threshold aliases",
			Tree:   nd("Parallel", "root", kv{"success_count": 1, "failure_threshold": 2}, sc("a", "F"), sc("b", "RS")),
			Want:   "RS",
			Counts: map[string]counts{"b": {1, 2, 1, 0}},
		},
		{
			// A new activation forgets the completions of the last one.
			Name:   "reopening ticks every child again",
			Tree:   nd("Parallel", "root", nil, sc("a", "S"), sc("b", "RS")),
			Want:   "RSRS",
			Counts: map[string]counts{"a": {2, 2, 2, 0}, "b": {2, 4, 2, 0}},
		},
	})
}

// TestParallelManyChildren crosses the 16-children words of the
// Parallel's memory: child k runs for k ticks and then succeeds.
func TestParallelManyChildren(t *testing.T) {
	const n = 40
	var kids []*bt.NodeDef
	for k := 0; k < n; k++ {
		kids = append(kids, sc(fmt.Sprintf("c%d", k), strings.Repeat("R", k)+"S"))
	}
	h := newHarness(t, nd("Parallel", "root", nil, kids...))
	want := strings.Repeat("R", n-1) + "S"
	if got := h.Run(n); got != want {
		t.Fatalf("root statuses %s, want %s", got, want)
	}
	for k := 0; k < n; k++ {
		name := fmt.Sprintf("c%d", k)
		if got, want := h.Counts(name), (counts{1, k + 1, 1, 0}); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	h.CheckProbe()
}

func TestParallelThresholdAboveChildren(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Parallel", "", kv{"success": 3, "failure": 4}, sc("a", "S"), sc("b", "S"))))
	wantProblems(t, ps,
		"/trees/main/params/success", "needs 3 successes but has only 2 children",
		"/trees/main/params/failure", "needs 4 failures but has only 2 children")
}
