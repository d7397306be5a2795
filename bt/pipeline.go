package bt

var pipelineSequenceType = NodeType{
	Name: "PipelineSequence", KeepsProgress: true, Kind: Composite,
	Doc: "As in Nav2: ticks the first child until it succeeds, then the first and second until the second succeeds, and so on; " +
		"children that already succeeded are ticked again every tick. A failure fails the node; SUCCESS when the last child succeeds.",
	New: func(b *Builder) Behavior { return pipeline{furthest: Reserve[int](b)} },
}

// pipeline keeps the furthest child that returned RUNNING.
type pipeline struct{ furthest Mem[int] }

var _ Opener = pipeline{}

func (p pipeline) Open(a *Agent, n *Node) { *p.furthest.Of(a, n) = 0 }

func (p pipeline) Tick(a *Agent, n *Node) Status {
	furthest := p.furthest.Of(a, n)
	for i, c := range n.Children {
		switch st := a.Exec(c); st {
		case Success:
		case Running:
			if i >= *furthest {
				*furthest = i
				return Running
			}
		default:
			return st
		}
	}
	return Success
}
