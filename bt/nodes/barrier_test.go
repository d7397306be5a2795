package nodes

import (
	"github.com/botd-project/botd/bt"
	"math"
	"sync"
	"testing"
)

func TestBarrierAlone(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "count 1 passes at once",
			Tree:   nd("Barrier", "bar", kv{"count": 1, "role_key": "role"}),
			Want:   "SS",
			Counts: map[string]counts{"bar": {2, 2, 2, 0}},
		},
		{
			Name:   "count 2 waits",
			Tree:   nd("Barrier", "bar", kv{"count": 2}),
			Want:   "RRR",
			Counts: map[string]counts{"bar": {1, 3, 0, 0}},
		},
		{
			Name:   "count from a key",
			Tree:   nd("Barrier", "bar", kv{"count": "{n}"}),
			BB:     kv{"n": 1},
			Want:   "S",
			Counts: map[string]counts{"bar": {1, 1, 1, 0}},
		},
		{Name: "missing count is ERROR", Tree: nd("Barrier", "bar", kv{"count": "{none}"}), Want: "E"},
		{Name: "zero count is ERROR", Tree: nd("Barrier", "bar", kv{"count": "{n}"}), BB: kv{"n": 0}, Want: "E"},
		{Name: "fractional count is ERROR", Tree: nd("Barrier", "bar", kv{"count": "{n}"}), BB: kv{"n": 1.5}, Want: "E"},
	})
}

// meetTree: agents whose "ready" is true meet at a Barrier; "abort" pulls
// an agent away (halting the Barrier); the others wait below.
func meetTree(t *testing.T, count any) *bt.Tree {
	return compileTree(t, nd("Priority", "root", nil,
		nd("Sequence", "abort", nil,
			nd("Check", "abort?", kv{"key": "abort", "value": true}),
			sc("idle", "R")),
		nd("Sequence", "meet", nil,
			nd("Check", "ready?", kv{"key": "ready", "value": true}),
			nd("Barrier", "bar", kv{"count": count, "role_key": "role"})),
		sc("wait", "R")),
		withBB(kv{"abort": false, "ready": false, "n": 2}))
}

func barrierOf(tb testing.TB, tree *bt.Tree) *barrierState {
	return tree.Shared(nodeNamed(tb, tree, "bar")).(*barrierState)
}

// The agent that completes a group succeeds in that tick, the others on
// their next tick; later arrivals form the next group.
func TestBarrierGenerations(t *testing.T) {
	tree := meetTree(t, 2)
	f := newFleet(t, tree, 5)
	for i := 0; i < 5; i++ {
		f.Set(i, "ready", true)
	}
	f.Tick()
	// Tick 1: 0 waits, 1 completes group 1; 2 waits, 3 completes group 2;
	// 4 starts group 3.
	f.Tick()
	f.Tick()
	f.Want("RS.", "S..", "RS.", "S..", "RRR")
	for i, want := range []float64{0, 1, 0, 1} {
		if got := f.Number(i, "role"); got != want {
			t.Errorf("agent %d: role %v, want %v", i, got, want)
		}
	}
	if got := f.Number(4, "role"); !math.IsNaN(got) {
		t.Errorf("agent 4 (still waiting): role %v, want unset", got)
	}
	bs := barrierOf(t, tree)
	if bs.Groups() != 2 || bs.Waiting() != 1 {
		t.Errorf("groups %d, waiting %d; want 2 released and 1 waiting", bs.Groups(), bs.Waiting())
	}
	for _, h := range f.HS[:4] {
		if got := h.Counts("bar"); got.Open != 1 || got.Close != 1 || got.Halt != 0 {
			t.Errorf("agent %d barrier: %v, want opened and closed once", h.A.ID, got)
		}
	}
}

// An agent halted while waiting withdraws: the group shrinks, and the
// agents that arrived after it move up one place.
func TestBarrierWithdrawal(t *testing.T) {
	tree := meetTree(t, 3)
	f := newFleet(t, tree, 4)
	bs := barrierOf(t, tree)
	f.Set(0, "ready", true)
	f.Set(1, "ready", true)
	f.Tick() // 0 and 1 wait (places 0 and 1)
	if bs.Waiting() != 2 {
		t.Fatalf("waiting %d, want 2", bs.Waiting())
	}
	f.Set(0, "abort", true)
	f.Set(2, "ready", true)
	f.Tick() // 0 is halted and withdraws; 1 moves to place 0; 2 takes place 1
	if got := f.HS[0].Counts("bar"); got.Halt != 1 {
		t.Fatalf("agent 0 barrier: %v, want halted", got)
	}
	if bs.Waiting() != 2 {
		t.Fatalf("after the withdrawal and a new arrival: waiting %d, want 2", bs.Waiting())
	}
	f.Set(3, "ready", true)
	f.Tick() // 3 completes the group: 1, 2, 3
	f.Tick()
	f.Want("RRRR", "RRRS", "RRRS", "RRS.")
	for i, want := range []float64{1: 0, 2: 1, 3: 2} {
		if i == 0 {
			continue
		}
		if got := f.Number(i, "role"); got != want {
			t.Errorf("agent %d: role %v, want %v", i, got, want)
		}
	}
	if got := f.Number(0, "role"); !math.IsNaN(got) {
		t.Errorf("agent 0 (withdrew): role %v, want unset", got)
	}
	if bs.Groups() != 1 || bs.Waiting() != 0 {
		t.Errorf("groups %d, waiting %d; want 1 and 0", bs.Groups(), bs.Waiting())
	}
	// Agent 0 comes back and starts the next group alone.
	f.Set(0, "abort", false)
	f.Tick()
	if bs.Waiting() != 1 {
		t.Errorf("agent 0 back: waiting %d, want 1", bs.Waiting())
	}
	f.HS[0].A.HaltAll()
	if bs.Waiting() != 0 {
		t.Errorf("after HaltAll: waiting %d, want 0", bs.Waiting())
	}
}

// An agent released with its group but halted before its next tick does
// not undo the release: the others still succeed (it gets no role).
func TestBarrierHaltAfterRelease(t *testing.T) {
	tree := meetTree(t, 2)
	f := newFleet(t, tree, 2)
	f.Set(0, "ready", true)
	f.Set(1, "ready", true)
	f.Tick()
	f.Set(0, "abort", true)
	f.Tick()
	f.Want("RR", "S.")
	if got := f.Number(0, "role"); !math.IsNaN(got) {
		t.Errorf("agent 0: role %v, want unset", got)
	}
	if got := f.Number(1, "role"); got != 1 {
		t.Errorf("agent 1: role %v, want 1", got)
	}
	if bs := barrierOf(t, tree); bs.Waiting() != 0 || bs.Groups() != 1 {
		t.Errorf("waiting %d groups %d, want 0 and 1", bs.Waiting(), bs.Groups())
	}
}

// Agents meeting at one Barrier must agree on the group size.
func TestBarrierCountMismatch(t *testing.T) {
	tree := meetTree(t, "{n}")
	f := newFleet(t, tree, 3)
	for i := 0; i < 3; i++ {
		f.Set(i, "ready", true)
	}
	f.Set(1, "n", 3)
	f.Tick()
	f.Tick()
	f.Want("RS", "E.", "S.")
	if got := f.Number(2, "role"); got != 1 {
		t.Errorf("agent 2: role %v, want 1", got)
	}
}

func TestBarrierProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Barrier", "", kv{"count": 0}),
		nd("Barrier", "", kv{"count": 2.5}),
		nd("Barrier", "", kv{"count": 2, "role_key": "bad key"}),
		nd("Barrier", "", nil))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/count", "below the limit 1",
		"/trees/main/children/1/params/count", "whole number",
		"/trees/main/children/2/params/role_key", "contains a space",
		"/trees/main/children/3/params/count", "missing required parameter")
}

// Agents ticked from several goroutines (run with -race): every group
// releases exactly count agents, and every role of a group is given out
// exactly once.
func TestBarrierConcurrentAgents(t *testing.T) {
	const count, workers, perWorker, ticks = 4, 4, 3, 200
	tree := compileTree(t, nd("Repeater", "", kv{"count": -1},
		nd("Barrier", "bar", kv{"count": count, "role_key": "role"})))
	bs := barrierOf(t, tree)
	role, _ := tree.Slot("role")
	bar := nodeNamed(t, tree, "bar")
	roles := make([][count]int, workers+1) // per worker, and the final pass
	observe := func(slot int) bt.Observer {
		return bt.ObserverFunc(func(a *bt.Agent, node int32, ev bt.Event, st bt.Status) {
			if node == bar && ev == bt.EventTick && st == bt.Success {
				r, _ := a.BB.Number(role)
				roles[slot][int(r)]++
			}
		})
	}
	agents := make([]*bt.Agent, workers*perWorker)
	for i := range agents {
		agents[i] = bt.NewAgent(tree, i, 0)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			mine := agents[w*perWorker : (w+1)*perWorker]
			for _, a := range mine {
				a.SetObserver(observe(w))
			}
			<-start
			for k := 1; k <= ticks; k++ {
				for _, a := range mine {
					a.Tick(int64(k) * ms)
				}
			}
		}(w)
	}
	close(start)
	wg.Wait()
	// Agents released after their last tick collect their SUCCESS now.
	n := tree.Node(int(bar))
	for _, a := range agents {
		a.SetObserver(observe(workers))
		if n.Behavior().(*barrier).place.Of(a, n).Load() >= barReleased {
			a.Tick(int64(ticks+1) * ms)
		}
	}
	groups := int(bs.Groups())
	if groups == 0 {
		t.Errorf("no group released in %d ticks", ticks)
	}
	for r := 0; r < count; r++ {
		got := 0
		for w := range roles {
			got += roles[w][r]
		}
		if got != groups {
			t.Errorf("role %d given %d times in %d groups", r, got, groups)
		}
	}
	for _, a := range agents {
		a.HaltAll()
	}
	if bs.Waiting() != 0 {
		t.Errorf("%d agents still waiting after HaltAll", bs.Waiting())
	}
}
