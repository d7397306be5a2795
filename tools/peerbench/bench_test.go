package peerbench

import (
	"runtime"
	"testing"
)

// engine makes uncounted agents of one engine for the benchmarks.
type engine struct {
	name     string
	newAgent func(tb testing.TB, r *Reference) func(id int) ticker
}

var engines = []engine{
	{"botd", func(tb testing.TB, r *Reference) func(int) ticker {
		return func(id int) ticker { return r.NewBotdAgent(id) }
	}},
	{"gobt", func(tb testing.TB, r *Reference) func(int) ticker {
		return func(int) ticker {
			a, err := r.NewGoBTAgent(nil)
			if err != nil {
				tb.Fatal(err)
			}
			return a
		}
	}},
	{"b3", func(tb testing.TB, r *Reference) func(int) ticker {
		tree, err := r.NewB3Tree(false)
		if err != nil {
			tb.Fatal(err)
		}
		return func(int) ticker { return tree.NewAgent() }
	}},
}

// benchOne ticks one agent: ns/op is ns per tick.
func benchOne(b *testing.B, e engine) {
	r := loadReference(b)
	newAgent := e.newAgent(b, r)
	checkStatuses(b, e.name, newAgent(0))
	a := newAgent(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Tick()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/VisitsPerTick, "ns/visit")
}

// benchAgents ticks n agents once each per op (allocs/op and B/op are for
// all n; allocs/agent-tick and B/agent-tick divide them). Live heap per agent is
// measured twice: right after creating the agents, and after one lap of
// ticks (engines that keep node memory in maps or closures grow it as
// nodes first run; botd allocates everything up front).
func benchAgents(b *testing.B, e engine, n int) {
	r := loadReference(b)
	newAgent := e.newAgent(b, r)
	checkStatuses(b, e.name, newAgent(0))
	var before, created, lapped runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	agents := make([]ticker, n)
	for i := range agents {
		agents[i] = newAgent(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&created)
	for range Lap {
		for _, a := range agents {
			a.Tick()
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&lapped)
	var start, end runtime.MemStats
	runtime.ReadMemStats(&start)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, a := range agents {
			a.Tick()
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&end)
	agentTicks := float64(b.N) * float64(n)
	b.ReportMetric(float64(end.Mallocs-start.Mallocs)/agentTicks, "allocs/agent-tick")
	b.ReportMetric(float64(end.TotalAlloc-start.TotalAlloc)/agentTicks, "B/agent-tick")
	nsPerAgentTick := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(n)
	b.ReportMetric(nsPerAgentTick, "ns/agent-tick")
	b.ReportMetric(nsPerAgentTick/VisitsPerTick, "ns/visit")
	b.ReportMetric(float64(int64(created.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "new-B/agent")
	b.ReportMetric(float64(int64(lapped.HeapAlloc)-int64(before.HeapAlloc))/float64(n), "heap-B/agent")
	runtime.KeepAlive(agents)
}

// BenchmarkOne/<engine> ticks one agent on the reference tree.
func BenchmarkOne(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) { benchOne(b, e) })
	}
}

// BenchmarkAgents1000/<engine> ticks 1,000 agents; ns/op is per tick of
// all of them.
func BenchmarkAgents1000(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) { benchAgents(b, e, 1000) })
	}
}

// BenchmarkAgents10000/<engine> ticks 10,000 agents.
func BenchmarkAgents10000(b *testing.B) {
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) { benchAgents(b, e, 10000) })
	}
}
