package bt

var pipelineSequenceType = NodeType{
	Name: "PipelineSequence", Kind: Composite,
	Doc: "As in Nav2: ticks the first child until it succeeds, then the first and second until the second succeeds, and so on; " +
		"children that already succeeded are ticked again every tick. A failure fails the node; SUCCESS when the last child succeeds.",
	New: func(b *Builder) Behavior { b.Words(1); return pipeline{} },
}

// pipeline keeps the furthest child that returned RUNNING in its word.
type pipeline struct{}

func (pipeline) Open(a *Agent, n *Node) { a.Mem(n)[0] = 0 }

func (pipeline) Tick(a *Agent, n *Node) Status {
	m := a.Mem(n)
	for i, c := range n.Children {
		switch st := a.Exec(c); st {
		case Success:
		case Running:
			if uint64(i) >= m[0] {
				m[0] = uint64(i)
				return Running
			}
		default:
			return st
		}
	}
	return Success
}
