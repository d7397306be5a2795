package bt

import "time"

var rateControllerType = NodeType{
	Name: "RateController", Kind: Decorator, childReset: resetNever,
	Doc: "As in Nav2: when it starts afresh it ticks the child at once; afterwards it ticks the child while the child runs, and " +
		"otherwise only once 1/`hz` seconds have passed since the child last succeeded (or since it started afresh), returning RUNNING " +
		"in between. It starts afresh when Nav2 would find its status reset: after a halt, or when its parent restarted (see MISSIONS.md).",
	Params: []Param{{Name: "hz", Type: TNumber, Default: 10.0, Min: Float(0.000001), Unit: "Hz", Doc: "rate"}},
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
	held   heldMem
	start  int64 // clock ns
	period int64 // ns
	first  bool
}

func (r *rateController) Tick(a *Agent, n *Node) Status {
	m := r.mem.Of(a, n)
	if !a.heldStatus(n, &m.held) {
		hz, ok := r.hz.Get(a)
		if !ok || hz <= 0 {
			return Error
		}
		m.period = int64(float64(time.Second) / hz)
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
