package btcpp

import "github.com/botd-project/botd/bt"

var keepRunningType = bt.NodeType{
	Name: "KeepRunningUntilFailure", Kind: bt.Decorator, SkipsAbsorb: true,
	Doc: "As in BehaviorTree.CPP: RUNNING while the child runs or succeeds (a child that succeeded starts again at the next tick); " +
		"FAILURE when the child fails.",
	New: func(*bt.Builder) bt.Behavior { return keepRunning{} },
}

type keepRunning struct{}

func (keepRunning) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	switch st := a.Exec(n.Children[0]); st {
	case bt.Success, bt.Skipped: // BT.CPP: anything but FAILURE keeps it running
		return bt.Running
	default:
		return st
	}
}
