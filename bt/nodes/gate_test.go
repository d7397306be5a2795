package nodes

import (
	"github.com/botd-project/botd/bt"
	"sync"
	"sync/atomic"
	"testing"
)

func TestGate(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "passes its child's status through",
			Tree:   nd("Gate", "gate", nil, sc("child", "RRS")),
			Want:   "RRS",
			Counts: map[string]counts{"gate": {1, 3, 1, 0}, "child": {1, 3, 1, 0}},
		},
		{
			Name:   "failure and error pass too",
			Tree:   nd("Sequence", "root", nil, nd("Gate", "gate", nil, sc("child", "F|E"))),
			Want:   "FE",
			Counts: map[string]counts{"gate": {2, 2, 2, 0}, "child": {2, 2, 2, 0}},
		},
		{
			Name: "halted with its child",
			Tree: nd("Priority", "root", nil,
				tl("guard", "FS"),
				nd("Gate", "gate", kv{"max": 1}, sc("child", "R"))),
			Want:   "RS",
			Counts: map[string]counts{"gate": {1, 1, 0, 1}, "child": {1, 1, 0, 1}},
		},
	})
}

// gateHeld returns how many agents hold a slot of the named Gate.
func gateHeld(tb testing.TB, tree *bt.Tree, name string) int {
	tb.Helper()
	return tree.Shared(nodeNamed(tb, tree, name)).(*gateState).Held()
}

// Three agents, two slots: the third fails at the gate (without ticking
// its child) and takes the branch below, until a holder closes the gate
// and gives its slot back.
func TestGateAgentsInOrder(t *testing.T) {
	tree := compileTree(t, nd("Priority", "root", nil,
		nd("Gate", "gate", kv{"max": 2}, sc("work", "RRS")),
		sc("other", "R")))
	f := newFleet(t, tree, 3)
	f.Run(2)
	if got := gateHeld(t, tree, "gate"); got != 2 {
		t.Fatalf("after tick 2: %d slots held, want 2", got)
	}
	f.Run(3)
	// Tick 3: agents 0 and 1 succeed and close the gate; agent 2, ticked
	// after them, takes a slot; its fallback branch is halted.
	f.Want("RRS..", "RRS..", "RRRRS")
	c := f.HS[2]
	if got := c.Counts("gate"); got != (counts{3, 5, 3, 0}) {
		t.Errorf("agent 2 gate: %v, want opened 3 times (2 refusals, then held)", got)
	}
	if got := c.Counts("work"); got != (counts{1, 3, 1, 0}) {
		t.Errorf("agent 2 work: %v, want ticked only once it held a slot", got)
	}
	if got := c.Counts("other"); got != (counts{1, 2, 0, 1}) {
		t.Errorf("agent 2 other: %v, want halted when the gate let it in", got)
	}
	if got := gateHeld(t, tree, "gate"); got != 0 {
		t.Errorf("at the end: %d slots held, want 0", got)
	}
	for _, h := range f.HS {
		h.CheckProbe()
	}
}

// An agent whose gated branch is halted gives its slot back in the same
// tick: an agent ticked after it in that tick gets the slot.
func TestGateHaltedHolderReleasesAtOnce(t *testing.T) {
	tree := func() *bt.Tree {
		return compileTree(t, nd("Priority", "root", nil,
			nd("Sequence", "stop", nil,
				nd("Check", "abort?", kv{"key": "abort", "value": true}),
				sc("idle", "R")),
			nd("Gate", "gate", kv{"max": 1}, sc("work", "R")),
			sc("wait", "R")),
			withBB(kv{"abort": false}))
	}
	for _, tc := range []struct {
		name  string
		order []int // in tick 2
		want1 string
	}{
		{"holder ticked first", []int{0, 1}, "RR"}, // agent 1 takes the slot in tick 2
		{"holder ticked last", []int{1, 0}, "RR"},  // agent 1 still finds the gate full in tick 2
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tree()
			f := newFleet(t, tr, 2)
			f.Tick()
			f.Set(0, "abort", true)
			f.Tick(tc.order...)
			a0, a1 := f.HS[0], f.HS[1]
			if got := a0.Counts("gate"); got.Halt != 1 {
				t.Fatalf("holder's gate: %v, want halted once", got)
			}
			if got := a0.Counts("work"); got.Halt != 1 {
				t.Fatalf("holder's work: %v, want halted once", got)
			}
			inNow := a1.Counts("work").Open == 1
			if wantIn := tc.order[0] == 0; inNow != wantIn {
				t.Fatalf("agent 1 in the gated branch after tick 2: %v, want %v", inNow, wantIn)
			}
			f.Tick()
			if got := a1.Counts("work"); got.Open != 1 || a1.Counts("wait").Halt != 1 {
				t.Fatalf("tick 3: agent 1 work %v, wait %v: want it in the gated branch", got, a1.Counts("wait"))
			}
			if got := gateHeld(t, tr, "gate"); got != 1 {
				t.Fatalf("%d slots held, want 1 (agent 1)", got)
			}
			f.HS[1].A.HaltAll()
			if got := gateHeld(t, tr, "gate"); got != 0 {
				t.Fatalf("after HaltAll: %d slots held, want 0", got)
			}
			f.Want("RRR", "RRR")
		})
	}
}

// Each compiled tree has its own semaphores, and so does each Gate node.
func TestGateSharedPerTreeAndNode(t *testing.T) {
	def := nd("Parallel", "root", nil,
		nd("Gate", "g1", nil, sc("w1", "R")),
		nd("Gate", "g2", nil, sc("w2", "R")))
	t1, t2 := compileTree(t, def), compileTree(t, def)
	a, b := harnessFor(t, t1, 0), harnessFor(t, t2, 0)
	a.Tick()
	b.Tick()
	for _, h := range []*harness{a, b} {
		if h.Counts("w1").Open != 1 || h.Counts("w2").Open != 1 {
			t.Errorf("agent of its own tree: w1 %v, w2 %v: want both gates open", h.Counts("w1"), h.Counts("w2"))
		}
	}
	c := harnessFor(t, t1, 1)
	c.Tick()
	if c.Counts("w1").Open != 0 || c.Counts("w2").Open != 0 {
		t.Errorf("second agent of the first tree got past a full gate")
	}
}

func TestGateProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Gate", "", kv{"max": 0}, sc("a", "S")),
		nd("Gate", "", kv{"max": 1.5}, sc("a", "S")),
		nd("Gate", "", kv{"max": "{n}"}, sc("a", "S")),
		nd("Gate", "", nil))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/max", "below the limit 1",
		"/trees/main/children/1/params/max", "whole number",
		"/trees/main/children/2/params/max", "whole number",
		"/trees/main/children/3", "exactly 1 child")
}

// criticalType is a leaf that counts, in a shared counter, the agents
// inside it at once and records the highest count seen.
func criticalType(inside, peak *atomic.Int32) bt.NodeType {
	return bt.NodeType{
		Name: "Critical", Kind: bt.Leaf,
		New: func(b *bt.Builder) bt.Behavior { return critical{inside, peak, bt.Reserve[int](b)} },
	}
}

type critical struct {
	inside, peak *atomic.Int32
	ticks        bt.Mem[int] // in this activation
}

var (
	_ bt.Opener = critical{}
	_ bt.Closer = critical{}
)

func (c critical) Open(a *bt.Agent, n *bt.Node) {
	*c.ticks.Of(a, n) = 0
	v := c.inside.Add(1)
	for {
		p := c.peak.Load()
		if v <= p || c.peak.CompareAndSwap(p, v) {
			break
		}
	}
}

func (c critical) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	ticks := c.ticks.Of(a, n)
	*ticks++
	if *ticks%3 == 0 {
		return bt.Success
	}
	return bt.Running
}

func (c critical) Close(a *bt.Agent, n *bt.Node) { c.inside.Add(-1) }

// Agents ticked from several goroutines (run with -race): a Gate never
// lets more than max agents in, halted holders release their slots, and
// the global Cooldown beside it is shared safely.
func TestGateConcurrentAgents(t *testing.T) {
	var inside, peak atomic.Int32
	r := testRegistry()
	r.Register(criticalType(&inside, &peak))
	const max, workers, perWorker, ticks = 3, 4, 5, 300
	tree, err := r.Compile(mainSpec(nd("Parallel", "root", nil,
		nd("Priority", "pick", nil,
			nd("Sequence", "stop", nil,
				nd("Check", "", kv{"key": "abort", "value": true}),
				nd("Running", "", nil)),
			nd("Gate", "gate", kv{"max": max}, nd("Critical", "", nil)),
			nd("Running", "", nil)),
		nd("Cooldown", "", kv{"ms": 30, "scope": "global"}, nd("Succeed", "", nil))),
		withBB(kv{"abort": false})))
	if err != nil {
		t.Fatal(err)
	}
	abort, _ := tree.Slot("abort")
	gs := tree.Shared(nodeNamed(t, tree, "gate")).(*gateState)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			agents := make([]*bt.Agent, perWorker)
			for i := range agents {
				agents[i] = bt.NewAgent(tree, w*perWorker+i, 0)
			}
			for k := 1; k <= ticks; k++ {
				for i, a := range agents {
					// Now and then an agent is pulled out of the gated
					// branch (its slot must come back at once).
					a.BB.Set(abort, bt.BoolValue((k+i+w)%7 == 0))
					a.Tick(int64(k) * 10 * ms)
					if h := gs.Held(); h > max {
						t.Errorf("%d slots held, max %d", h, max)
					}
				}
			}
			for _, a := range agents {
				a.HaltAll()
			}
		}(w)
	}
	wg.Wait()
	if p := peak.Load(); p > max || p < 1 {
		t.Errorf("peak agents inside the gate: %d, want 1..%d", p, max)
	}
	if n := inside.Load(); n != 0 {
		t.Errorf("%d agents inside after every agent halted", n)
	}
	if h := gateHeld(t, tree, "gate"); h != 0 {
		t.Errorf("%d slots held after every agent halted", h)
	}
}
