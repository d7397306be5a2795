package bt

var runOnceType = NodeType{
	Name: "RunOnce", Kind: Decorator,
	Doc: "Runs the child until it completes once with SUCCESS or FAILURE; afterwards returns that status for the rest of the mission " +
		"without ticking it (an ERROR is returned but not remembered).",
	New: func(b *Builder) Behavior { b.Words(1); return runOnce{} },
}

type runOnce struct{}

func (runOnce) Tick(a *Agent, n *Node) Status {
	m := a.Mem(n)
	if m[0] != 0 {
		return Status(m[0])
	}
	st := a.Exec(n.Children[0])
	if st == Success || st == Failure {
		m[0] = uint64(st)
	}
	return st
}
