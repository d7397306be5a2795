package bt

var monitorType = NodeType{
	Name: "Monitor", Kind: Decorator,
	Doc: "In stored-state evaluation, a guard re-evaluated at the start of every tick once it has been reached: when it succeeds " +
		"the tree is interrupted (every open node halted, stored statuses cleared) and evaluated from the root; when it errs the tick " +
		"returns ERROR. In reactive evaluation, passes its child's status through.",
	New: func(b *Builder) Behavior { b.Words(1); return monitor{} },
}

// monitor's word says whether it is registered for the agent (stored-state
// evaluation); Agent.Tick evaluates registered monitors first.
type monitor struct{}

func (monitor) Tick(a *Agent, n *Node) Status {
	if a.stored {
		a.Mem(n)[0] = 1
	}
	return a.Exec(n.Children[0])
}
