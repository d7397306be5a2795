package bt

var roundRobinType = NodeType{
	Name: "RoundRobin", Kind: Composite,
	Doc: "As in Nav2: ticks one child at a time, moving to the next child (wrapping around) when one fails; " +
		"SUCCESS as soon as a child succeeds, FAILURE when every child has failed in turn. " +
		"The next activation starts at the child after the one that last succeeded.",
	New: func(b *Builder) Behavior { b.Words(2); return roundRobin{} },
}

// roundRobin keeps the current child (kept across activations, like Nav2)
// and the failures of this activation.
type roundRobin struct{}

func (roundRobin) Open(a *Agent, n *Node) { a.Mem(n)[1] = 0 }

// Halt restarts at the first child, as Nav2's halt does.
func (roundRobin) Halt(a *Agent, n *Node) { m := a.Mem(n); m[0], m[1] = 0, 0 }

func (roundRobin) Tick(a *Agent, n *Node) Status {
	m := a.Mem(n)
	count := uint64(len(n.Children))
	for m[1] < count {
		st := a.Exec(n.Children[m[0]])
		if st != Running {
			if m[0]++; m[0] == count {
				m[0] = 0
			}
		}
		switch st {
		case Failure:
			m[1]++
		default: // SUCCESS, RUNNING, ERROR
			return st
		}
	}
	m[0] = 0
	return Failure
}
