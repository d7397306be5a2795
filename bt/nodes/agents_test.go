package nodes

import (
	"strings"
	"sync"
	"testing"

	"github.com/botd-project/botd/bt"
)

func TestKeyParamsReadOnOpen(t *testing.T) {
	// MaxTime reads its limit when it opens: changing the key while it
	// runs does not move the deadline of the running activation.
	h := newHarness(t, nd("MaxTime", "mt", kv{"ms": "{limit}"}, sc("child", "R")), withBB(kv{"limit": 30}))
	limit, _ := h.Tree.Slot("limit")
	h.Run(1)
	h.A.BB.SetNumber(limit, 1000)
	if got := h.Run(3); got != "RRF" {
		t.Errorf("first activation: %s, want RRF (30ms read at open)", got)
	}
	if got := h.Run(5); got != "RRRRR" {
		t.Errorf("second activation: %s, want RUNNING (1000ms read at open)", got)
	}

	// Cooldown reads its length when it opens.
	h = newHarness(t, nd("Cooldown", "cd", kv{"ms": "{cool}"}, sc("child", "S")), withBB(kv{"cool": 20}))
	cool, _ := h.Tree.Slot("cool")
	if got := h.Run(3); got != "SFS" {
		t.Errorf("cooldown 20ms: %s, want SFS", got)
	}
	// The running cooldown (until 50ms) keeps its end; the next one,
	// started at 50ms, lasts the new 50ms.
	h.A.BB.SetNumber(cool, 50)
	if got := h.Run(7); got != "FSFFFFS" {
		t.Errorf("cooldown after the key changed to 50ms: %s, want FSFFFFS", got)
	}
}

func TestAgentsConcurrently(t *testing.T) {
	// Distinct agents of one tree may be ticked from different goroutines
	// (run with -race); the global Cooldown is the shared state.
	tree := compileTree(t, nd("Parallel", "root", kv{"success": 1},
		nd("Cooldown", "", kv{"ms": 30, "scope": "global"}, sc("a", "RS")),
		nd("RandomSequence", "", nil, sc("b", "S"), sc("c", "RS"), nd("Wait", "", kv{"ms": 20})),
		nd("Repeater", "", kv{"count": -1}, nd("Check", "", kv{"key": "x", "op": ">=", "value": 0}))),
		withBB(kv{"x": 1}), withSeed(5))
	var wg sync.WaitGroup
	results := make([]string, 4)
	for id := 0; id < 4; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := bt.NewAgent(tree, id, 0)
			a.SetObserver(&eventCounter{})
			var b strings.Builder
			for k := int64(1); k <= 300; k++ {
				b.WriteByte(a.Tick(k * 10 * ms).Letter())
			}
			results[id] = b.String()
		}()
	}
	wg.Wait()
	for id, r := range results {
		if strings.ContainsAny(r, "EI") {
			t.Errorf("agent %d: %s", id, r)
		}
	}
}

// eventCounter counts the lifecycle events an agent's observer sees.
type eventCounter struct{ n [4]int }

func (c *eventCounter) OnNode(_ *bt.Agent, _ int32, ev bt.Event, _ bt.Status) { c.n[ev]++ }
