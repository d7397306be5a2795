package bt

import (
	"math"
	"strings"
	"time"
)

// The node kit: what the node catalogs (bt/nodes, bt/btcpp, bt/nav2 and a
// driver's leaves) share beyond the engine's types. Each is documented
// where it is declared; this file holds the small helpers that belong to
// no one node.

// RatePeriod is the period of a rate in clock ns: 1/hz seconds, with hz 0
// (an infinite period, as Nav2 has it) and periods beyond the clock's
// range held at the longest one.
func RatePeriod(hz float64) int64 {
	p := float64(time.Second) / hz
	if math.IsInf(p, 0) || p >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(p)
}

// PortKey reads a parameter naming a blackboard key the way BT.CPP writes
// an entry name: "key" or "{key}". It reports a malformed name.
func (b *Builder) PortKey(name string) Slot {
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

// Behavior returns the node's behavior, as its type's New built it (for
// tests that look into a node's state, and for tools).
func (n *Node) Behavior() Behavior { return n.b }
