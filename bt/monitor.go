package bt

var monitorType = NodeType{
	Name: "Monitor", Kind: Decorator,
	Doc: "In stored-state evaluation, a guard re-evaluated at the start of every tick once it has been reached: when it succeeds " +
		"the tree is interrupted (every open node halted, stored statuses cleared) and evaluated from the root; when it errs the tick " +
		"returns ERROR. In reactive evaluation, passes its child's status through.",
	New: func(b *Builder) Behavior { return monitor{registered: Reserve[bool](b)} },
}

// monitor's memory says whether it is registered for the agent
// (stored-state evaluation); Agent.Tick evaluates registered monitors
// first.
type monitor struct{ registered Mem[bool] }

// monitorRef is a Monitor node of a tree and its memory.
type monitorRef struct {
	node       int32
	registered Mem[bool]
}

func (m monitor) Tick(a *Agent, n *Node) Status {
	if a.stored {
		*m.registered.Of(a, n) = true
	}
	return a.Exec(n.Children[0])
}
