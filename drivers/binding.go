package drivers

import (
	"time"

	"github.com/botd-project/botd/bt"
)

// Binding connects a robot's sensor keys to one compiled tree's blackboard slots, resolved once
// so that a tick's Snapshot is a copy under a short lock: no hashing, no allocation.
type Binding struct {
	t     *sampleTable
	slots []boundKey
}

type boundKey struct {
	i       int // index in the sample table
	slot    bt.Slot
	boolean bool
}

// Bind resolves the robot's sensor keys to t's global slots; keys the tree has no slot for are
// left out (compile missions with Config.SensorKeys as extra keys to keep them all).
func (r *Robot) Bind(t *bt.Tree) *Binding {
	b := &Binding{t: &r.table}
	for i, name := range r.table.names {
		if s, ok := t.Slot(name); ok {
			b.slots = append(b.slots, boundKey{i: i, slot: s, boolean: r.table.boolean[i]})
		}
	}
	return b
}

// Keys returns how many sensor keys the binding copies.
func (b *Binding) Keys() int { return len(b.slots) }

// Snapshot copies the latest sample of every bound key into bb, stamped with the time it was
// sampled (bt clock nanoseconds = time.UnixNano), so a Check with max_age_ms sees how old it is.
// A key never sampled is left alone (a Check on it is ERROR: missing). It allocates nothing.
func (b *Binding) Snapshot(bb *bt.Blackboard) {
	t := b.t
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range b.slots {
		if !t.have[k.i] {
			continue
		}
		if k.boolean {
			bb.SetAt(k.slot, bt.BoolValue(t.vals[k.i] != 0), t.ts[k.i])
		} else {
			bb.SetNumberAt(k.slot, t.vals[k.i], t.ts[k.i])
		}
	}
}

// Reading returns the latest good sample of a sensor key (a boolean as 0 or 1) and when it
// was taken; ok is false for a key no sensor writes or one not sampled yet. For watchers
// outside the tree (failsafes, an e-stop button); ticks use a Binding.
func (r *Robot) Reading(key string) (v float64, at time.Time, ok bool) {
	i, known := r.table.index[key]
	if !known {
		return 0, time.Time{}, false
	}
	t := &r.table
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.have[i] {
		return 0, time.Time{}, false
	}
	return t.vals[i], time.Unix(0, t.ts[i]), true
}
