package bt

import (
	"fmt"
	"strconv"
	"strings"
)

// A node that returns ERROR says why, with an "error" event (Agent.Emit):
// the runner keeps it as the run's last failure, botd sim prints it with
// the final status, and botctl shows it on the node. These helpers word
// the commonest reasons alike everywhere: a key that is not set (with the
// set key of the same scope it is most likely a typo of), or a key that
// holds a value of the wrong kind.

// KeyProblem says what is wrong with key s for a node that wanted want
// ("a number", "a boolean"): `"range.fornt" is not set (did you mean
// "range.front"?)`, or `"mode" holds "auto" (a string), not a number`.
func (a *Agent) KeyProblem(s Slot, want string) string {
	if s == NoSlot || int(s) >= a.BB.Len() {
		return "no key given"
	}
	k := a.BB.Key(s)
	v := a.BB.Get(s)
	if v.Kind() == KindNone {
		msg := fmt.Sprintf("%q is not set", k.Name)
		if near := a.closestSetKey(s); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return msg
	}
	return fmt.Sprintf("%q holds %s, not %s", k.Name, DescribeValue(v), want)
}

// NumProblem says what is wrong with a numeric parameter that is a
// constant or a "{key}" reference.
func (a *Agent) NumProblem(p Num, want string) string {
	if p.Slot == NoSlot {
		return fmt.Sprintf("%v is not %s", p.V, want)
	}
	if v, ok := p.Get(a); ok {
		return fmt.Sprintf("%q holds %v, not %s", a.BB.Key(p.Slot).Name, v, want)
	}
	return a.KeyProblem(p.Slot, want)
}

// DescribeValue quotes a value for a message, cut short when long.
func DescribeValue(v Value) string {
	s := v.String()
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	switch v.Kind() {
	case KindString:
		return strconv.Quote(s) + " (a string)"
	case KindNumber:
		return s + " (a number)"
	case KindBool:
		return s + " (a boolean)"
	}
	return s + " (" + v.Kind().String() + ")"
}

// closestSetKey is the set key of s's scope nearest to s's name when it
// is near enough to be a typo of it (as botd check's "did you mean": at
// most 2 edits, fewer than a third of the name's length for short names,
// ignoring letter case).
func (a *Agent) closestSetKey(s Slot) string {
	k := a.BB.Key(s)
	name := strings.ToLower(k.Name)
	limit := min(2, max(1, len(name)/3))
	best, bestD := "", limit+1
	for i := 0; i < a.BB.Len(); i++ {
		o := a.BB.Key(Slot(i))
		if Slot(i) == s || o.Scope != k.Scope || o.Owner != k.Owner || a.BB.Get(Slot(i)).Kind() == KindNone {
			continue
		}
		if len(o.Name) > len(name)+limit || len(name) > len(o.Name)+limit {
			continue
		}
		if d := editDistance(name, strings.ToLower(o.Name)); d < bestD || d == bestD && o.Name < best {
			best, bestD = o.Name, d
		}
	}
	return best
}
