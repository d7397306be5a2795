package bt

var priorityType = NodeType{
	Name: "Priority", Aliases: []string{"Selector", "ReactiveFallback"}, Kind: Composite,
	Doc: "Each tick starts at the first child; returns the first status that is not FAILURE; FAILURE when all fail.",
	New: func(*Builder) Behavior { return priority{} },
}

type priority struct{}

func (priority) Tick(a *Agent, n *Node) Status { return tickPriority(a, n) }

func tickPriority(a *Agent, n *Node) Status {
	for _, c := range n.Children {
		if st := a.Exec(c); st != Failure {
			return st
		}
	}
	return Failure
}
