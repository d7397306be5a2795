package bt

var persistentSequenceType = NodeType{
	Name: "PersistentSequence", Kind: Composite,
	Doc: "As in Nav2: a sequence that keeps the child to resume at on the blackboard (`current_child_idx`, read and written on " +
		"every tick), so it survives the node and the tree being restarted; a FAILURE or the last success sets it back to 0. " +
		"A missing index is ERROR (set it first, e.g. with Script `current_child_idx := 0`).",
	Params: []Param{{Name: "current_child_idx", Type: TString, Required: true, Doc: "the key holding the index (\"{key}\")"}},
	New:    func(b *Builder) Behavior { return persistentSequence{idx: b.portKey("current_child_idx")} },
}

type persistentSequence struct{ idx Slot }

func (p persistentSequence) Tick(a *Agent, n *Node) Status {
	if p.idx == NoSlot {
		a.Emit(n.Index, "error", "PersistentSequence: current_child_idx: no key given")
		return Error
	}
	v, ok := a.BB.Number(p.idx)
	if !ok || v < 0 || v != float64(int(v)) {
		a.Emit(n.Index, "error", "PersistentSequence: current_child_idx: "+a.NumProblem(Num{Slot: p.idx}, "a child index (a whole number from 0)"))
		return Error
	}
	for i := int(v); i < len(n.Children); i++ {
		switch st := a.Exec(n.Children[i]); st {
		case Success:
			a.BB.SetNumber(p.idx, float64(i+1))
		case Failure:
			a.BB.SetNumber(p.idx, 0)
			return st
		default:
			return st
		}
	}
	a.BB.SetNumber(p.idx, 0)
	return Success
}
