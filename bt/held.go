package bt

// BT.CPP keeps a node's last status until its parent resets it, and a few
// of its nodes (most of Nav2's rate and goal nodes) start afresh only when
// they find their own status reset. botd closes a node whenever it
// completes, so those nodes ask heldStatus instead: it answers as BT.CPP's
// status would, from the node's last status, the tick it last ran and
// whether its parent has been running all along.

// childReset says how a parent treats a child that completed, in BT.CPP.
type childReset uint8

const (
	// The zero childReset: decorators reset the child's status at once
	// (BT.CPP's resetChild), controls keep it until they complete
	// themselves.
	_ childReset = iota
	// resetNever: the child keeps its status while the parent runs (Nav2's
	// rate and goal decorators).
	resetNever
	// resetAlways: the child's status is reset as soon as it completes
	// (Nav2's RecoveryNode halts each child it is done with).
	resetAlways
)

// resetsChild reports whether t, in its home framework, resets a child's
// status as soon as that child completes.
func (t *NodeType) resetsChild() bool {
	switch t.childReset {
	case resetNever:
		return false
	case resetAlways:
		return true
	}
	return t.Kind == Decorator
}

// heldMem is the memory heldStatus needs: the agent tick in which the node
// last ran (0: never).
type heldMem struct{ last uint64 }

// heldStatus reports whether BT.CPP would still hold the status node n
// returned when it last ran (the test its nodes write as
// isStatusActive(status())), and notes that n runs in this tick. It must
// be called once per tick of n, before n ticks its children.
//
// The status is held when n ran in this tick or the previous one, was not
// halted since, and its parent has been running since then without
// resetting it: the parent did not open in this tick, and it is not a
// parent that resets a child as soon as it completes (a decorator) while
// n had completed. The root's status is reset whenever it completes.
func (a *Agent) heldStatus(n *Node, m *heldMem) bool {
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
