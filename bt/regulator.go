package bt

var regulatorType = NodeType{
	Name: "Regulator", Kind: Decorator,
	Doc: "While its child is running, ticks it every tick. When the child is not running, starts it again only if 1/`hz` seconds " +
		"have passed since it last started (kept per agent across activations); otherwise returns the child's last completed status without ticking it.",
	Params: []Param{{Name: "hz", Type: TNumber, Required: true, Min: Float(0.000001), Unit: "Hz", Doc: "highest start rate"}},
	New: func(b *Builder) Behavior {
		return &regulator{hz: b.Number("hz"), mem: Reserve[regulatorMem](b)}
	},
}

type regulator struct {
	hz  Num
	mem Mem[regulatorMem]
}

// regulatorMem is a Regulator's per-agent memory, kept across activations.
type regulatorMem struct {
	lastStart int64  // when the child last started, clock ns
	started   bool   // whether the child ever started
	last      Status // the child's last completed status
}

func (r *regulator) Tick(a *Agent, n *Node) Status {
	m := r.mem.Of(a, n)
	child := n.Children[0]
	if !a.IsOpen(child) {
		hz, ok := r.hz.Get(a)
		if !ok || hz <= 0 {
			a.Emit(n.Index, "error", "Regulator: hz: "+a.NumProblem(r.hz, "a rate over 0 Hz"))
			return Error
		}
		period := RatePeriod(hz)
		if m.started && a.Now()-m.lastStart < period {
			if m.last != Idle {
				return m.last
			}
			return Running
		}
		m.lastStart, m.started = a.Now(), true
	}
	st := a.Exec(child)
	if st != Running {
		m.last = st
	}
	return st
}
