package btcpp

import (
	"fmt"
	"math"

	"github.com/botd-project/botd/bt"
)

// What the node types ported from BehaviorTree.CPP and Nav2 share.

// maxLoopsPerTick bounds how often a BT.CPP loop decorator (Repeat,
// RetryUntilSuccessful) restarts, within one tick, a child that completes
// at once. BT.CPP loops until it is done; a botd tick must end, so past
// the bound the loop returns RUNNING and goes on at the next tick.
const maxLoopsPerTick = 1000

// countOf reads a count port that may be a constant or "{key}" (BT.CPP
// reads such ports on every tick); ok is false when the key is missing or
// not a whole number.
func countOf(a *bt.Agent, p bt.Num) (int64, bool) {
	v, ok := p.Get(a)
	if !ok || v != math.Trunc(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return int64(v), true
}

// badCount says why countOf failed, for the error event.
func badCount(a *bt.Agent, p bt.Num) string {
	if p.Slot == bt.NoSlot {
		return fmt.Sprintf("%v is not a whole number", p.V)
	}
	name := a.BB.Key(p.Slot).Name
	if _, ok := p.Get(a); !ok {
		return fmt.Sprintf("%q is not set (or not a number)", name)
	}
	return fmt.Sprintf("%q is not a whole number", name)
}

// checkWhole reports a constant count parameter that is not a whole number.
func checkWhole(b *bt.Builder, name string, p bt.Num) {
	if p.Slot == bt.NoSlot && p.V != math.Trunc(p.V) {
		b.Errorf(name, "want a whole number, got %v", p.V)
	}
}

// memMem is the child to resume at and how many children skipped in this
// activation (BT.CPP's skipped_count_), as botd's MemSequence keeps them.
type memMem struct{ resume, skipped int }
