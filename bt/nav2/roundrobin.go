package nav2

import "github.com/botd-project/botd/bt"

var roundRobinType = bt.NodeType{
	Name: "RoundRobin", Kind: bt.Composite,
	Doc: "As in Nav2: ticks one child at a time, moving on to the next child when one completes; SUCCESS as soon as a child succeeds, " +
		"FAILURE when every child has failed in turn. The next activation starts at the child after the one that last completed. " +
		"Without `wrap_around` (Nav2's default) it does not go back to the first child: once the last child has completed it returns " +
		"FAILURE and starts again at the first child (Nav2 does so even when that last child succeeded).",
	Params: []bt.Param{{Name: "wrap_around", Type: bt.TBool, Default: false, Doc: "go on from the last child to the first"}},
	New: func(b *bt.Builder) bt.Behavior {
		v, _ := b.Raw("wrap_around")
		wrap, _ := v.(bool)
		return roundRobin{wrap: wrap, mem: bt.Reserve[roundRobinMem](b)}
	},
}

type roundRobin struct {
	wrap bool
	mem  bt.Mem[roundRobinMem]
}

var (
	_ bt.Opener = roundRobin{}
	_ bt.Halter = roundRobin{}
)

// roundRobinMem is a RoundRobin's per-agent memory.
type roundRobinMem struct {
	child    int // the current child (kept across activations, like Nav2)
	failures int // failures in this activation
}

func (r roundRobin) Open(a *bt.Agent, n *bt.Node) { r.mem.Of(a, n).failures = 0 }

// Halt restarts at the first child, as Nav2's halt does.
func (r roundRobin) Halt(a *bt.Agent, n *bt.Node) { *r.mem.Of(a, n) = roundRobinMem{} }

func (r roundRobin) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := r.mem.Of(a, n)
	count := len(n.Children)
	for m.failures < count {
		st := a.Exec(n.Children[m.child])
		if st != bt.Running {
			if m.child++; m.child == count {
				if !r.wrap {
					if st == bt.Error {
						*m = roundRobinMem{}
						return st
					}
					break
				}
				m.child = 0
			}
		}
		switch st {
		case bt.Success:
			m.failures = 0
			return st
		case bt.Running, bt.Error:
			return st
		}
		m.failures++
	}
	*m = roundRobinMem{}
	return bt.Failure
}
