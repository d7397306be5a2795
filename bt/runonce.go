package bt

var runOnceType = NodeType{
	Name: "RunOnce", Kind: Decorator,
	Doc: "Runs the child until it completes once with SUCCESS or FAILURE; afterwards returns that status for the rest of the mission " +
		"without ticking it (an ERROR is returned but not remembered).",
	New: func(b *Builder) Behavior { return runOnce{result: Reserve[Status](b)} },
}

// runOnce keeps the child's first SUCCESS or FAILURE (Idle until then).
type runOnce struct{ result Mem[Status] }

func (r runOnce) Tick(a *Agent, n *Node) Status {
	result := r.result.Of(a, n)
	if *result != Idle {
		return *result
	}
	st := a.Exec(n.Children[0])
	if st == Success || st == Failure {
		*result = st
	}
	return st
}
