package bt

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// What a test kit needs to check the fast path against the general path
// (bt/bttest runs every harness tick on a copy of the agent through the
// other path and compares the two). Tools may use them too; nothing on
// the tick path calls them.

// CopyStateFrom makes a's state (memory block, blackboard, clock, random
// stream, tick count) a copy of src's; both run one tree.
func (a *Agent) CopyStateFrom(src *Agent) { a.copyState(src) }

// StateDiff describes how a's state differs from want's ("" when it does
// not).
func (a *Agent) StateDiff(want *Agent) string { return a.diffState(want) }

// FastPath reports whether the agent's ticks take the fast path.
func (a *Agent) FastPath() bool { return !a.general }

// HasChildAgents reports whether the agent runs child agents
// (DynamicSubTree), whose state CopyStateFrom does not carry.
func (a *Agent) HasChildAgents() bool { return a.ext != nil }

// Shadowable reports whether a fast-path check by state copies applies
// to the tree: not to stored-state trees (always on the general path),
// nor to trees whose nodes keep state outside the agent (shared by
// agents, as Gate, or child agents of DynamicSubTree).
func (t *Tree) Shadowable() bool { return t.shadowable() }
func (t *Tree) shadowable() bool {
	if t.eval == StoredState || t.ptrN > 0 || len(t.slots) > 0 {
		return false
	}
	for _, s := range t.shared {
		if s != nil {
			return false
		}
	}
	return true
}

func (a *Agent) copyState(b *Agent) {
	copy(a.block, b.block)
	a.BB.ref = nil
	if b.BB.ref != nil {
		a.BB.ref = append([]any(nil), b.BB.ref...)
	}
	a.now, a.BB.now, a.rng, a.ticks, a.epoch, a.resuming = b.now, b.BB.now, b.rng, b.ticks, b.epoch, b.resuming
}

func (a *Agent) diffState(b *Agent) string {
	var d []string
	if !slices.Equal(a.block, b.block) {
		for i := range b.state {
			if a.state[i] != b.state[i] {
				d = append(d, fmt.Sprintf("node %d (%s): state %#x, want %#x", i, b.nodes[i].Name, a.state[i], b.state[i]))
			}
		}
		d = append(d, "memory blocks differ")
	}
	if !reflect.DeepEqual(a.BB.ref, b.BB.ref) && !(len(a.BB.ref) == 0 && len(b.BB.ref) == 0) {
		d = append(d, fmt.Sprintf("string values %v, want %v", a.BB.ref, b.BB.ref))
	}
	if a.resuming != b.resuming {
		d = append(d, fmt.Sprintf("resuming %v, want %v", a.resuming, b.resuming))
	}
	return strings.Join(d, "; ")
}
