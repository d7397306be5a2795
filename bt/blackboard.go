package bt

import (
	"fmt"
	"strconv"
	"strings"
)

// Slot indexes a blackboard entry. Keys are resolved to slots when a tree is
// compiled; reading and writing a slot is an array access.
type Slot int32

// NoSlot marks a parameter that is a constant rather than a blackboard key.
const NoSlot Slot = -1

// Scope is where a blackboard key lives (Behavior3's three scopes).
type Scope uint8

const (
	// ScopeGlobal keys are shared by the whole tree of an agent (sensor
	// readings, mission blackboard). Written as plain names.
	ScopeGlobal Scope = iota
	// ScopeTree keys are private to one tree occurrence (the main tree or
	// one SubTree occurrence). Written "tree:name".
	ScopeTree
	// ScopeNode keys are private to one node. Written "node:name".
	ScopeNode
)

// KeyInfo describes one blackboard slot of a compiled tree.
type KeyInfo struct {
	Name  string // as written, without the scope prefix
	Scope Scope
	Owner int32 // node index owning a tree or node key; -1 for global and the main tree
}

// ValueKind is the kind of a blackboard value.
type ValueKind uint8

const (
	KindNone ValueKind = iota // never written
	KindNumber
	KindBool
	KindString
	KindOther // lists and objects
)

var valueKindNames = [...]string{"none", "number", "boolean", "string", "other"}

func (k ValueKind) String() string {
	if int(k) < len(valueKindNames) {
		return valueKindNames[k]
	}
	return "?"
}

// Value is one blackboard value. Numbers and booleans are stored inline;
// strings and structured values by reference.
type Value struct {
	k ValueKind
	n float64
	r any
}

// NumberValue, BoolValue and StringValue make values.
func NumberValue(f float64) Value { return Value{k: KindNumber, n: f} }

// BoolValue makes a boolean value.
func BoolValue(b bool) Value {
	v := Value{k: KindBool}
	if b {
		v.n = 1
	}
	return v
}

// StringValue makes a string value.
func StringValue(s string) Value { return Value{k: KindString, r: s} }

// ValueOf converts a decoded JSON or YAML value.
func ValueOf(x any) Value {
	switch t := x.(type) {
	case nil:
		return Value{}
	case bool:
		return BoolValue(t)
	case string:
		return StringValue(t)
	case Value:
		return t
	}
	if f, ok := AsNumber(x); ok {
		return NumberValue(f)
	}
	return Value{k: KindOther, r: x}
}

// Kind returns the value's kind; KindNone for a missing value.
func (v Value) Kind() ValueKind { return v.k }

// Number returns a numeric value (booleans count as 0 and 1).
func (v Value) Number() (float64, bool) {
	return v.n, v.k == KindNumber || v.k == KindBool
}

// Bool returns a boolean value.
func (v Value) Bool() (bool, bool) { return v.n != 0, v.k == KindBool }

// Interface returns the value as a plain Go value (nil, float64, bool,
// string, or the structured value).
func (v Value) Interface() any {
	switch v.k {
	case KindNumber:
		return v.n
	case KindBool:
		return v.n != 0
	case KindString, KindOther:
		return v.r
	}
	return nil
}

// String formats the value for messages and string parameters.
func (v Value) String() string {
	switch v.k {
	case KindNumber:
		return strconv.FormatFloat(v.n, 'g', -1, 64)
	case KindBool:
		return strconv.FormatBool(v.n != 0)
	case KindString:
		return v.r.(string)
	case KindOther:
		return fmt.Sprint(v.r)
	}
	return ""
}

// Equal compares two values of the same kind (numbers by value).
func (v Value) Equal(w Value) bool {
	switch {
	case v.k != w.k:
		return false
	case v.k == KindNumber || v.k == KindBool:
		return v.n == w.n
	case v.k == KindString:
		return v.r.(string) == w.r.(string)
	case v.k == KindNone:
		return true
	}
	return fmt.Sprint(v.r) == fmt.Sprint(w.r)
}

// Blackboard is an agent's memory of named values, each stamped with the
// time it was written. Its arrays are views into the agent's memory block,
// except refs, which exists only once a string or structured value is
// written.
type Blackboard struct {
	num  []float64
	ts   []int64
	kind []ValueKind
	ref  []any
	now  int64
	keys []KeyInfo
}

// Len returns the number of slots.
func (b *Blackboard) Len() int { return len(b.kind) }

// Number reads a numeric (or boolean) slot.
func (b *Blackboard) Number(s Slot) (float64, bool) {
	k := b.kind[s]
	return b.num[s], k == KindNumber || k == KindBool
}

// Stamp returns the time a slot was last written (clock nanoseconds) and
// whether it was ever written.
func (b *Blackboard) Stamp(s Slot) (int64, bool) { return b.ts[s], b.kind[s] != KindNone }

// Get reads any slot.
func (b *Blackboard) Get(s Slot) Value {
	v := Value{k: b.kind[s], n: b.num[s]}
	if b.ref != nil {
		v.r = b.ref[s]
	}
	return v
}

// SetNumber writes a number stamped with the current tick time.
func (b *Blackboard) SetNumber(s Slot, f float64) { b.SetNumberAt(s, f, b.now) }

// SetNumberAt writes a number stamped with ts (clock nanoseconds), e.g. the
// time a sensor sample was taken.
func (b *Blackboard) SetNumberAt(s Slot, f float64, ts int64) {
	b.num[s], b.ts[s], b.kind[s] = f, ts, KindNumber
	if b.ref != nil {
		b.ref[s] = nil
	}
}

// Set writes any value stamped with the current tick time.
func (b *Blackboard) Set(s Slot, v Value) { b.SetAt(s, v, b.now) }

// SetAt writes any value stamped with ts.
func (b *Blackboard) SetAt(s Slot, v Value, ts int64) {
	b.num[s], b.ts[s], b.kind[s] = v.n, ts, v.k
	if v.r != nil && b.ref == nil {
		b.ref = make([]any, len(b.kind))
	}
	if b.ref != nil {
		b.ref[s] = v.r
	}
}

// Delete forgets a slot's value.
func (b *Blackboard) Delete(s Slot) {
	b.num[s], b.ts[s], b.kind[s] = 0, 0, KindNone
	if b.ref != nil {
		b.ref[s] = nil
	}
}

// Key returns the declaration of a slot.
func (b *Blackboard) Key(s Slot) KeyInfo { return b.keys[s] }

// Age returns how long ago (ns) the slot was written, relative to now.
func (b *Blackboard) Age(s Slot, now int64) int64 { return now - b.ts[s] }

// splitKey parses a scoped key name.
func splitKey(k string) (Scope, string) {
	switch {
	case strings.HasPrefix(k, "tree:"):
		return ScopeTree, k[5:]
	case strings.HasPrefix(k, "node:"):
		return ScopeNode, k[5:]
	}
	return ScopeGlobal, k
}

// checkKey returns a problem with a key name, or "".
func checkKey(k string) string {
	_, name := splitKey(k)
	if name == "" {
		return "empty blackboard key"
	}
	if strings.ContainsAny(name, " \t\n{}") {
		return fmt.Sprintf("blackboard key %q contains a space or a brace", k)
	}
	return ""
}
