package nodes

import "github.com/botd-project/botd/bt"

var regulatorType = bt.NodeType{
	Name: "Regulator", Kind: bt.Decorator,
	Doc: "While its child is running, ticks it every tick. When the child is not running, starts it again only if 1/`hz` seconds " +
		"have passed since it last started (kept per agent across activations); otherwise returns the child's last completed status without ticking it.",
	Params: []bt.Param{{Name: "hz", Type: bt.TNumber, Required: true, Min: bt.Float(0.000001), Unit: "Hz", Doc: "highest start rate"}},
	New: func(b *bt.Builder) bt.Behavior {
		return &regulator{hz: b.Number("hz"), mem: bt.Reserve[regulatorMem](b)}
	},
}

type regulator struct {
	hz  bt.Num
	mem bt.Mem[regulatorMem]
}

// regulatorMem is a Regulator's per-agent memory, kept across activations.
type regulatorMem struct {
	lastStart int64     // when the child last started, clock ns
	started   bool      // whether the child ever started
	last      bt.Status // the child's last completed status
}

func (r *regulator) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := r.mem.Of(a, n)
	child := n.Children[0]
	if !a.IsOpen(child) {
		hz, ok := r.hz.Get(a)
		if !ok || hz <= 0 {
			a.Emit(n.Index, "error", "Regulator: hz: "+a.NumProblem(r.hz, "a rate over 0 Hz"))
			return bt.Error
		}
		period := bt.RatePeriod(hz)
		if m.started && a.Now()-m.lastStart < period {
			if m.last != bt.Idle {
				return m.last
			}
			return bt.Running
		}
		m.lastStart, m.started = a.Now(), true
	}
	st := a.Exec(child)
	if st != bt.Running {
		m.last = st
	}
	return st
}
