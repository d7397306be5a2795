package nav2

import "github.com/botd-project/botd/bt"

var pipelineSequenceType = bt.NodeType{
	Name: "PipelineSequence", KeepsProgress: true, Kind: bt.Composite,
	Doc: "As in Nav2: ticks the first child until it succeeds, then the first and second until the second succeeds, and so on; " +
		"children that already succeeded are ticked again every tick. A failure fails the node; SUCCESS when the last child succeeds.",
	New: func(b *bt.Builder) bt.Behavior { return pipeline{furthest: bt.Reserve[int](b)} },
}

// pipeline keeps the furthest child that returned RUNNING.
type pipeline struct{ furthest bt.Mem[int] }

var _ bt.Opener = pipeline{}

func (p pipeline) Open(a *bt.Agent, n *bt.Node) { *p.furthest.Of(a, n) = 0 }

func (p pipeline) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	furthest := p.furthest.Of(a, n)
	for i, c := range n.Children {
		switch st := a.Exec(c); st {
		case bt.Success:
		case bt.Running:
			if i >= *furthest {
				*furthest = i
				return bt.Running
			}
		default:
			return st
		}
	}
	return bt.Success
}
