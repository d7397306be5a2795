package bt

import (
	"encoding/json"
	"os"
	"runtime"
	"testing"
)

// The reference tree of BENCH-TREE.md: 100 nodes, 43.68 node visits per
// tick on average, root SUCCESS every 25th tick.
const (
	refVisitsPerLap = 1092 // 25 ticks x 43.68
	refLap          = 25
	refNodesPerTick = float64(refVisitsPerLap) / refLap
)

// countdown is the benchmark leaf of BENCH-TREE.md: RUNNING three ticks,
// SUCCESS on the fourth, writing one number every tick.
type countdown struct {
	key   Slot
	reset float64
}

func (c *countdown) Tick(a *Agent, n *Node) Status {
	v, _ := a.BB.Number(c.key)
	if v--; v > 0 {
		a.BB.SetNumber(c.key, v)
		return Running
	}
	a.BB.SetNumber(c.key, c.reset)
	return Success
}

func benchRegistry() *Registry {
	r := NewRegistry()
	r.Register(NodeType{
		Name: "Countdown", Kind: Leaf,
		Params: []Param{{Name: "key", Type: TKey, Required: true}, {Name: "reset", Type: TNumber, Required: true}},
		New: func(b *Builder) Behavior {
			return &countdown{key: b.KeyParam("key"), reset: b.Number("reset").V}
		},
	})
	return r
}

// referenceDoc is the part of the reference mission the benchmarks use.
type referenceDoc struct {
	Blackboard map[string]any      `json:"blackboard"`
	Main       string              `json:"main"`
	Trees      map[string]*NodeDef `json:"trees"`
}

func readReferenceDoc(tb testing.TB) referenceDoc {
	tb.Helper()
	data, err := os.ReadFile("testdata/reference-tree.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc referenceDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		tb.Fatal(err)
	}
	return doc
}

func loadReferenceTree(tb testing.TB) *Tree { return loadReferenceTreeMode(tb, Reactive) }

func loadReferenceTreeMode(tb testing.TB, eval Evaluation) *Tree {
	tb.Helper()
	doc := readReferenceDoc(tb)
	t, err := benchRegistry().Compile(&Spec{Trees: doc.Trees, Main: doc.Main, Blackboard: doc.Blackboard, Evaluation: eval})
	if err != nil {
		tb.Fatal(err)
	}
	if t.Len() != 100 {
		tb.Fatalf("reference tree has %d nodes, want 100", t.Len())
	}
	return t
}

type visitCounter struct{ ticks int }

func (v *visitCounter) OnNode(_ *Agent, _ int32, ev Event, _ Status) {
	if ev == EventTick {
		v.ticks++
	}
}

// checkReferencePattern asserts BENCH-TREE.md's visit counts and root
// statuses over two laps before anything is timed.
func checkReferencePattern(tb testing.TB, t *Tree) {
	tb.Helper()
	a := NewAgent(t, 0, 0)
	vc := &visitCounter{}
	a.SetObserver(vc)
	for lap := 0; lap < 2; lap++ {
		vc.ticks = 0
		for k := 1; k <= refLap; k++ {
			st := a.Tick(int64(lap*refLap+k) * 50e6)
			want := Running
			if k == refLap {
				want = Success
			}
			if st != want {
				tb.Fatalf("lap %d tick %d: root %v, want %v", lap, k, st, want)
			}
		}
		if vc.ticks != refVisitsPerLap {
			tb.Fatalf("lap %d: %d node visits, want %d (%.2f per tick)", lap, vc.ticks, refVisitsPerLap, refNodesPerTick)
		}
	}
}

func TestReferenceTreePattern(t *testing.T) {
	checkReferencePattern(t, loadReferenceTree(t))
}

func TestReferenceTreeAllocatesNothing(t *testing.T) {
	tree := loadReferenceTree(t)
	a := NewAgent(tree, 0, 0)
	now := int64(0)
	if n := testing.AllocsPerRun(500, func() { now += 50e6; a.Tick(now) }); n != 0 {
		t.Fatalf("%v allocations per tick, want 0", n)
	}
	a.SetObserver(&visitCounter{})
	if n := testing.AllocsPerRun(500, func() { now += 50e6; a.Tick(now) }); n != 0 {
		t.Fatalf("%v allocations per tick with an observer, want 0", n)
	}
}

func benchTick(b *testing.B, obs Observer) {
	tree := loadReferenceTree(b)
	checkReferencePattern(b, tree)
	a := NewAgent(tree, 0, 0)
	if obs != nil {
		a.SetObserver(obs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	now := int64(0)
	for i := 0; i < b.N; i++ {
		now += 50e6
		a.Tick(now)
	}
	b.StopTimer()
	nsPerTick := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(refNodesPerTick, "nodes/tick")
	b.ReportMetric(nsPerTick/refNodesPerTick, "ns/node")
}

// BenchmarkTickReference ticks one agent on the reference tree.
func BenchmarkTickReference(b *testing.B) { benchTick(b, nil) }

// BenchmarkTickReferenceStoredState ticks the reference tree in
// stored-state evaluation (completed guards are skipped until the lap ends).
func BenchmarkTickReferenceStoredState(b *testing.B) {
	tree := loadReferenceTreeMode(b, StoredState)
	a := NewAgent(tree, 0, 0)
	vc := &visitCounter{}
	a.SetObserver(vc)
	now := int64(0)
	for k := 0; k < refLap; k++ {
		now += 50e6
		a.Tick(now)
	}
	visits := float64(vc.ticks) / refLap
	a.SetObserver(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now += 50e6
		a.Tick(now)
	}
	b.StopTimer()
	b.ReportMetric(visits, "nodes/tick")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/visits, "ns/node")
}

// BenchmarkTickReferenceObserver does the same with an observer attached.
func BenchmarkTickReferenceObserver(b *testing.B) { benchTick(b, &visitCounter{}) }

func benchAgents(b *testing.B, n int) {
	tree := loadReferenceTree(b)
	checkReferencePattern(b, tree)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	agents := make([]*Agent, n)
	for i := range agents {
		agents[i] = NewAgent(tree, i, 0)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perAgent := float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	b.ReportAllocs()
	b.ResetTimer()
	now := int64(0)
	for i := 0; i < b.N; i++ {
		now += 50e6
		for _, a := range agents {
			a.Tick(now)
		}
	}
	b.StopTimer()
	nsPerAgentTick := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(n)
	b.ReportMetric(nsPerAgentTick, "ns/agent-tick")
	b.ReportMetric(nsPerAgentTick/refNodesPerTick, "ns/node")
	b.ReportMetric(perAgent, "heap-B/agent")
	b.ReportMetric(float64(tree.MemoryBytes()), "block-B/agent")
	runtime.KeepAlive(agents)
}

// BenchmarkTickAgents1000 ticks 1,000 agents sharing the reference tree.
func BenchmarkTickAgents1000(b *testing.B) { benchAgents(b, 1000) }

// BenchmarkTickAgents10000 ticks 10,000 agents sharing the reference tree.
func BenchmarkTickAgents10000(b *testing.B) { benchAgents(b, 10000) }
