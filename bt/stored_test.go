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

// Registered monitors are evaluated in index order; the first that
// succeeds interrupts the tree, and the ones after it are not evaluated.
func TestStoredStateMonitorsInOrder(t *testing.T) {
	h := newHarness(t,
		nd("Priority", "root", nil,
			nd("Sequence", "first", nil, nd("Monitor", "", nil, tl("guard 1", "FS")), sc("one", "R")),
			nd("Sequence", "second", nil, nd("Monitor", "", nil, tl("guard 2", "FS")), sc("two", "R")),
			sc("work", "R")),
		storedEval)
	h.tick()
	h.rec.take()
	if st := h.tick(); st != Running {
		t.Fatalf("tick 2: %v", st)
	}
	// Before the tree: guard 1 fires, so guard 2 is not evaluated; work
	// is halted and the tree is evaluated afresh (branch "first" wins).
	eqLines(t, "tick 2 until the interruption", h.rec.take()[:5], []string{
		"guard 1 open", "guard 1 tick SUCCESS", "guard 1 close", "work halt", "root halt",
	})
	if got := h.counts("guard 2"); got.tick != 1 {
		t.Errorf("guard 2 ticked %d times, want 1 (tick 1 only)", got.tick)
	}
	if got := h.counts("one"); got.open != 1 {
		t.Errorf("one: %v, want running after the interruption", got)
	}
}

// A registered guard that errs ends the tick with ERROR: it is not taken
// for a FAILURE, and nothing stays open.
func TestStoredStateMonitorError(t *testing.T) {
	h := newHarness(t,
		nd("Priority", "root", nil,
			nd("Sequence", "watch", nil, nd("Monitor", "mon", nil, tl("guard", "FE")), sc("act", "R")),
			sc("work", "R")),
		storedEval)
	if got := h.run(2); got != "RE" {
		t.Fatalf("root statuses %s, want RE", got)
	}
	if got := h.counts("work"); got != (counts{1, 1, 0, 1}) {
		t.Errorf("work: %v, want halted", got)
	}
	if got := h.counts("guard"); got.tick != 2 {
		t.Errorf("guard ticked %d times, want 2", got.tick)
	}
	// Afterwards the tree starts afresh; the monitor registers again.
	if got := h.run(1); got != "E" {
		t.Errorf("tick 3: %s, want E (the guard still errs, now inside the tree)", got)
	}
	h.checkProbe()
}

// When the root completes, monitor registrations are cleared with the
// stored statuses: a monitor is evaluated before the tree again only once
// the new evaluation has reached it.
func TestStoredStateMonitorRegistrationCleared(t *testing.T) {
	h := newHarness(t,
		nd("Priority", "root", nil,
			nd("Sequence", "watch", nil, nd("Monitor", "", nil, tl("guard", "F")), sc("act", "R")),
			sc("work", "RS")),
		storedEval)
	if got := h.run(3); got != "RSR" {
		t.Fatalf("root statuses %s, want RSR", got)
	}
	// Tick 1: reached in the tree. Tick 2: evaluated first (registered);
	// the stored "watch" is skipped. Tick 3: registrations were cleared,
	// so only the tree reaches it.
	if got := h.counts("guard"); got.tick != 3 {
		t.Errorf("guard ticked %d times in 3 ticks, want 3", got.tick)
	}
}
