package bt

var keepRunningType = NodeType{
	Name: "KeepRunningUntilFailure", Kind: Decorator, SkipsAbsorb: true,
	Doc: "As in BehaviorTree.CPP: RUNNING while the child runs or succeeds (a child that succeeded starts again at the next tick); " +
		"FAILURE when the child fails.",
	New: func(*Builder) Behavior { return keepRunning{} },
}

type keepRunning struct{}

func (keepRunning) Tick(a *Agent, n *Node) Status {
	switch st := a.Exec(n.Children[0]); st {
	case Success, Skipped: // BT.CPP: anything but FAILURE keeps it running
		return Running
	default:
		return st
	}
}
