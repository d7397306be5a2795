package nav2

import (
	"math"

	"github.com/botd-project/botd/bt"
)

var rateControllerType = bt.NodeType{
	Name: "RateController", Kind: bt.Decorator, ChildReset: bt.ChildResetNever,
	Doc: "As in Nav2: when it starts afresh it ticks the child at once; afterwards it ticks the child while the child runs, and " +
		"otherwise only once 1/`hz` seconds have passed since the child last succeeded (or since it started afresh), returning RUNNING " +
		"in between. It starts afresh when Nav2 would find its status reset: after a halt, or when its parent restarted (see MISSIONS.md). " +
		"As in Nav2, `hz` 0 (or one so small that the period passes 290 years) ticks the child when it starts afresh and then only while it runs.",
	Params: []bt.Param{{Name: "hz", Type: bt.TNumber, Default: 10.0, Min: bt.Float(0), Unit: "Hz", Doc: "rate"}},
	New: func(b *bt.Builder) bt.Behavior {
		return &rateController{hz: b.Number("hz"), mem: bt.Reserve[rateMem](b)}
	},
}

type rateController struct {
	hz  bt.Num
	mem bt.Mem[rateMem]
}

// rateMem is a rate-limiting decorator's per-agent memory.
type rateMem struct {
	held   bt.HeldMem
	start  int64 // clock ns
	period int64 // ns
	first  bool
}

func (r *rateController) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := r.mem.Of(a, n)
	if !a.HeldStatus(n, &m.held) {
		hz, ok := r.hz.Get(a)
		if !ok || hz < 0 || math.IsNaN(hz) {
			a.Emit(n.Index, "error", "RateController: hz: "+a.NumProblem(r.hz, "a rate of 0 Hz or more"))
			return bt.Error
		}
		m.period = bt.RatePeriod(hz)
		m.start, m.first = a.Now(), true
	}
	child := n.Children[0]
	if !m.first && !a.IsOpen(child) && a.Now()-m.start < m.period {
		return bt.Running
	}
	m.first = false
	st := a.Exec(child)
	if st == bt.Success {
		m.start = a.Now()
	}
	return st
}
