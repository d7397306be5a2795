package bt

var seqWithMemoryType = NodeType{
	Name: "SequenceWithMemory", Aliases: []string{"SequenceStar"}, Kind: Composite,
	Doc: "As in BehaviorTree.CPP: ticks the children in order, resuming at the child it stopped at; a FAILURE (or a halt) does not " +
		"rewind it, so the next activation starts again at the child that failed. It rewinds to the first child only when all have succeeded.",
	New: func(b *Builder) Behavior { return seqWithMemory{at: Reserve[int](b)} },
}

// seqWithMemory keeps the child to resume at across activations.
type seqWithMemory struct{ at Mem[int] }

func (s seqWithMemory) Tick(a *Agent, n *Node) Status {
	at := s.at.Of(a, n)
	for *at < len(n.Children) {
		if st := a.Exec(n.Children[*at]); st != Success {
			return st
		}
		*at++
	}
	*at = 0
	return Success
}
