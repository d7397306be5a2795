package btcpp

import "github.com/botd-project/botd/bt"

var ifThenElseType = bt.NodeType{
	Name: "IfThenElse", KeepsProgress: true, Kind: bt.Composite, MinChildren: 2, MaxChildren: 3,
	Doc: "As in BehaviorTree.CPP: ticks the first child (the condition) until it completes; on SUCCESS runs the second child, " +
		"on FAILURE the third (or returns FAILURE when there are only two), and returns that branch's status. " +
		"The condition is not ticked again while a branch runs.",
	New: func(b *bt.Builder) bt.Behavior { return ifThenElse{branch: bt.Reserve[int32](b)} },
}

// ifThenElse remembers the branch it runs (0: none yet, evaluating the
// condition).
type ifThenElse struct{ branch bt.Mem[int32] }

var _ bt.Opener = ifThenElse{}

func (s ifThenElse) Open(a *bt.Agent, n *bt.Node) { *s.branch.Of(a, n) = 0 }

func (s ifThenElse) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	branch := s.branch.Of(a, n)
	if *branch == 0 {
		switch st := a.Exec(n.Children[0]); st {
		case bt.Success:
			*branch = 1
		case bt.Failure:
			if len(n.Children) < 3 {
				return bt.Failure
			}
			*branch = 2
		default:
			return st
		}
	}
	return a.Exec(n.Children[*branch])
}
