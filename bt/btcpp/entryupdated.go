package btcpp

import "github.com/botd-project/botd/bt"

var entryUpdatedType = bt.NodeType{
	Name: "WasEntryUpdated", Aliases: []string{"EntryUpdated"}, Kind: bt.Leaf, Category: "condition",
	Doc: "As in BehaviorTree.CPP: SUCCESS when blackboard key `entry` was written since this node last looked (or, the first time, " +
		"when it holds a value), else FAILURE. botd tells writes apart by their time stamp: two writes in one tick count as one.",
	Params: []bt.Param{{Name: "entry", Type: bt.TString, Required: true, Doc: "the key to watch (\"key\" or \"{key}\")"}},
	New: func(b *bt.Builder) bt.Behavior {
		return &entryUpdated{entry: b.PortKey("entry"), seen: bt.Reserve[seenMem](b)}
	},
}

var waitValueUpdateType = bt.NodeType{
	Name: "WaitValueUpdate", Kind: bt.Decorator, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: RUNNING until blackboard key `entry` is written (as WasEntryUpdated tells), then ticks the child " +
		"until it completes and returns its status.",
	Params: []bt.Param{{Name: "entry", Type: bt.TString, Required: true, Doc: "the key to watch (\"key\" or \"{key}\")"}},
	New: func(b *bt.Builder) bt.Behavior {
		return &entryUpdated{entry: b.PortKey("entry"), seen: bt.Reserve[seenMem](b)}
	},
}

// seenMem is the write an entry watcher saw last (kept for the mission).
type seenMem struct {
	stamp int64
	seen  bool
}

// entryUpdated is WasEntryUpdated (a leaf) and WaitValueUpdate (its
// decorator form).
type entryUpdated struct {
	entry bt.Slot
	seen  bt.Mem[seenMem]
	// otherwise is the decorator's status while the key is not updated:
	// RUNNING (WaitValueUpdate) or SKIPPED (SkipUnlessUpdated).
	otherwise bt.Status
}

func (e *entryUpdated) MaySkip() bool { return e.otherwise == bt.Skipped }

// updated reports a write since the last call and remembers it.
func (e *entryUpdated) updated(a *bt.Agent, n *bt.Node) bool {
	if e.entry == bt.NoSlot {
		return false
	}
	stamp, ok := a.BB.Stamp(e.entry)
	if !ok {
		return false
	}
	m := e.seen.Of(a, n)
	fresh := !m.seen || stamp != m.stamp
	m.stamp, m.seen = stamp, true
	return fresh
}

func (e *entryUpdated) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	if len(n.Children) == 0 {
		if e.updated(a, n) {
			return bt.Success
		}
		return bt.Failure
	}
	child := n.Children[0]
	if !a.IsOpen(child) && !e.updated(a, n) {
		if e.otherwise == bt.Skipped {
			return bt.Skipped
		}
		return bt.Running
	}
	return a.Exec(child)
}
