package btcpp

import "github.com/botd-project/botd/bt"

var seqWithMemoryType = bt.NodeType{
	Name: "SequenceWithMemory", KeepsProgress: true, Aliases: []string{"SequenceStar"}, Kind: bt.Composite, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: ticks the children in order, resuming at the child it stopped at; a FAILURE (or a halt) does not " +
		"rewind it, so the next activation starts again at the child that failed. It rewinds to the first child only when all have succeeded.",
	New: func(b *bt.Builder) bt.Behavior { return seqWithMemory{mem: bt.Reserve[memMem](b)} },
}

// seqWithMemory keeps the child to resume at across activations (the
// count of skipped children is per activation).
type seqWithMemory struct{ mem bt.Mem[memMem] }

var _ bt.Opener = seqWithMemory{}

func (s seqWithMemory) Open(a *bt.Agent, n *bt.Node) { s.mem.Of(a, n).skipped = 0 }

func (s seqWithMemory) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := s.mem.Of(a, n)
	for m.resume < len(n.Children) {
		st := a.Exec(n.Children[m.resume])
		switch st {
		case bt.Success:
		case bt.Skipped:
			m.skipped++
		default:
			return st
		}
		m.resume++
	}
	m.resume = 0
	if m.skipped == len(n.Children) {
		m.skipped = 0
		return bt.Skipped
	}
	m.skipped = 0
	return bt.Success
}
