package catalog

import (
	"testing"

	"github.com/botd-project/botd/bt"
)

// memoryNodesTree runs, forever, a Parallel of branches that use every
// built-in keeping per-agent memory words, each completing within a few
// ticks so that opens, closes and halts happen all the time.
func memoryNodesTree() *bt.NodeDef {
	wait := func(ms int) *bt.NodeDef { return nd("Wait", "", kv{"ms": ms}) }
	ok := func() *bt.NodeDef { return nd("Succeed", "", nil) }
	fail := func() *bt.NodeDef { return nd("Fail", "", nil) }
	return nd("Repeater", "", nil,
		nd("Parallel", "", kv{"success": -1, "failure": -1},
			nd("Timeout", "", kv{"ms": 1000}, wait(100)),
			nd("Delay", "", kv{"ms": 50}, ok()),
			nd("RoundRobin", "", nil, fail(), ok()),
			nd("RecoveryNode", "", kv{"retries": 2}, fail(), ok()),
			nd("MemSequence", "", nil, wait(30), ok()),
			nd("MemPriority", "", nil, fail(), wait(20)),
			nd("PipelineSequence", "", nil, ok(), wait(20)),
			nd("Regulator", "", kv{"hz": 10}, ok()),
			nd("Limiter", "", kv{"max": 1e9}, ok()),
			nd("Cooldown", "", kv{"ms": 60}, ok()),
			nd("RunOnce", "", nil, ok()),
			nd("RandomSequence", "", nil, ok(), wait(10), ok()),
			nd("Gate", "", nil, wait(40)),
			nd("Barrier", "", kv{"count": 1}),
			nd("RepeatUntilFailure", "", kv{"count": 3}, ok())))
}

// BenchmarkTickMemoryNodes ticks one agent on memoryNodesTree every 10 ms.
func BenchmarkTickMemoryNodes(b *testing.B) {
	tree := compileTree(b, memoryNodesTree())
	a := bt.NewAgent(tree, 0, 0)
	now := int64(0)
	step := func() { now += 10 * ms; a.Tick(now) }
	for range 100 {
		step()
	}
	if n := testing.AllocsPerRun(100, step); n != 0 {
		b.Fatalf("%v allocations per tick, want 0", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
}
