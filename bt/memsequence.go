package bt

var memSequenceType = NodeType{
	Name: "MemSequence", Kind: Composite,
	Doc: "Like Sequence, but a tick resumes at the child that was RUNNING. Resets to the first child when it opens.",
	New: func(b *Builder) Behavior { return memSequence{resume: Reserve[int](b)} },
}

var memPriorityType = NodeType{
	Name: "MemPriority", Aliases: []string{"MemFallback", "Fallback", "FallbackStar"}, Kind: Composite,
	Doc: "Like Priority, resuming at the RUNNING child. Resets to the first child when it opens.",
	New: func(b *Builder) Behavior { return memPriority{resume: Reserve[int](b)} },
}

// memSequence keeps the index of the child to resume at.
type memSequence struct{ resume Mem[int] }

var _ Opener = memSequence{}

func (s memSequence) Open(a *Agent, n *Node) { *s.resume.Of(a, n) = 0 }

func (s memSequence) Tick(a *Agent, n *Node) Status {
	resume := s.resume.Of(a, n)
	for i := *resume; i < len(n.Children); i++ {
		if st := a.Exec(n.Children[i]); st != Success {
			*resume = i
			return st
		}
	}
	return Success
}

// memPriority keeps the index of the child to resume at.
type memPriority struct{ resume Mem[int] }

var _ Opener = memPriority{}

func (p memPriority) Open(a *Agent, n *Node) { *p.resume.Of(a, n) = 0 }

func (p memPriority) Tick(a *Agent, n *Node) Status {
	resume := p.resume.Of(a, n)
	for i := *resume; i < len(n.Children); i++ {
		if st := a.Exec(n.Children[i]); st != Failure {
			*resume = i
			return st
		}
	}
	return Failure
}
