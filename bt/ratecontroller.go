package bt

import (
	"math"
	"time"
)

var rateControllerType = NodeType{
	Name: "RateController", Kind: Decorator, ChildReset: ChildResetNever,
	Doc: "As in Nav2: when it starts afresh it ticks the child at once; afterwards it ticks the child while the child runs, and " +
		"otherwise only once 1/`hz` seconds have passed since the child last succeeded (or since it started afresh), returning RUNNING " +
		"in between. It starts afresh when Nav2 would find its status reset: after a halt, or when its parent restarted (see MISSIONS.md). " +
		"As in Nav2, `hz` 0 (or one so small that the period passes 290 years) ticks the child when it starts afresh and then only while it runs.",
	Params: []Param{{Name: "hz", Type: TNumber, Default: 10.0, Min: Float(0), Unit: "Hz", Doc: "rate"}},
	New: func(b *Builder) Behavior {
		return &rateController{hz: b.Number("hz"), mem: Reserve[rateMem](b)}
	},
}

type rateController struct {
	hz  Num
	mem Mem[rateMem]
}

// rateMem is a rate-limiting decorator's per-agent memory.
type rateMem struct {
	held   HeldMem
	start  int64 // clock ns
	period int64 // ns
	first  bool
}

func (r *rateController) Tick(a *Agent, n *Node) Status {
	m := r.mem.Of(a, n)
	if !a.HeldStatus(n, &m.held) {
		hz, ok := r.hz.Get(a)
		if !ok || hz < 0 || math.IsNaN(hz) {
			a.Emit(n.Index, "error", "RateController: hz: "+a.NumProblem(r.hz, "a rate of 0 Hz or more"))
			return Error
		}
		m.period = ratePeriod(hz)
		m.start, m.first = a.Now(), true
	}
	child := n.Children[0]
	if !m.first && !a.IsOpen(child) && a.Now()-m.start < m.period {
		return Running
	}
	m.first = false
	st := a.Exec(child)
	if st == Success {
		m.start = a.Now()
	}
	return st
}

// ratePeriod is the period of a rate in clock ns: Nav2's 1/hz seconds,
// with hz 0 (Nav2: an infinite period) and periods beyond the clock's range
// held at the longest one.
func ratePeriod(hz float64) int64 {
	p := float64(time.Second) / hz
	if math.IsInf(p, 0) || p >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(p)
}
