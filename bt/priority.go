package bt

var priorityType = NodeType{
	Name: "Priority", Aliases: []string{"Selector", "ReactiveFallback"}, Kind: Composite, SkipsPass: true,
	Doc: "Each tick starts at the first child; returns the first status that is not FAILURE; FAILURE when all fail.",
	New: func(*Builder) Behavior { return priority{} },
}

type priority struct{}

func (priority) Tick(a *Agent, n *Node) Status { return tickPriority(a, n) }

func tickPriority(a *Agent, n *Node) Status {
	skipped := 0
	for _, c := range n.Children {
		if st := a.Exec(c); st != Failure {
			if st == Skipped {
				skipped++
				continue
			}
			return st
		}
	}
	if skipped == len(n.Children) {
		return Skipped
	}
	return Failure
}
