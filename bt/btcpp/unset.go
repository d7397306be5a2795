package btcpp

import "github.com/botd-project/botd/bt"

var unsetType = bt.NodeType{
	Name: "UnsetBlackboard", Kind: bt.Leaf, Category: "action",
	Doc:    "As in BehaviorTree.CPP: removes `key` from the blackboard; SUCCESS.",
	Params: []bt.Param{{Name: "key", Type: bt.TString, Required: true, Doc: "the key to remove (\"key\" or \"{key}\")"}},
	New:    func(b *bt.Builder) bt.Behavior { return unset{key: b.PortKey("key")} },
}

type unset struct{ key bt.Slot }

func (u unset) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	if u.key == bt.NoSlot {
		a.Emit(n.Index, "error", "UnsetBlackboard: no key given")
		return bt.Error
	}
	a.BB.Delete(u.key)
	return bt.Success
}
