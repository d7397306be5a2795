package bt

// BT.CPP keeps a node's last status until its parent resets it, and a few
// of its nodes (most of Nav2's rate and goal nodes) start afresh only when
// they find their own status reset. botd closes a node whenever it
// completes, so those nodes ask HeldStatus instead: it answers as BT.CPP's
// status would, from the node's last status, the tick it last ran and
// whether its parent has been running all along.

// ChildReset says how a parent treats a child that completed, in
// BehaviorTree.CPP (NodeType.ChildReset; HeldStatus reads it).
type ChildReset uint8

const (
	// ChildResetDefault: decorators reset the child's status at once
	// (BT.CPP's resetChild), controls keep it until they complete
	// themselves.
	ChildResetDefault ChildReset = iota
	// ChildResetNever: the child keeps its status while the parent runs
	// (Nav2's rate and goal decorators).
	ChildResetNever
	// ChildResetAlways: the child's status is reset as soon as it
	// completes (Nav2's RecoveryNode halts each child it is done with).
	ChildResetAlways
)

// resetsChild reports whether t, in its home framework, resets a child's
// status as soon as that child completes.
func (t *NodeType) resetsChild() bool {
	switch t.ChildReset {
	case ChildResetNever:
		return false
	case ChildResetAlways:
		return true
	}
	return t.Kind == Decorator
}

// HeldMem is the memory HeldStatus needs, reserved with the node's other
// memory: the agent tick in which the node last ran (0: never).
type HeldMem struct{ last uint64 }

// HeldStatus reports whether BT.CPP would still hold the status node n
// returned when it last ran (the test its nodes write as
// isStatusActive(status())), and notes that n runs in this tick. It must
// be called once per tick of n, before n ticks its children.
//
// The status is held when n ran in this tick or the previous one, was not
// halted since, and its parent has been running since then without
// resetting it: the parent did not open in this tick, and it is not a
// parent that resets a child as soon as it completes (a decorator) while
// n had completed. The root's status is reset whenever it completes.
func (a *Agent) HeldStatus(n *Node, m *HeldMem) bool {
	prev, last := Status(a.state[n.Index]&stStatus), m.last
	m.last = a.ticks
	if prev == Idle || prev == Skipped || last == 0 || (last != a.ticks && last+1 != a.ticks) {
		return false
	}
	p := n.Parent
	if p < 0 {
		return prev == Running
	}
	if !a.wasOpen(p) {
		return false
	}
	if pt := a.nodes[p].Type; pt != nil && pt.resetsChild() && prev != Running {
		return false
	}
	return true
}

// wasOpen reports whether node i was open before the current call of its
// Exec: false while an opening node runs its first tick.
func (a *Agent) wasOpen(i int32) bool { return a.open[i>>6]&(1<<(uint(i)&63)) != 0 }
