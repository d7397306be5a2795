package bt

var whileDoElseType = NodeType{
	Name: "WhileDoElse", Kind: Composite, MinChildren: 2, MaxChildren: 3,
	Doc: "As in BehaviorTree.CPP: ticks the first child (the condition) on every tick; while it succeeds ticks the second child, " +
		"while it fails the third (FAILURE when there are only two), and returns that child's status. A branch that is no longer " +
		"selected is halted (at the end of the tick, by botd's halt rule). A RUNNING condition makes it RUNNING.",
	New: func(*Builder) Behavior { return whileDoElse{} },
}

type whileDoElse struct{}

func (whileDoElse) Tick(a *Agent, n *Node) Status {
	switch st := a.Exec(n.Children[0]); st {
	case Success:
		return a.Exec(n.Children[1])
	case Failure:
		if len(n.Children) < 3 {
			return Failure
		}
		return a.Exec(n.Children[2])
	default:
		return st
	}
}
