package nodes

import (
	"fmt"
	"github.com/botd-project/botd/bt"
	"strings"
	"testing"
)

// randomKids returns n Scripted children c0..c(n-1) with one script.
func randomKids(n int, statuses string) []*bt.NodeDef {
	kids := make([]*bt.NodeDef, n)
	for i := range kids {
		kids[i] = sc(fmt.Sprintf("c%d", i), statuses)
	}
	return kids
}

// openOrder returns the names of the children c* in the order they were
// opened, e.g. "c2 c0 c1".
func openOrder(lines []string) string {
	var names []string
	for _, l := range only(lines, "open") {
		if name := strings.Fields(l)[0]; strings.HasPrefix(name, "c") {
			names = append(names, name)
		}
	}
	return strings.Join(names, " ")
}

// activationOrders runs n activations of a random composite whose
// children all complete at once and returns the order of each.
func activationOrders(h *harness, n int) []string {
	h.TB.Helper()
	out := make([]string, n)
	for i := range out {
		h.Rec.Take()
		if st := h.Tick(); st == bt.Running {
			h.TB.Fatalf("activation %d still running", i)
		}
		out[i] = openOrder(h.Rec.Take())
	}
	return out
}

func isPermutation(order string, n int) bool {
	seen := map[string]bool{}
	for _, f := range strings.Fields(order) {
		seen[f] = true
	}
	if len(seen) != n || len(strings.Fields(order)) != n {
		return false
	}
	for i := 0; i < n; i++ {
		if !seen[fmt.Sprintf("c%d", i)] {
			return false
		}
	}
	return true
}

func TestRandomSequenceEachChildOncePerActivation(t *testing.T) {
	// Every child runs for one tick and then succeeds: the node behaves as
	// a MemSequence over the drawn order and keeps that order until it
	// closes.
	h := newHarness(t, nd("RandomSequence", "root", nil, randomKids(4, "RS")...), withSeed(7))
	for act := 0; act < 3; act++ {
		h.Rec.Take()
		if got := h.Run(5); got != "RRRRS" {
			t.Fatalf("activation %d: root statuses %s, want RRRRS", act, got)
		}
		if order := openOrder(h.Rec.Take()); !isPermutation(order, 4) {
			t.Fatalf("activation %d: children opened in order %q, want each of c0..c3 once", act, order)
		}
	}
	for i := 0; i < 4; i++ {
		if got, want := h.Counts(fmt.Sprintf("c%d", i)), (counts{3, 6, 3, 0}); got != want {
			t.Errorf("c%d: %v, want %v", i, got, want)
		}
	}
	h.CheckProbe()
}

func TestRandomSequenceStopsAtFailure(t *testing.T) {
	h := newHarness(t, nd("RandomSequence", "root", nil, sc("c0", "S"), sc("c1", "F"), sc("c2", "S")), withSeed(3))
	for act := 0; act < 20; act++ {
		h.Rec.Take()
		if st := h.Tick(); st != bt.Failure {
			t.Fatalf("activation %d: %v, want FAILURE", act, st)
		}
		order := strings.Fields(openOrder(h.Rec.Take()))
		if len(order) == 0 || order[len(order)-1] != "c1" {
			t.Fatalf("activation %d: opened %v, want the failing c1 last", act, order)
		}
	}
}

func TestRandomPriority(t *testing.T) {
	h := newHarness(t, nd("RandomPriority", "root", nil, sc("c0", "F"), sc("c1", "RS"), sc("c2", "F")), withSeed(11))
	firsts := map[string]bool{}
	for act := 0; act < 30; act++ {
		h.Rec.Take()
		// c1 runs one tick, then succeeds; the failing children drawn
		// before it are ticked once, those after it never.
		if got := h.Run(2); got != "RS" {
			t.Fatalf("activation %d: root statuses %s, want RS", act, got)
		}
		order := strings.Fields(openOrder(h.Rec.Take()))
		if order[len(order)-1] != "c1" {
			t.Fatalf("activation %d: opened %v, want c1 last", act, order)
		}
		firsts[order[0]] = true
	}
	if len(firsts) != 3 {
		t.Errorf("over 30 activations the first child drawn was only %v", firsts)
	}
	if c := h.Counts("c1"); c.Open != 30 || c.Tick != 60 || c.Halt != 0 {
		t.Errorf("c1: %v, want 30 activations of 2 ticks", c)
	}
	h.CheckProbe()

	all := newHarness(t, nd("RandomSelector", "root", nil, randomKids(3, "F")...))
	if st := all.Tick(); st != bt.Failure {
		t.Errorf("all children fail: %v, want FAILURE", st)
	}
	for i := 0; i < 3; i++ {
		if got := all.Counts(fmt.Sprintf("c%d", i)); got != (counts{1, 1, 1, 0}) {
			t.Errorf("c%d: %v, want ticked once", i, got)
		}
	}
	alias := newHarness(t, nd("RandomFallback", "root", nil, randomKids(2, "S")...))
	if st := alias.Tick(); st != bt.Success {
		t.Errorf("RandomFallback: %v, want SUCCESS", st)
	}
}

func TestRandomDeterministic(t *testing.T) {
	def := func() *bt.NodeDef { return nd("RandomSequence", "root", nil, randomKids(5, "S")...) }
	orders := func(seed uint64, id int) []string {
		h := harnessFor(t, compileTree(t, def(), withSeed(seed)), id)
		return activationOrders(h, 12)
	}
	first := orders(42, 3)
	for _, o := range first {
		if !isPermutation(o, 5) {
			t.Fatalf("order %q is not a permutation of c0..c4", o)
		}
	}
	if again := orders(42, 3); strings.Join(again, "|") != strings.Join(first, "|") {
		t.Errorf("same seed and agent id, separate compiles:\n%v\n%v", first, again)
	}
	distinct := map[string]bool{}
	for _, o := range first {
		distinct[o] = true
	}
	if len(distinct) < 2 {
		t.Errorf("12 activations all drew %v: a new order must be drawn on every open", first)
	}

	// Two agents with the same id on one tree draw the same orders; other
	// ids and other seeds draw other streams.
	tree := compileTree(t, def(), withSeed(42))
	a1 := activationOrders(harnessFor(t, tree, 3), 12)
	a2 := activationOrders(harnessFor(t, tree, 3), 12)
	if strings.Join(a1, "|") != strings.Join(a2, "|") || strings.Join(a1, "|") != strings.Join(first, "|") {
		t.Errorf("agents with id 3 of one tree differ:\n%v\n%v", a1, a2)
	}
	if other := activationOrders(harnessFor(t, tree, 4), 12); strings.Join(other, "|") == strings.Join(a1, "|") {
		t.Errorf("agents 3 and 4 drew the same stream %v", other)
	}
	if other := orders(43, 3); strings.Join(other, "|") == strings.Join(first, "|") {
		t.Errorf("seeds 42 and 43 drew the same stream %v", other)
	}

	// Reset restarts the agent's stream.
	h := harnessFor(t, tree, 3)
	activationOrders(h, 5)
	h.A.Reset(h.Now)
	if again := activationOrders(h, 12); strings.Join(again, "|") != strings.Join(first, "|") {
		t.Errorf("after Reset:\n%v\nwant\n%v", again, first)
	}
}

func TestRandomWeights(t *testing.T) {
	firstCounts := func(weights []any, agents int) map[string]int {
		tree := compileTree(t, nd("RandomSequence", "root", kv{"weights": weights}, randomKids(len(weights), "S")...), withSeed(1))
		out := map[string]int{}
		for id := 0; id < agents; id++ {
			h := harnessFor(t, tree, id)
			for _, o := range activationOrders(h, 5) {
				out[strings.Fields(o)[0]]++
			}
		}
		return out
	}
	if got := firstCounts([]any{1000.0, 1.0, 1.0, 1.0}, 100); got["c0"] < 490 {
		t.Errorf("weights 1000:1:1:1, first child drawn: %v; want c0 nearly always", got)
	}
	if got := firstCounts([]any{1, 1, 1, 1000}, 100); got["c3"] < 490 {
		t.Errorf("weights 1:1:1:1000, first child drawn: %v; want c3 nearly always", got)
	}
	// Equal weights: each child comes first about a quarter of the time
	// (the stream is deterministic, so this cannot flake).
	for c, n := range firstCounts([]any{2, 2, 2, 2}, 400) {
		if n < 400 || n > 600 {
			t.Errorf("equal weights: %s first %d times of 2000, want about 500", c, n)
		}
	}
	// 3:1 between two children: the heavy one first about 75% of the time.
	if got := firstCounts([]any{3, 1}, 400); got["c0"] < 1400 || got["c0"] > 1600 {
		t.Errorf("weights 3:1: first child drawn %v, want c0 about 1500 of 2000", got)
	}
}

func TestRandomWeightProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("RandomSequence", "", kv{"weights": []any{1, 2, 3}}, randomKids(2, "S")...),
		nd("RandomPriority", "", kv{"weights": []any{0, 1}}, randomKids(2, "S")...),
		nd("RandomPriority", "", kv{"weights": []any{-1, 1}}, randomKids(2, "S")...),
		nd("RandomPriority", "", kv{"weights": "heavy"}, randomKids(2, "S")...),
	)))
	wantProblems(t, ps,
		"/trees/main/children/0/params/weights", "has 3 weights for 2 children",
		"/trees/main/children/1/params/weights", "weights must be positive",
		"/trees/main/children/2/params/weights", "element 0: -1 is below the limit 0",
		"/trees/main/children/3/params/weights", "want a list of numbers")
	for _, p := range ps {
		if strings.Contains(p.Message, "below the limit") && p.Code != bt.CodeLimit {
			t.Errorf("%s: code %s, want %s", p, p.Code, bt.CodeLimit)
		}
	}
}
