package bt

import (
	"fmt"
	"strings"
	"testing"
)

// hookHarness is a harness whose hook events are kept as lines ("b pre
// hit running", "b pre released success unlocked"). The fast path's
// shadow is off: hooks change what a tick does.
func hookHarness(t *testing.T, root *NodeDef) (*harness, *[]string) {
	t.Helper()
	h := newHarness(t, root)
	h.shadow = nil
	var evs []string
	h.a.SetHookListener(func(a *Agent, ev HookEvent) {
		l := fmt.Sprintf("%s %s %s %s", h.rec.name(ev.Hook.Node), ev.Hook.Position, ev.Kind, strings.ToLower(ev.Status.String()))
		if ev.Why != "" {
			l += " " + ev.Why
		}
		evs = append(evs, l)
	})
	return h, &evs
}

func (h *harness) hook(name string, pos HookPosition, mode HookMode, st Status) {
	h.tb.Helper()
	if err := h.a.SetHook(Hook{Node: h.idx(name), Position: pos, Mode: mode, Status: st}); err != nil {
		h.tb.Fatal(err)
	}
}

func takeEvents(evs *[]string) []string {
	out := *evs
	*evs = nil
	return out
}

// A PRE breakpoint holds a MemSequence (BT.CPP's Sequence) at its node:
// the node is not ticked and is RUNNING, its parent waits, the siblings
// before it are not ticked again and those after it not yet; the tick
// returns every time. Unlocking lets the node tick on the next tick.
func TestHookBreakpointHoldsASequence(t *testing.T) {
	h, evs := hookHarness(t, nd("MemSequence", "root", nil, sc("a", "S"), sc("b", "S"), sc("c", "S")))
	h.hook("b", HookPre, HookBreakpoint, Idle)
	if got := h.run(5); got != "RRRRR" {
		t.Fatalf("root %s while held, want RRRRR", got)
	}
	if a, b, c := h.calls("a"), h.calls("b"), h.calls("c"); a.tick != 1 || b != (counts{}) || c != (counts{}) {
		t.Errorf("while held: a %v, b %v, c %v: want a ticked once, b and c never called", a, b, c)
	}
	if st := h.a.Status(h.idx("b")); st != Running {
		t.Errorf("held b reports %v, want RUNNING", st)
	}
	eqLines(t, "events", takeEvents(evs), []string{"b pre hit running"})
	hs := h.a.Hooks(nil)
	if len(hs) != 1 || !hs[0].Held || hs[0].Hits != 1 {
		t.Errorf("hooks %+v, want one held with one hit", hs)
	}
	if !h.a.UnlockHook(h.idx("b"), HookPre, Idle, true) {
		t.Fatal("unlock found no hook")
	}
	if got := h.run(1); got != "S" {
		t.Errorf("root %s after the unlock, want S", got)
	}
	if b := h.calls("b"); b != (counts{1, 1, 1, 0}) {
		t.Errorf("b after the unlock %v, want opened, ticked, closed once", b)
	}
	eqLines(t, "events", takeEvents(evs), []string{"b pre removed idle once", "b pre released idle unlocked"})
	if h.a.HasHooks() || h.a.general != true {
		t.Errorf("hooks left %v (general %v: the observer keeps it)", h.a.HasHooks(), h.a.general)
	}
}

// A reactive Sequence (BT.CPP's ReactiveSequence) re-ticks its
// condition while its next child is held; when the condition fails the
// held node is halted like any running child: the hold ends, and the
// node's Halt is not called since it never opened.
func TestHookBreakpointHeldNodePreempted(t *testing.T) {
	h, evs := hookHarness(t, nd("Sequence", "root", nil, tl("cond", "SSSF"), sc("b", "S")))
	h.hook("b", HookPre, HookBreakpoint, Idle)
	if got := h.run(4); got != "RRRF" {
		t.Fatalf("root %s, want RRRF", got)
	}
	if c, b := h.calls("cond"), h.calls("b"); c.tick != 4 || b != (counts{}) {
		t.Errorf("cond %v (want 4 ticks), b %v (want no call)", c, b)
	}
	if b := h.counts("b"); b != (counts{1, 3, 0, 1}) {
		t.Errorf("observer saw b %v, want opened, 3 RUNNING ticks, halted", b)
	}
	eqLines(t, "events", takeEvents(evs), []string{"b pre hit running", "b pre released idle halted"})
	// The breakpoint stays: reached again, it holds again.
	h.rec = newRecorder(t, h.tree)
	h.a.SetObserver(h.rec)
	h.a.Reset(h.now)
	if got := h.run(1); got != "R" {
		t.Errorf("root %s, want R (held again)", got)
	}
}

// A PRE breakpoint set on a node that is running holds it: the node is
// halted (what it started stops: a node that is not ticked must not go on
// acting) and reports RUNNING; the unlock with a status ends it with that
// status without a tick.
func TestHookBreakpointOnRunningNodeUnlockedWithStatus(t *testing.T) {
	h, evs := hookHarness(t, nd("MemSequence", "root", nil, sc("b", "R"), sc("c", "S")))
	if got := h.run(2); got != "RR" {
		t.Fatal(got)
	}
	h.hook("b", HookPre, HookBreakpoint, Idle)
	if got := h.run(3); got != "RRR" {
		t.Fatal(got)
	}
	if b := h.calls("b"); b != (counts{1, 2, 0, 1}) {
		t.Errorf("b %v: want halted after its 2 ticks from before the hold", b)
	}
	if st, open := h.a.Status(h.idx("b")), h.a.IsOpen(h.idx("b")); st != Running || !open {
		t.Errorf("held b: %v, open %v; want RUNNING and open (its parent waits for it)", st, open)
	}
	h.a.UnlockHook(h.idx("b"), HookPre, Success, false)
	if got := h.run(1); got != "S" {
		t.Errorf("root %s, want S", got)
	}
	if b, c := h.calls("b"), h.calls("c"); b != (counts{1, 2, 0, 1}) || c.tick != 1 {
		t.Errorf("b %v (want no further call), c %v", b, c)
	}
	eqLines(t, "events", takeEvents(evs), []string{"b pre hit running", "b pre released success unlocked"})
	// The hook stays, with the unlock's status (BT.CPP keeps it): the
	// next run stops at b again.
	if hs := h.a.Hooks(nil); len(hs) != 1 || hs[0].Status != Success || hs[0].Held {
		t.Errorf("hooks %+v", hs)
	}
}

// Stepping: a PRE breakpoint hits every time its node is reached; each
// unlock lets one tick of it through. A running node is halted whenever
// the breakpoint holds it, so it starts again at the next step; removing
// the breakpoint (unlock with remove) lets it run to its end.
func TestHookBreakpointSteps(t *testing.T) {
	h, evs := hookHarness(t, nd("MemSequence", "root", nil, sc("b", "RRS"), sc("c", "S")))
	h.hook("b", HookPre, HookBreakpoint, Idle)
	var got string
	for range 3 {
		got += h.run(2)
		h.a.UnlockHook(h.idx("b"), HookPre, Idle, false)
	}
	// held, held; b opens and ticks (R), held (b halted); again; again.
	if want := "RRRRRR"; got != want {
		t.Errorf("root %s, want %s", got, want)
	}
	if b := h.calls("b"); b != (counts{2, 2, 0, 2}) {
		t.Errorf("b %v: opened and ticked at each of the 2 steps so far, halted at each hold", b)
	}
	h.a.UnlockHook(h.idx("b"), HookPre, Idle, true)
	if got := h.run(3); got != "RRS" {
		t.Errorf("root %s after the breakpoint went, want RRS", got)
	}
	if b := h.calls("b"); b != (counts{3, 5, 1, 2}) {
		t.Errorf("b %v", b)
	}
	if n := len(takeEvents(evs)); n != 7 {
		t.Errorf("%d events, want 3 hits, 3 releases and the removal", n)
	}
}

// REPLACE gives its status without ticking the node (PRE), or in place
// of the node's (POST); with no SUCCESS or FAILURE it changes nothing.
func TestHookReplace(t *testing.T) {
	h, evs := hookHarness(t, nd("MemSequence", "root", nil, sc("a", "S"), sc("b", "S")))
	h.hook("b", HookPre, HookReplace, Failure)
	if got := h.run(2); got != "FF" {
		t.Errorf("root %s, want FF", got)
	}
	if b := h.calls("b"); b != (counts{}) {
		t.Errorf("b %v: a replaced node is not called", b)
	}
	if b := h.counts("b"); b != (counts{2, 2, 2, 0}) {
		t.Errorf("observer saw b %v", b)
	}
	eqLines(t, "events", takeEvents(evs), []string{"b pre hit failure", "b pre hit failure"})

	h.a.RemoveHook(h.idx("b"), HookPre)
	h.hook("a", HookPost, HookReplace, Failure)
	if got := h.run(1); got != "F" {
		t.Errorf("root %s, want F (a's SUCCESS replaced)", got)
	}
	if a := h.calls("a"); a.tick != 3 {
		t.Errorf("a %v: a POST replacement ticks the node", a)
	}
	h.a.SetHook(Hook{Node: h.idx("a"), Position: HookPost, Mode: HookReplace, Status: Skipped})
	if got := h.run(1); got != "S" {
		t.Errorf("root %s, want S (a SKIPPED replacement is none)", got)
	}
	// A running node replaced is halted.
	h2, _ := hookHarness(t, nd("MemSequence", "root", nil, sc("r", "R"), sc("c", "S")))
	h2.run(1)
	h2.a.SetHook(Hook{Node: h2.idx("r"), Position: HookPre, Mode: HookReplace, Status: Success, Once: true})
	if got := h2.run(1); got != "S" {
		t.Errorf("root %s, want S", got)
	}
	if r := h2.calls("r"); r != (counts{1, 1, 0, 1}) {
		t.Errorf("r %v, want halted", r)
	}
	if h2.a.HasHooks() {
		t.Error("a Once hook stays")
	}
}

// A POST breakpoint holds the node's completed status until the unlock,
// and the parent waits meanwhile.
func TestHookPostBreakpoint(t *testing.T) {
	h, evs := hookHarness(t, nd("MemSequence", "root", nil, sc("a", "F"), sc("b", "S")))
	h.hook("a", HookPost, HookBreakpoint, Idle)
	if got := h.run(3); got != "RRR" {
		t.Fatal(got)
	}
	if a := h.calls("a"); a != (counts{1, 1, 1, 0}) {
		t.Errorf("a %v: ticked once, closed, then held", a)
	}
	h.a.UnlockHook(h.idx("a"), HookPost, Idle, false)
	if got := h.run(1); got != "F" {
		t.Errorf("root %s, want a's own FAILURE", got)
	}
	h.a.HaltAll()
	h.a.Reset(h.now)
	h.rec = newRecorder(t, h.tree)
	h.a.SetObserver(h.rec)
	h.run(2)
	h.a.UnlockHook(h.idx("a"), HookPost, Success, false)
	if got := h.run(1); got != "S" {
		t.Errorf("root %s, want S (a replaced by the unlock, then b)", got)
	}
	takeEvents(evs)
}

// Removing, disabling or clearing the hooks releases what they hold; the
// halt of the whole tree (abort, e-stop) ends every hold; an agent that
// has no hook left goes back to the fast path.
func TestHookReleases(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(h *harness)
		want string
	}{
		{"remove", func(h *harness) { h.a.RemoveHook(h.idx("b"), HookPre) }, "S"},
		{"disable", func(h *harness) { h.a.DisableHooks() }, "S"},
		{"clear", func(h *harness) { h.a.ClearHooks("e-stop") }, "S"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, evs := hookHarness(t, nd("MemSequence", "root", nil, sc("b", "S")))
			h.hook("b", HookPre, HookBreakpoint, Idle)
			h.run(2)
			tc.do(h)
			if got := h.run(1); got != tc.want {
				t.Errorf("root %s, want %s", got, tc.want)
			}
			if b := h.calls("b"); b != (counts{1, 1, 1, 0}) {
				t.Errorf("b %v", b)
			}
			t.Log(takeEvents(evs))
		})
	}
	h, evs := hookHarness(t, nd("MemSequence", "root", nil, sc("a", "S"), sc("b", "S")))
	h.a.SetObserver(nil)
	h.hook("b", HookPre, HookBreakpoint, Idle)
	if !h.a.general {
		t.Fatal("an agent with hooks must take the general path")
	}
	h.run(2)
	h.a.HaltAll()
	eqLines(t, "events", takeEvents(evs), []string{"b pre hit running", "b pre released idle halted"})
	if b := h.calls("b"); b != (counts{}) {
		t.Errorf("b %v: a node halted while held before it opened is not called", b)
	}
	h.a.ClearHooks("mission ended")
	eqLines(t, "events", takeEvents(evs), []string{"b pre removed idle mission ended"})
	if h.a.hooks != nil || h.a.general {
		t.Error("an agent without hooks and observer must take the fast path again")
	}
	if err := h.a.SetHook(Hook{Node: 99}); err == nil {
		t.Error("a hook on no node")
	}
}

// The hook listener, the hook test on the general path and the halt test
// on both paths allocate nothing when no hook is set.
func TestHookNoHookAllocatesNothing(t *testing.T) {
	tr := compileTree(t, nd("MemSequence", "root", nil, sc("a", "S"), sc("b", "R")))
	a := NewAgent(tr, 0, 0)
	a.Env = &probe{tree: tr, calls: make([]counts, tr.Len())}
	now := int64(0)
	if n := testing.AllocsPerRun(100, func() { now += 10 * ms; a.Tick(now); a.HaltAll() }); n != 0 {
		t.Errorf("fast path: %v allocations a tick", n)
	}
	a.SetObserver(ObserverFunc(func(*Agent, int32, Event, Status) {}))
	if n := testing.AllocsPerRun(100, func() { now += 10 * ms; a.Tick(now); a.HaltAll() }); n != 0 {
		t.Errorf("general path: %v allocations a tick", n)
	}
}

// The branch beside a held one runs on: in a Parallel, a Drive-like leaf
// is ticked at every tick while the other branch waits at a breakpoint,
// and when that leaf fails the Parallel halts the held node with it.
func TestHookHeldBranchBesideARunningOne(t *testing.T) {
	h, evs := hookHarness(t, nd("Parallel", "par", kv{"success": 1},
		tl("drive", "RRRRRF"), nd("MemSequence", "seq", nil, sc("a", "S"), sc("b", "S"))))
	h.hook("b", HookPre, HookBreakpoint, Idle)
	if got := h.run(6); got != "RRRRRF" {
		t.Fatalf("root %s, want RRRRRF", got)
	}
	if d, b := h.calls("drive"), h.calls("b"); d.tick != 6 || b != (counts{}) {
		t.Errorf("drive %v (want ticked every tick), b %v (want never called)", d, b)
	}
	eqLines(t, "events", takeEvents(evs), []string{"b pre hit running", "b pre released idle halted"})
}

// A POST breakpoint after a RUNNING tick holds the node (halted: it does
// not go on acting untended); the unlock lets it start again at once.
func TestHookPostBreakpointOnRunning(t *testing.T) {
	h, evs := hookHarness(t, nd("MemSequence", "root", nil, sc("r", "RS")))
	h.hook("r", HookPost, HookBreakpoint, Idle)
	if got := h.run(3); got != "RRR" {
		t.Fatal(got)
	}
	if r := h.calls("r"); r != (counts{1, 1, 0, 1}) {
		t.Errorf("r %v: opened and ticked once, then halted and held", r)
	}
	h.a.UnlockHook(h.idx("r"), HookPost, Idle, true)
	if got := h.run(2); got != "RS" {
		t.Errorf("root %s, want RS (r started again, RUNNING then SUCCESS)", got)
	}
	if r := h.calls("r"); r != (counts{2, 3, 1, 1}) {
		t.Errorf("r %v", r)
	}
	takeEvents(evs)
}

// A composite that panics with a held child: the tick's recovery halts
// everything, which ends the hold (the child's behavior, never opened,
// is not halted).
func TestHookHeldNodeAndAPanic(t *testing.T) {
	h, evs := hookHarness(t, nd("Panicky", "p", nil, sc("b", "S")))
	h.hook("b", HookPre, HookBreakpoint, Idle)
	if st := h.a.Tick(10 * ms); st != Error {
		t.Fatalf("root %v, want ERROR", st)
	}
	if b := h.calls("b"); b != (counts{}) {
		t.Errorf("b %v", b)
	}
	eqLines(t, "events", takeEvents(evs), []string{"b pre hit running", "b pre released idle halted"})
	if hs := h.a.Hooks(nil); len(hs) != 1 || hs[0].Held {
		t.Errorf("hooks %+v: the breakpoint stays, not held", hs)
	}
}

// BenchmarkTickReferenceHooks ticks the reference tree with a hook set
// (a disabled breakpoint on its last node: the statuses are those of
// BenchmarkTickReference), for the cost of the general path hooks take.
func BenchmarkTickReferenceHooks(b *testing.B) {
	tree := loadReferenceTree(b)
	a := NewAgent(tree, 0, 0)
	if err := a.SetHook(Hook{Node: int32(tree.Len() - 1), Disabled: true}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	now := int64(0)
	for i := 0; i < b.N; i++ {
		now += 50e6
		a.Tick(now)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/refNodesPerTick, "ns/node")
}
