package bt

var memSequenceType = NodeType{
	Name: "MemSequence", Aliases: []string{"SequenceWithMemory", "SequenceStar"}, Kind: Composite,
	Doc: "Like Sequence, but a tick resumes at the child that was RUNNING. Resets to the first child when it opens.",
	New: func(b *Builder) Behavior { b.Words(1); return memSequence{} },
}

var memPriorityType = NodeType{
	Name: "MemPriority", Aliases: []string{"MemFallback", "FallbackStar"}, Kind: Composite,
	Doc: "Like Priority, resuming at the RUNNING child. Resets to the first child when it opens.",
	New: func(b *Builder) Behavior { b.Words(1); return memPriority{} },
}

// memSequence keeps the index of the running child in its one word.
type memSequence struct{}

func (memSequence) Open(a *Agent, n *Node) { a.Mem(n)[0] = 0 }

func (memSequence) Tick(a *Agent, n *Node) Status {
	m := a.Mem(n)
	for i := int(m[0]); i < len(n.Children); i++ {
		if st := a.Exec(n.Children[i]); st != Success {
			m[0] = uint64(i)
			return st
		}
	}
	return Success
}

type memPriority struct{}

func (memPriority) Open(a *Agent, n *Node) { a.Mem(n)[0] = 0 }

func (memPriority) Tick(a *Agent, n *Node) Status {
	m := a.Mem(n)
	for i := int(m[0]); i < len(n.Children); i++ {
		if st := a.Exec(n.Children[i]); st != Failure {
			m[0] = uint64(i)
			return st
		}
	}
	return Failure
}
