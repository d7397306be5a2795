package bt

var singleTriggerType = NodeType{
	Name: "SingleTrigger", Kind: Decorator, ChildReset: ChildResetNever,
	Doc: "As in Nav2: runs the child once, until it completes, and returns its status; after that returns FAILURE without ticking " +
		"it until it starts afresh (after a halt, or when its parent restarted).",
	New: func(b *Builder) Behavior { return &singleTrigger{mem: Reserve[singleMem](b)} },
}

type singleTrigger struct{ mem Mem[singleMem] }

type singleMem struct {
	held HeldMem
	done bool
}

func (s *singleTrigger) Tick(a *Agent, n *Node) Status {
	m := s.mem.Of(a, n)
	if !a.HeldStatus(n, &m.held) {
		m.done = false
	}
	if m.done {
		return Failure
	}
	st := a.Exec(n.Children[0])
	if st != Running {
		m.done = true
	}
	return st
}
