package bt

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/botd-project/botd/bt/internal/enginetest"
)

// The hooks the node catalogs' test kit uses to check the fast path
// against the general path (bt/internal/enginetest).
func init() {
	enginetest.CopyState = func(dst, src any) { dst.(*Agent).copyState(src.(*Agent)) }
	enginetest.DiffState = func(got, want any) string { return got.(*Agent).diffState(want.(*Agent)) }
	enginetest.FastPath = func(a any) bool { return !a.(*Agent).general }
	enginetest.HasChildAgents = func(a any) bool { return a.(*Agent).ext != nil }
	enginetest.Shadowable = func(t any) bool { return t.(*Tree).shadowable() }
}

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
