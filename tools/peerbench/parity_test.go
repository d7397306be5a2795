package peerbench

import (
	"testing"

	"github.com/botd-project/botd/bt"
)

func loadReference(tb testing.TB) *Reference {
	tb.Helper()
	r, err := LoadReference(ReferencePath)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// ticker is one agent of one engine.
type ticker interface{ Tick() bt.Status }

// countedAgent is an agent whose node visits are counted into *visits.
type countedAgent struct {
	name   string
	agent  ticker
	visits *int
}

// countedAgents makes one agent of each engine with its visits counted:
// botd through an observer, go-behaviortree through a wrapper around every
// node's tick, behavior3go through nodes that count in OnEnter.
func countedAgents(tb testing.TB, r *Reference) []countedAgent {
	tb.Helper()
	var out []countedAgent

	bv := new(int)
	ba := r.NewBotdAgent(0)
	ba.A.SetObserver(bt.ObserverFunc(func(_ *bt.Agent, _ int32, ev bt.Event, _ bt.Status) {
		if ev == bt.EventTick {
			*bv++
		}
	}))
	out = append(out, countedAgent{"botd", ba, bv})

	gv := new(int)
	ga, err := r.NewGoBTAgent(gv)
	if err != nil {
		tb.Fatal(err)
	}
	out = append(out, countedAgent{"go-behaviortree", ga, gv})

	tv := new(int)
	tree, err := r.NewB3Tree(true)
	if err != nil {
		tb.Fatal(err)
	}
	ta := tree.NewAgent()
	ta.Target = tv
	out = append(out, countedAgent{"behavior3go", ta, tv})
	return out
}

// visitPattern ticks a for laps laps and returns the visits of every tick
// and the root status of every tick.
func visitPattern(c countedAgent, laps int) (visits []int, statuses []bt.Status) {
	for range laps * Lap {
		before := *c.visits
		statuses = append(statuses, c.agent.Tick())
		visits = append(visits, *c.visits-before)
	}
	return visits, statuses
}

// expectedVisits is BENCH-TREE.md's pattern for tick k (1-based) of a lap:
// 48 visits when waypoint j completes on tick 4+3j and waypoint j+1 starts
// (j < 7), else 42.
func expectedVisits(k int) int {
	if k >= 4 && (k-4)%3 == 0 && k < Lap {
		return 48
	}
	return 42
}

// TestParity checks that botd, go-behaviortree and behavior3go make the
// same node visits in every tick of three laps of the reference tree (42 or
// 48, 1,092 a lap: 43.68 a tick) and return the same root statuses
// (RUNNING 24 times, then SUCCESS).
func TestParity(t *testing.T) {
	r := loadReference(t)
	const laps = 3
	var want []int
	var wantSt []bt.Status
	for range laps {
		for k := 1; k <= Lap; k++ {
			want = append(want, expectedVisits(k))
			st := bt.Running
			if k == Lap {
				st = bt.Success
			}
			wantSt = append(wantSt, st)
		}
	}
	sum := 0
	for _, v := range want[:Lap] {
		sum += v
	}
	if sum != VisitsPerLap {
		t.Fatalf("expected pattern sums to %d a lap, want %d", sum, VisitsPerLap)
	}
	for _, c := range countedAgents(t, r) {
		visits, statuses := visitPattern(c, laps)
		total := 0
		for i := range visits {
			total += visits[i]
			if visits[i] != want[i] || statuses[i] != wantSt[i] {
				t.Errorf("%s: lap %d tick %d: %d visits, root %v; want %d, %v",
					c.name, i/Lap+1, i%Lap+1, visits[i], statuses[i], want[i], wantSt[i])
			}
		}
		avg := float64(total) / float64(len(visits))
		if avg != VisitsPerTick {
			t.Errorf("%s: %.2f visits per tick on average, want %.2f", c.name, avg, VisitsPerTick)
		}
		t.Logf("%s: %d visits over %d ticks (%.2f a tick)", c.name, total, len(visits), avg)
	}
}

// TestBenchmarkTreesUncounted checks the uncounted trees the benchmarks
// time against the same root status sequence (their visits cannot be
// counted, but a tree built differently would end its laps elsewhere).
func TestBenchmarkTreesUncounted(t *testing.T) {
	r := loadReference(t)
	ga, err := r.NewGoBTAgent(nil)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := r.NewB3Tree(false)
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]ticker{"botd": r.NewBotdAgent(0), "go-behaviortree": ga, "behavior3go": tree.NewAgent()} {
		checkStatuses(t, name, a)
	}
}

// checkStatuses asserts two laps of root statuses: RUNNING, then SUCCESS
// on every 25th tick.
func checkStatuses(tb testing.TB, name string, a ticker) {
	tb.Helper()
	for i := 1; i <= 2*Lap; i++ {
		want := bt.Running
		if i%Lap == 0 {
			want = bt.Success
		}
		if st := a.Tick(); st != want {
			tb.Fatalf("%s: tick %d: root %v, want %v", name, i, st, want)
		}
	}
}
