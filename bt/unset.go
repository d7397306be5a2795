package bt

var unsetType = NodeType{
	Name: "UnsetBlackboard", Kind: Leaf, Category: "action",
	Doc:    "As in BehaviorTree.CPP: removes `key` from the blackboard; SUCCESS.",
	Params: []Param{{Name: "key", Type: TString, Required: true, Doc: "the key to remove (\"key\" or \"{key}\")"}},
	New:    func(b *Builder) Behavior { return unset{key: b.PortKey("key")} },
}

type unset struct{ key Slot }

func (u unset) Tick(a *Agent, n *Node) Status {
	if u.key == NoSlot {
		a.Emit(n.Index, "error", "UnsetBlackboard: no key given")
		return Error
	}
	a.BB.Delete(u.key)
	return Success
}
