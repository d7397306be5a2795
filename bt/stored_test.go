package bt

import (
	"strings"
	"testing"
)

func storedEval(s *Spec) { s.Evaluation = StoredState }

// The seed's example: an agent smokes (a long action) unless it hears a
// noise. In stored-state evaluation the failed "investigate" branch is
// skipped on later ticks; its Monitor keeps watching and interrupts the
// smoke as soon as the noise is heard.
func TestStoredStateMonitorInterrupts(t *testing.T) {
	h := newHarness(t,
		nd("Priority", "root", nil,
			nd("Sequence", "investigate", nil,
				nd("Monitor", "mon", nil, tl("heard?", "FFFSF")),
				sc("go look", "RS")),
			sc("smoke", "R")),
		storedEval)

	if got := h.run(2); got != "RR" {
		t.Fatalf("ticks 1-2: %s, want RR", got)
	}
	if c := h.counts("investigate"); c.tick != 1 {
		t.Fatalf("investigate ticked %d times in two ticks; stored-state should skip it after it failed", c.tick)
	}
	// Tick 2 evaluated the registered monitor before the tree.
	if c := h.counts("heard?"); c.tick != 2 {
		t.Fatalf("monitor guard ticked %d times, want 2 (once per tick)", c.tick)
	}
	h.rec.take()
	h.tick() // tick 3: still quiet
	h.rec.take()
	if st := h.tick(); st != Running { // tick 4: noise
		t.Fatalf("tick 4: %v, want RUNNING (go look runs)", st)
	}
	ev := h.rec.take()
	want := []string{
		"heard? open", "heard? tick SUCCESS", "heard? close", // the guard fires
		"smoke halt", "root halt", // the tree is interrupted, deepest first
		"root open", "investigate open", "mon open", "heard? open", "heard? tick SUCCESS", "heard? close",
		"mon tick SUCCESS", "mon close", "go look open", "go look tick RUNNING", "investigate tick RUNNING", "root tick RUNNING",
	}
	if got := only(ev, "open", "tick", "close", "halt"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("tick 4 events:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if c := h.counts("smoke"); c.halt != 1 {
		t.Fatalf("smoke halted %d times, want 1", c.halt)
	}
	if st := h.tick(); st != Success {
		t.Fatalf("tick 5: %v, want SUCCESS", st)
	}
	h.checkProbe()
}

// Completed nodes keep their status until the root completes; then the
// next tick evaluates everything again.
func TestStoredStateClearsWhenRootCompletes(t *testing.T) {
	h := newHarness(t,
		nd("Sequence", "root", nil,
			sc("first", "S"),
			sc("second", "RRS")),
		storedEval)
	if got := h.run(6); got != "RRSRRS" {
		t.Fatalf("root statuses %s, want RRSRRS", got)
	}
	if c := h.counts("first"); c.tick != 2 {
		t.Fatalf("first ticked %d times over two runs, want 2 (stored in between)", c.tick)
	}
	if c := h.counts("second"); c.tick != 6 {
		t.Fatalf("second ticked %d times, want 6", c.tick)
	}
}

// The same tree in reactive evaluation re-ticks the completed child.
func TestReactiveReticksCompletedChildren(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil, sc("first", "S"), sc("second", "RRS")))
	h.run(3)
	if c := h.counts("first"); c.tick != 3 {
		t.Fatalf("first ticked %d times, want 3", c.tick)
	}
}

// A monitor whose guard keeps RUNNING does not interrupt and leaves
// nothing open.
func TestStoredStateRunningGuardIsHalted(t *testing.T) {
	h := newHarness(t,
		nd("Priority", "root", nil,
			nd("Monitor", "mon", nil, tl("guard", "FR")),
			sc("work", "R")),
		storedEval)
	if got := h.run(3); got != "RRR" {
		t.Fatalf("%s, want RRR", got)
	}
	if c := h.counts("guard"); c.halt != 2 {
		t.Fatalf("running guard halted %d times, want 2 (ticks 2 and 3)", c.halt)
	}
	if c := h.counts("work"); c.halt != 0 || c.open != 1 {
		t.Fatalf("work %v, want opened once and never halted", c)
	}
}

// The reference tree visits far fewer nodes per tick in stored-state
// evaluation: the guards that failed are skipped until the lap ends.
func TestStoredStateSavesVisits(t *testing.T) {
	reactive := loadReferenceTree(t)
	stored := loadReferenceTreeMode(t, StoredState)
	r, s := visitsPerLap(t, reactive), visitsPerLap(t, stored)
	if r != refVisitsPerLap {
		t.Fatalf("reactive: %d visits per lap, want %d", r, refVisitsPerLap)
	}
	if s >= r/2 {
		t.Fatalf("stored-state: %d visits per lap, reactive %d: expected less than half", s, r)
	}
	t.Logf("visits per 25-tick lap: reactive %d, stored-state %d", r, s)
}

func visitsPerLap(t *testing.T, tree *Tree) int {
	a := NewAgent(tree, 0, 0)
	vc := &visitCounter{}
	a.SetObserver(vc)
	for k := 1; k <= refLap; k++ {
		st := a.Tick(int64(k) * 50e6)
		if want := map[bool]Status{true: Success, false: Running}[k == refLap]; st != want {
			t.Fatalf("tick %d: root %v, want %v", k, st, want)
		}
	}
	return vc.ticks
}
