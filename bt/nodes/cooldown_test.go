package nodes

import (
	"fmt"
	"github.com/botd-project/botd/bt"
	"strings"
	"testing"
)

func TestCooldown(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// 50ms: SUCCESS, cooldown until 150ms. 100ms: FAILURE without a
			// tick. 150ms: the child runs again.
			Name:   "fails without ticking during the cooldown",
			Tree:   nd("Cooldown", "cd", kv{"ms": 100}, sc("child", "S")),
			StepMs: 50,
			Want:   "SFSF",
			Counts: map[string]counts{"cd": {4, 4, 4, 0}, "child": {2, 2, 2, 0}},
		},
		{
			Name:   "failures start no cooldown",
			Tree:   nd("Cooldown", "cd", kv{"ms": 100}, sc("child", "F")),
			StepMs: 50,
			Want:   "FFF",
			Counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			// The cooldown starts when the child succeeds (100ms).
			Name:   "starts at the success",
			Tree:   nd("Cooldown", "cd", kv{"ms": 100}, sc("child", "RS")),
			StepMs: 50,
			Want:   "RSFR",
			Counts: map[string]counts{"child": {2, 3, 1, 0}},
		},
		{
			Name:   "zero",
			Tree:   nd("Cooldown", "cd", kv{"ms": 0}, sc("child", "S")),
			Want:   "SSS",
			Counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			Name:   "length from a key",
			Tree:   nd("Cooldown", "cd", kv{"ms": "{cool}"}, sc("child", "S")),
			BB:     kv{"cool": 20},
			Want:   "SFSF",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			Name:   "missing key is ERROR",
			Tree:   nd("Cooldown", "cd", kv{"ms": "{cool}"}, sc("child", "S")),
			Want:   "E",
			Counts: map[string]counts{"child": {}},
		},
	})
}

// cooldownTree: agents whose "fast" is 1 succeed at once; the others keep
// a child running.
func cooldownTree(t *testing.T, scope string) *bt.Tree {
	return compileTree(t, nd("Cooldown", "cd", kv{"ms": 100, "scope": scope},
		nd("Priority", "pick", nil,
			nd("Check", "fast?", kv{"key": "fast", "value": 1}),
			sc("run", "R"))),
		withBB(kv{"fast": 0}))
}

func TestCooldownAgentScope(t *testing.T) {
	tree := cooldownTree(t, "agent")
	h0, h1 := harnessFor(t, tree, 0), harnessFor(t, tree, 1)
	fast, _ := tree.Slot("fast")
	h0.A.BB.SetNumber(fast, 1)
	h0.Step, h1.Step = 50*ms, 50*ms
	if got := h0.Run(3); got != "SFS" {
		t.Errorf("agent 0: %s, want SFS", got)
	}
	if got := h1.Run(3); got != "RRR" {
		t.Errorf("agent 1 (own cooldown): %s, want RRR", got)
	}
}

func TestCooldownGlobalScope(t *testing.T) {
	tree := cooldownTree(t, "global")
	h0, h1 := harnessFor(t, tree, 0), harnessFor(t, tree, 1)
	fast, _ := tree.Slot("fast")
	h0.A.BB.SetNumber(fast, 1)
	h0.Step, h1.Step = 50*ms, 50*ms
	var got0, got1 string
	for k := 0; k < 4; k++ {
		// Agent 1 ticks first at each instant, then agent 0.
		got1 += string(h1.Tick().Letter())
		got0 += string(h0.Tick().Letter())
	}
	// 50ms: agent 1 runs; agent 0 succeeds, cooldown until 150ms.
	// 100ms: both fail; agent 1's running child is halted.
	// 150ms: agent 1 runs again; agent 0 succeeds again (until 250ms).
	// 200ms: both fail.
	if got0 != "SFSF" || got1 != "RFRF" {
		t.Errorf("agent 0 %s (want SFSF), agent 1 %s (want RFRF)", got0, got1)
	}
	if got := h1.Counts("run"); got != (counts{2, 2, 0, 2}) {
		t.Errorf("agent 1's running child: %v, want halted by each cooldown", got)
	}
	h0.CheckProbe()
	h1.CheckProbe()

	// Another compiled tree has its own cooldown.
	other := harnessFor(t, cooldownTree(t, "global"), 0)
	other.A.BB.SetNumber(fast, 1)
	other.Now = h0.Now - 50*ms
	if st := other.Tick(); st != bt.Success {
		t.Errorf("agent of another tree during the cooldown: %v, want SUCCESS", st)
	}
}

func TestCooldownProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Cooldown", "", kv{"ms": 10, "scope": "fleet"}, sc("a", "S"))))
	wantProblems(t, ps, "/trees/main/params/scope", `"fleet" is not one of agent, global`)
}

// Three agents share a global cooldown: whichever agent reaches it first
// after the cooldown ends calls; the others take the branch below. The
// order in which agents are ticked rotates every tick.
func TestCooldownGlobalAgentsInOrder(t *testing.T) {
	tree := compileTree(t, nd("Repeater", "root", kv{"count": -1},
		nd("Priority", "pick", nil,
			nd("Cooldown", "cd", kv{"ms": 35, "scope": "global"}, sc("call", "S")),
			sc("other", "S"))))
	f := newFleet(t, tree, 3)
	var calls []string
	for k := 1; k <= 12; k++ {
		s := k % 3
		before := make([]int, 3)
		for i, h := range f.HS {
			before[i] = h.Counts("call").Tick
		}
		f.Tick(s, (s+1)%3, (s+2)%3)
		for i, h := range f.HS {
			if h.Counts("call").Tick > before[i] {
				calls = append(calls, fmt.Sprintf("t=%dms agent %d", f.Now/ms, i))
			}
		}
	}
	// Calls at 10ms (cooldown until 45ms), 50ms (until 85ms), 90ms.
	want := []string{"t=10ms agent 1", "t=50ms agent 2", "t=90ms agent 0"}
	if strings.Join(calls, ", ") != strings.Join(want, ", ") {
		t.Errorf("calls: %v, want %v", calls, want)
	}
	for i, h := range f.HS {
		if got := h.Counts("other").Tick; got != 11 {
			t.Errorf("agent %d: other ticked %d times, want 11", i, got)
		}
		h.CheckProbe()
	}
}
