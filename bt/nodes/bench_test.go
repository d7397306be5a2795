package nodes

import (
	"encoding/json"
	"github.com/botd-project/botd/bt"
	"os"
	"runtime"
	"testing"
)

// The reference tree of BENCH-TREE.md (the engine's own benchmarks,
// bt/bench_test.go, run it bare), here with Gates on some branches.
const refLap = 25 // ticks between the root's SUCCESSes

// countdown is the benchmark leaf of BENCH-TREE.md: RUNNING three ticks,
// SUCCESS on the fourth, writing one number every tick.
type countdown struct {
	key   bt.Slot
	reset float64
}

func (c *countdown) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	v, _ := a.BB.Number(c.key)
	if v--; v > 0 {
		a.BB.SetNumber(c.key, v)
		return bt.Running
	}
	a.BB.SetNumber(c.key, c.reset)
	return bt.Success
}

func benchRegistry() *bt.Registry {
	r := bt.NewRegistry()
	Register(r)
	r.Register(bt.NodeType{
		Name: "Countdown", Kind: bt.Leaf,
		Params: []bt.Param{{Name: "key", Type: bt.TKey, Required: true}, {Name: "reset", Type: bt.TNumber, Required: true}},
		New: func(b *bt.Builder) bt.Behavior {
			return &countdown{key: b.KeyParam("key"), reset: b.Number("reset").V}
		},
	})
	return r
}

// referenceDoc is the part of the reference mission the benchmarks use.
type referenceDoc struct {
	Blackboard map[string]any         `json:"blackboard"`
	Main       string                 `json:"main"`
	Trees      map[string]*bt.NodeDef `json:"trees"`
}

func readReferenceDoc(tb testing.TB) referenceDoc {
	tb.Helper()
	data, err := os.ReadFile("../testdata/reference-tree.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc referenceDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		tb.Fatal(err)
	}
	return doc
}

// visitCounter counts node ticks.
type visitCounter struct{ ticks int }

func (v *visitCounter) OnNode(_ *bt.Agent, _ int32, ev bt.Event, _ bt.Status) {
	if ev == bt.EventTick {
		v.ticks++
	}
}

// gatedWaypoints are the waypoint branches of the reference tree that
// loadGatedReferenceTree wraps in a Gate.
var gatedWaypoints = map[string]bool{"waypoint_2": true, "waypoint_5": true}

// loadGatedReferenceTree is the reference tree with some waypoint branches
// wrapped in a Gate of max agents: an agent refused at a gate fails its
// patrol lap and starts again, so agents drift out of phase.
func loadGatedReferenceTree(tb testing.TB, max int) *bt.Tree {
	tb.Helper()
	doc := readReferenceDoc(tb)
	gates := 0
	var wrap func(n *bt.NodeDef)
	wrap = func(n *bt.NodeDef) {
		for i, c := range n.Children {
			if gatedWaypoints[c.Name] {
				n.Children[i] = &bt.NodeDef{Type: "Gate", Name: "gate_" + c.Name, Params: map[string]any{"max": max}, Children: []*bt.NodeDef{c}}
				gates++
				continue
			}
			wrap(c)
		}
	}
	wrap(doc.Trees[doc.Main])
	if gates != len(gatedWaypoints) {
		tb.Fatalf("wrapped %d waypoints, want %d", gates, len(gatedWaypoints))
	}
	t, err := benchRegistry().Compile(&bt.Spec{Trees: doc.Trees, Main: doc.Main, Blackboard: doc.Blackboard})
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// tickAll ticks every agent once at each of n instants after *now.
func tickAll(agents []*bt.Agent, now *int64, n int) {
	for k := 0; k < n; k++ {
		*now += 50e6
		for _, a := range agents {
			a.Tick(*now)
		}
	}
}

// Agents sharing gated branches allocate nothing per tick, and the gates
// never hold more than max slots.
func TestGatedReferenceTreeAllocatesNothing(t *testing.T) {
	const max = 20
	tree := loadGatedReferenceTree(t, max)
	agents := make([]*bt.Agent, 200)
	for i := range agents {
		agents[i] = bt.NewAgent(tree, i, 0)
	}
	now := int64(0)
	tickAll(agents, &now, 100)
	if n := testing.AllocsPerRun(50, func() { tickAll(agents, &now, 1) }); n != 0 {
		t.Fatalf("%v allocations per tick of %d agents, want 0", n, len(agents))
	}
	for name := range gatedWaypoints {
		if h := gateHeld(t, tree, "gate_"+name); h > max || h == 0 {
			t.Errorf("%s: %d slots held, want 1..%d", name, h, max)
		}
	}
}

// BenchmarkTickAgents10000Gates ticks 10,000 agents sharing the reference
// tree with two waypoint branches behind Gates (1,000 agents each at
// once). Node visits per agent-tick are measured over a lap once the
// agents have drifted out of phase.
func BenchmarkTickAgents10000Gates(b *testing.B) {
	const n, max = 10000, 1000
	tree := loadGatedReferenceTree(b, max)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	agents := make([]*bt.Agent, n)
	for i := range agents {
		agents[i] = bt.NewAgent(tree, i, 0)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perAgent := float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	now := int64(0)
	tickAll(agents, &now, 4*refLap)
	vc := &visitCounter{}
	for _, a := range agents {
		a.SetObserver(vc)
	}
	tickAll(agents, &now, refLap)
	for _, a := range agents {
		a.SetObserver(nil)
	}
	visits := float64(vc.ticks) / refLap / n
	b.ReportAllocs()
	b.ResetTimer()
	tickAll(agents, &now, b.N)
	b.StopTimer()
	nsPerAgentTick := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / n
	b.ReportMetric(nsPerAgentTick, "ns/agent-tick")
	b.ReportMetric(visits, "nodes/tick")
	b.ReportMetric(nsPerAgentTick/visits, "ns/node")
	b.ReportMetric(perAgent, "heap-B/agent")
	b.ReportMetric(float64(tree.MemoryBytes()), "block-B/agent")
	runtime.KeepAlive(agents)
}
