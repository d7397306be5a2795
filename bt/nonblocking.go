package bt

var nonblockingSequenceType = NodeType{
	Name: "NonblockingSequence", Kind: Composite,
	Doc: "As in Nav2: ticks every child on every tick, those that succeeded before too; FAILURE as soon as one fails, SUCCESS " +
		"when all succeed in one tick, RUNNING otherwise.",
	New: func(*Builder) Behavior { return nonblockingSequence{} },
}

type nonblockingSequence struct{}

func (nonblockingSequence) Tick(a *Agent, n *Node) Status {
	all := true
	for _, c := range n.Children {
		switch st := a.Exec(c); st {
		case Success:
		case Running:
			all = false
		default:
			return st
		}
	}
	if all {
		return Success
	}
	return Running
}
