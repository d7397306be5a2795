package bt

import "time"

var regulatorType = NodeType{
	Name: "Regulator", Aliases: []string{"RateController"}, Kind: Decorator,
	Doc: "While its child is running, ticks it every tick. When the child is not running, starts it again only if 1/`hz` seconds " +
		"have passed since it last started (kept per agent across activations); otherwise returns the child's last completed status without ticking it.",
	Params: []Param{{Name: "hz", Type: TNumber, Required: true, Min: Float(0.000001), Unit: "Hz", Doc: "highest start rate"}},
	New: func(b *Builder) Behavior {
		b.Words(3)
		return &regulator{hz: b.Number("hz")}
	},
}

// regulator words: last start time, whether it ever started, the child's
// last completed status.
type regulator struct {
	hz Num
}

func (r *regulator) Tick(a *Agent, n *Node) Status {
	m := a.Mem(n)
	child := n.Children[0]
	if !a.IsOpen(child) {
		hz, ok := r.hz.Get(a)
		if !ok || hz <= 0 {
			return Error
		}
		period := int64(float64(time.Second) / hz)
		if m[1] != 0 && a.Now()-int64(m[0]) < period {
			if last := Status(m[2]); last != Idle {
				return last
			}
			return Running
		}
		m[0], m[1] = uint64(a.Now()), 1
	}
	st := a.Exec(child)
	if st != Running {
		m[2] = uint64(st)
	}
	return st
}
