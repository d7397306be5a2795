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

// StatusEnum are the statuses a parameter of type TEnum may name for a
// node to return (a BT.CPP port's return_on_mismatch, a StandIn's status).
var StatusEnum = []string{"SUCCESS", "FAILURE", "RUNNING"}

// Threshold resolves a count of children that may be negative, as
// BehaviorTree.CPP's parallels take it: -1 is every child, -2 all but one,
// and so on (never below 0).
func Threshold(t, children int) int {
	if t >= 0 {
		return t
	}
	return max(children+t+1, 0)
}

// Status reads a status parameter declared with StatusEnum (or with
// SKIPPED added): an unknown or one-letter value reads as FAILURE.
func (b *Builder) Status(name string) Status {
	raw, _ := b.Raw(name)
	s, _ := raw.(string)
	if s == "SKIPPED" {
		return Skipped
	}
	st, err := ParseStatus(s)
	if err != nil || len(s) == 1 {
		return Failure
	}
	return st
}

// HaltSubtree halts node i, if open, and its open descendants, deepest
// first: for a Halter that ran a child during its own halt (TryCatch's
// catch block), which the engine's rules would otherwise leave open.
func (a *Agent) HaltSubtree(i int32) {
	a.haltRange(i, a.nodes[i].End)
}

// MsParam declares a duration parameter in milliseconds, as Wait's: a
// number from 0, unit ms, read with ReadDuration(..., "ms") or a Timer.
// One named "ms" also takes the names other frameworks give it (msec,
// milliseconds, maxTime).
func MsParam(name, doc string, required bool) Param { return msParam(name, doc, required) }

// CheckThresholds refuses a success or failure count larger than the
// number of children (the Parallel of bt/nodes and BT.CPP's).
func CheckThresholds(b *Builder, succName string, succ int, failName string, fail int, n int) {
	if n > 0 && succ > n {
		b.Errorf(succName, "needs %d successes but has only %d children", succ, n)
	}
	if n > 0 && fail > n {
		b.Errorf(failName, "needs %d failures but has only %d children", fail, n)
	}
}
