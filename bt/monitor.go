package bt

var monitorType = NodeType{
	Name: "Monitor", Kind: Decorator,
	Doc: "In stored-state evaluation, a guard re-evaluated at the start of every tick; when it succeeds the tree is interrupted. " +
		"In reactive evaluation, passes its child's status through.",
	New: func(*Builder) Behavior { return monitor{} },
}

type monitor struct{}

func (monitor) Tick(a *Agent, n *Node) Status { return a.Exec(n.Children[0]) }
