package bt

var sequenceType = NodeType{
	Name: "Sequence", Aliases: []string{"ReactiveSequence"}, Kind: Composite, SkipsPass: true,
	Doc: "Each tick starts at the first child; returns the first status that is not SUCCESS; SUCCESS when all succeed.",
	New: func(*Builder) Behavior { return sequence{} },
}

type sequence struct{}

func (sequence) Tick(a *Agent, n *Node) Status { return tickSequence(a, n) }

func tickSequence(a *Agent, n *Node) Status {
	skipped := 0
	for _, c := range n.Children {
		if st := a.Exec(c); st != Success {
			if st == Skipped {
				skipped++
				continue
			}
			return st
		}
	}
	if skipped == len(n.Children) {
		return Skipped
	}
	return Success
}
