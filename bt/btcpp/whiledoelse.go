package btcpp

import "github.com/botd-project/botd/bt"

var whileDoElseType = bt.NodeType{
	Name: "WhileDoElse", Kind: bt.Composite, MinChildren: 2, MaxChildren: 3,
	Doc: "As in BehaviorTree.CPP: ticks the first child (the condition) on every tick; while it succeeds ticks the second child, " +
		"while it fails the third (FAILURE when there are only two), and returns that child's status. A branch that is no longer " +
		"selected is halted (at the end of the tick, by botd's halt rule). A RUNNING condition makes it RUNNING.",
	New: func(*bt.Builder) bt.Behavior { return whileDoElse{} },
}

type whileDoElse struct{}

func (whileDoElse) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	switch st := a.Exec(n.Children[0]); st {
	case bt.Success:
		return a.Exec(n.Children[1])
	case bt.Failure:
		if len(n.Children) < 3 {
			return bt.Failure
		}
		return a.Exec(n.Children[2])
	default:
		return st
	}
}
