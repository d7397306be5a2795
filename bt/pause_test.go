package bt

import (
	"strings"
	"testing"
)

// patrolDef is a patrol in miniature: two rounds of three legs, each leg
// RUNNING for a few ticks.
func patrolDef() *NodeDef {
	return nd("Repeater", "rounds", kv{"count": 2},
		nd("MemSequence", "round", nil, sc("leg1", "RS"), sc("leg2", "RRRS"), sc("leg3", "RS")))
}

// TestPauseKeepsProgress pauses a patrol in the middle of its second
// round's second leg: the resume continues that leg (started again) and
// the round, and the Repeater's count goes on, so no finished leg is
// done again. The same pause done with HaltAll restarts the patrol.
func TestPauseKeepsProgress(t *testing.T) {
	h := newHarness(t, patrolDef())
	// Round 1: leg1 R S, leg2 R R R S, leg3 R S (the Repeater counts one
	// completion per tick); round 2 up to leg2's second tick.
	if got := h.run(9); got != "RRRRRRRRR" {
		t.Fatalf("before the pause: %s", got)
	}
	leg2 := h.idx("leg2")
	if !h.a.IsOpen(leg2) || h.calls("leg1").open != 2 || h.calls("leg2").open != 2 {
		t.Fatalf("before the pause: leg2 open %v, leg1 %v, leg2 %v", h.a.IsOpen(leg2), h.calls("leg1"), h.calls("leg2"))
	}
	h.rec.take()
	h.a.Pause()
	if got := strings.Join(h.rec.take(), ", "); got != "leg2 halt, round halt, rounds halt" {
		t.Fatalf("the pause: %s, want every open node halted deepest first", got)
	}
	for _, name := range []string{"rounds", "round", "leg2"} {
		if i := h.idx(name); h.a.IsOpen(i) || h.a.Status(i) != Idle {
			t.Errorf("%s after the pause: open %v status %v, want halted (IDLE)", name, h.a.IsOpen(i), h.a.Status(i))
		}
	}
	if h.a.Status(h.idx("leg1")) != Success {
		t.Errorf("leg1 after the pause: %v, want its SUCCESS of this round", h.a.Status(h.idx("leg1")))
	}
	// Resume: leg2 starts again (R R R S, leg3 opening with its S), then
	// leg3 succeeds: the patrol ends with round 2.
	if got := h.run(5); got != "RRRRS" {
		t.Fatalf("after the resume: %s, want RRRRS (the rest of round 2)", got)
	}
	if c := h.calls("leg1"); c.open != 2 {
		t.Errorf("leg1 opened %d times, want 2 (one per round; not redone after the resume)", c.open)
	}
	if c := h.calls("leg2"); c.open != 3 || c.halt != 1 {
		t.Errorf("leg2: %v, want 3 opens (round 1, round 2, again after the pause) and 1 halt", c)
	}
	if c := h.calls("leg3"); c.open != 2 {
		t.Errorf("leg3 opened %d times, want 2", c.open)
	}
	// The observer saw the composites reopen after the pause.
	if c := h.counts("round"); c.open != 3 || c.halt != 1 {
		t.Errorf("round: %v, want opened 3 times (twice and after the pause), halted once", c)
	}
	h.checkProbe()

	// The same with HaltAll: the patrol starts over.
	h = newHarness(t, patrolDef())
	h.run(9)
	h.a.HaltAll()
	if got := h.run(5); got != "RRRRR" {
		t.Fatalf("after HaltAll: %s, want the patrol started over (still RUNNING)", got)
	}
	if c := h.calls("leg1"); c.open != 3 {
		t.Errorf("after HaltAll leg1 opened %d times, want 3 (the patrol restarted)", c.open)
	}
}

// TestPauseUnreachedStartsAfresh: a node that the first tick after a
// pause does not reach loses what the pause kept, as a node left unreached
// by a tick is halted: when reached later, it starts afresh.
func TestPauseUnreachedStartsAfresh(t *testing.T) {
	h := newHarness(t, nd("Priority", "root", nil,
		tl("guard", "FFFSF"),
		nd("MemSequence", "mem", nil, sc("a", "S"), sc("b", "R"))))
	if got := h.run(3); got != "RRR" {
		t.Fatalf("before the pause: %s", got)
	}
	h.a.Pause()
	// Tick 4: the guard succeeds, mem is not reached. Tick 5: mem
	// starts again at a.
	if got := h.run(2); got != "SR" {
		t.Fatalf("after the pause: %s, want SR", got)
	}
	if c := h.calls("a"); c.open != 2 {
		t.Errorf("a opened %d times, want 2 (mem started afresh)", c.open)
	}
	if h.a.resuming {
		t.Errorf("the pause's marks outlived the tick after it")
	}
}

// TestPauseAfterHaltAll: HaltAll after a Pause (an abort of a paused
// mission) forgets what the pause kept.
func TestPauseThenHaltAll(t *testing.T) {
	h := newHarness(t, patrolDef())
	h.run(9)
	h.a.Pause()
	h.a.HaltAll()
	h.run(1)
	if c := h.calls("leg1"); c.open != 3 {
		t.Errorf("leg1 opened %d times, want 3 (started over after HaltAll)", c.open)
	}
}

// TestPauseKeepsProgressFastPath ticks an agent without an observer (the
// fast path, where MemSequence is run in line) through the same pause.
func TestPauseKeepsProgressFastPath(t *testing.T) {
	tr := compileTree(t, patrolDef())
	a := NewAgent(tr, 0, 0)
	p := &probe{tree: tr, calls: make([]counts, tr.Len())}
	a.Env = p
	if a.general {
		t.Fatal("the agent is on the general path")
	}
	now := int64(0)
	run := func(n int) string {
		var b strings.Builder
		for range n {
			now += 10 * ms
			b.WriteByte(a.Tick(now).Letter())
		}
		return b.String()
	}
	run(9)
	a.Pause()
	if got := run(5); got != "RRRRS" {
		t.Fatalf("after the resume: %s, want RRRRS", got)
	}
	if c := p.calls[nodeNamed(t, tr, "leg1")]; c.open != 2 {
		t.Errorf("leg1 opened %d times, want 2", c.open)
	}
}

// TestPauseDynamicSubTree: a Pause reaches into a DynamicSubTree's child
// tree, whose memory composites keep their progress too.
func TestPauseDynamicSubTree(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil, dyn("dyn", "plan", "d")),
		withTree("d", nd("MemSequence", "inner", nil, sc("a", "S"), sc("b", "RRRS"))))
	if got := h.run(2); got != "RR" {
		t.Fatalf("before the pause: %s", got)
	}
	h.a.Pause()
	if got := h.run(4); got != "RRRS" {
		t.Fatalf("after the pause: %s, want RRRS", got)
	}
	d := h.a.SlotTree("plan")
	if c := h.childCalls(d, "a"); c.open != 1 {
		t.Errorf("a in the child tree opened %d times, want 1", c.open)
	}
	if c := h.childCalls(d, "b"); c.open != 2 || c.halt != 1 {
		t.Errorf("b in the child tree: %v, want opened twice, halted once", c)
	}
}
