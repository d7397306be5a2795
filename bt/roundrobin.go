package bt

var roundRobinType = NodeType{
	Name: "RoundRobin", Kind: Composite,
	Doc: "As in Nav2: ticks one child at a time, moving to the next child (wrapping around) when one fails; " +
		"SUCCESS as soon as a child succeeds, FAILURE when every child has failed in turn. " +
		"The next activation starts at the child after the one that last succeeded.",
	New: func(b *Builder) Behavior { return roundRobin{mem: Reserve[roundRobinMem](b)} },
}

type roundRobin struct{ mem Mem[roundRobinMem] }

var (
	_ Opener = roundRobin{}
	_ Halter = roundRobin{}
)

// roundRobinMem is a RoundRobin's per-agent memory.
type roundRobinMem struct {
	child    int // the current child (kept across activations, like Nav2)
	failures int // failures in this activation
}

func (r roundRobin) Open(a *Agent, n *Node) { r.mem.Of(a, n).failures = 0 }

// Halt restarts at the first child, as Nav2's halt does.
func (r roundRobin) Halt(a *Agent, n *Node) { *r.mem.Of(a, n) = roundRobinMem{} }

func (r roundRobin) Tick(a *Agent, n *Node) Status {
	m := r.mem.Of(a, n)
	count := len(n.Children)
	for m.failures < count {
		st := a.Exec(n.Children[m.child])
		if st != Running {
			if m.child++; m.child == count {
				m.child = 0
			}
		}
		switch st {
		case Failure:
			m.failures++
		default: // SUCCESS, RUNNING, ERROR
			return st
		}
	}
	m.child = 0
	return Failure
}
