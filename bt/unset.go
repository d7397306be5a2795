package bt

import "strings"

var unsetType = NodeType{
	Name: "UnsetBlackboard", Kind: Leaf, Category: "action",
	Doc:    "As in BehaviorTree.CPP: removes `key` from the blackboard; SUCCESS.",
	Params: []Param{{Name: "key", Type: TString, Required: true, Doc: "the key to remove (\"key\" or \"{key}\")"}},
	New:    func(b *Builder) Behavior { return unset{key: b.portKey("key")} },
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

// portKey reads a parameter naming a blackboard key the way BT.CPP writes
// an entry name: "key" or "{key}". It reports a malformed name.
func (b *Builder) portKey(name string) Slot {
	raw, ok := b.Raw(name)
	if !ok {
		return NoSlot
	}
	s, _ := raw.(string)
	if k, ref := RefKey(s); ref {
		s = k
	}
	s = strings.TrimPrefix(s, "@")
	if msg := checkKey(s); msg != "" {
		b.Errorf(name, "%s", msg)
		return NoSlot
	}
	return b.Key(s)
}
