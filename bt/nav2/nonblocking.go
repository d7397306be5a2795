package nav2

import "github.com/botd-project/botd/bt"

var nonblockingSequenceType = bt.NodeType{
	Name: "NonblockingSequence", Kind: bt.Composite,
	Doc: "As in Nav2: ticks every child on every tick, those that succeeded before too; FAILURE as soon as one fails, SUCCESS " +
		"when all succeed in one tick, RUNNING otherwise.",
	New: func(*bt.Builder) bt.Behavior { return nonblockingSequence{} },
}

type nonblockingSequence struct{}

func (nonblockingSequence) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	all := true
	for _, c := range n.Children {
		switch st := a.Exec(c); st {
		case bt.Success:
		case bt.Running:
			all = false
		default:
			return st
		}
	}
	if all {
		return bt.Success
	}
	return bt.Running
}
