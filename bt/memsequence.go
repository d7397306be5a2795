package bt

var memSequenceType = NodeType{
	Name: "MemSequence", KeepsProgress: true, Kind: Composite, SkipsPass: true,
	Doc: "Like Sequence, but a tick resumes at the child that was RUNNING. Resets to the first child when it opens.",
	New: func(b *Builder) Behavior { return memSequence{mem: Reserve[memMem](b)} },
}

var memPriorityType = NodeType{
	Name: "MemPriority", KeepsProgress: true, Aliases: []string{"MemFallback", "Fallback", "FallbackStar"}, Kind: Composite, SkipsPass: true,
	Doc: "Like Priority, resuming at the RUNNING child. Resets to the first child when it opens.",
	New: func(b *Builder) Behavior { return memPriority{mem: Reserve[memMem](b)} },
}

// memMem is the child to resume at and how many children skipped in
// this activation (BT.CPP's skipped_count_).
type memMem struct{ resume, skipped int }

// memSequence keeps the index of the child to resume at.
type memSequence struct{ mem Mem[memMem] }

var _ Opener = memSequence{}

func (s memSequence) Open(a *Agent, n *Node) { *s.mem.Of(a, n) = memMem{} }

func (s memSequence) Tick(a *Agent, n *Node) Status {
	return tickMem(a, n, s.mem.Of(a, n), Success)
}

// tickMem ticks the children from the one to resume at while they return
// pass (SUCCESS for a sequence, FAILURE for a fallback) or SKIPPED.
func tickMem(a *Agent, n *Node, m *memMem, pass Status) Status {
	for i := m.resume; i < len(n.Children); i++ {
		st := a.Exec(n.Children[i])
		if st == Skipped {
			m.skipped++
			continue
		}
		if st != pass {
			m.resume = i
			return st
		}
	}
	if m.skipped == len(n.Children) {
		return Skipped
	}
	return pass
}

// memPriority keeps the index of the child to resume at.
type memPriority struct{ mem Mem[memMem] }

var _ Opener = memPriority{}

func (p memPriority) Open(a *Agent, n *Node) { *p.mem.Of(a, n) = memMem{} }

func (p memPriority) Tick(a *Agent, n *Node) Status {
	return tickMem(a, n, p.mem.Of(a, n), Failure)
}
