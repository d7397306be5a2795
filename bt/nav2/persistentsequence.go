package nav2

import "github.com/botd-project/botd/bt"

var persistentSequenceType = bt.NodeType{
	Name: "PersistentSequence", Kind: bt.Composite,
	Doc: "As in Nav2: a sequence that keeps the child to resume at on the blackboard (`current_child_idx`, read and written on " +
		"every tick), so it survives the node and the tree being restarted; a FAILURE or the last success sets it back to 0. " +
		"A missing index is ERROR (set it first, e.g. with Script `current_child_idx := 0`).",
	Params: []bt.Param{{Name: "current_child_idx", Type: bt.TString, Required: true, Doc: "the key holding the index (\"{key}\")"}},
	New:    func(b *bt.Builder) bt.Behavior { return persistentSequence{idx: b.PortKey("current_child_idx")} },
}

type persistentSequence struct{ idx bt.Slot }

func (p persistentSequence) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	if p.idx == bt.NoSlot {
		a.Emit(n.Index, "error", "PersistentSequence: current_child_idx: no key given")
		return bt.Error
	}
	v, ok := a.BB.Number(p.idx)
	if !ok || v < 0 || v != float64(int(v)) {
		a.Emit(n.Index, "error", "PersistentSequence: current_child_idx: "+a.NumProblem(bt.Num{Slot: p.idx}, "a child index (a whole number from 0)"))
		return bt.Error
	}
	for i := int(v); i < len(n.Children); i++ {
		switch st := a.Exec(n.Children[i]); st {
		case bt.Success:
			a.BB.SetNumber(p.idx, float64(i+1))
		case bt.Failure:
			a.BB.SetNumber(p.idx, 0)
			return st
		default:
			return st
		}
	}
	a.BB.SetNumber(p.idx, 0)
	return bt.Success
}
