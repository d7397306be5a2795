package bt

import "fmt"

var checkType = NodeType{
	Name: "Check", Kind: Leaf, Category: "condition",
	Doc: "SUCCESS if the comparison holds, else FAILURE. A missing key is ERROR. A value older than `max_age_ms` is FAILURE " +
		"(stale sensor data never passes a guard).",
	Params: []Param{
		{Name: "key", Type: TKey, Required: true, Doc: "blackboard key to read"},
		{Name: "op", Type: TEnum, Enum: []string{"<", "<=", ">", ">=", "==", "!="}, Default: "==", Doc: "comparison"},
		{Name: "value", Type: TAny, Doc: "constant to compare with (number, boolean or string; \"{key}\" reads another key)"},
		{Name: "other_key", Type: TKey, Doc: "compare with this key instead of a constant"},
		{Name: "max_age_ms", Type: TNumber, Min: Float(0), Unit: "ms", Doc: "values older than this fail the check"},
	},
	New: newCheck,
}

type cmpOp uint8

const (
	opLT cmpOp = iota
	opLE
	opGT
	opGE
	opEQ
	opNE
)

var cmpOps = map[string]cmpOp{"<": opLT, "<=": opLE, ">": opGT, ">=": opGE, "==": opEQ, "!=": opNE}

var opNames = [...]string{opLT: "<", opLE: "<=", opGT: ">", opGE: ">=", opEQ: "==", opNE: "!="}

type check struct {
	key    Slot
	op     cmpOp
	other  Slot // NoSlot: compare with value
	value  Value
	maxAge Num // max_age_ms, a constant or "{key}"
	hasAge bool
}

func newCheck(b *Builder) Behavior {
	c := &check{key: b.KeyParam("key"), other: NoSlot}
	op, _ := b.Raw("op")
	c.op = cmpOps[fmt.Sprint(op)]
	switch {
	case b.Has("value") && b.Has("other_key"):
		b.Errorf("other_key", "give either value or other_key, not both")
	case b.Has("other_key"):
		c.other = b.KeyParam("other_key")
	case b.Has("value"):
		raw, _ := b.Raw("value")
		if s, ok := raw.(string); ok {
			if k, ok := RefKey(s); ok {
				c.other = b.Key(k)
				break
			}
		}
		c.value = ValueOf(raw)
		if k := c.value.Kind(); k != KindNumber && c.op != opEQ && c.op != opNE {
			b.Errorf("op", "%s compares numbers; a %s value can only be compared with == or !=", op, k)
		}
		if c.value.Kind() == KindOther {
			b.Errorf("value", "want a number, boolean or string")
		}
	default:
		b.Errorf("value", "missing value (or other_key) to compare with")
	}
	if b.Has("max_age_ms") {
		c.maxAge, c.hasAge = b.Number("max_age_ms"), true
	}
	return c
}

func (c *check) Tick(a *Agent, n *Node) Status {
	bb := &a.BB
	k := bb.kind[c.key]
	if k == KindNone {
		a.Emit(n.Index, "error", "Check: "+a.KeyProblem(c.key, "a value"))
		return Error
	}
	var maxAge int64 // ns
	if c.hasAge {
		d, ok := readMs(a, n.Index, c.maxAge)
		if !ok {
			return Error
		}
		maxAge = d
	}
	if c.hasAge && a.Now()-bb.ts[c.key] > maxAge {
		return Failure
	}
	rk, rn := c.value.k, c.value.n
	if c.other != NoSlot {
		rk = bb.kind[c.other]
		if rk == KindNone {
			a.Emit(n.Index, "error", "Check: "+a.KeyProblem(c.other, "a value"))
			return Error
		}
		if c.hasAge && a.Now()-bb.ts[c.other] > maxAge {
			return Failure
		}
		rn = bb.num[c.other]
	}
	if k == KindNumber && rk == KindNumber {
		return boolStatus(compareNum(c.op, bb.num[c.key], rn))
	}
	return c.tickValues(a, n, k, rk)
}

// tickValues compares non-numeric values (== and != only).
func (c *check) tickValues(a *Agent, n *Node, k, rk ValueKind) Status {
	left := a.BB.Get(c.key)
	right := c.value
	if c.other != NoSlot {
		right = a.BB.Get(c.other)
	}
	if c.op != opEQ && c.op != opNE {
		// Ordering a non-number is a type error.
		bad, slot := left, c.key
		if k == KindNumber {
			bad, slot = right, c.other
		}
		what := DescribeValue(bad)
		if slot != NoSlot {
			what = fmt.Sprintf("%q holds %s", a.BB.Key(slot).Name, what)
		}
		a.Emit(n.Index, "error", fmt.Sprintf("Check: %s compares numbers, and %s", opNames[c.op], what))
		return Error
	}
	eq := left.Equal(right)
	if k != rk {
		eq = false
	}
	return boolStatus(eq == (c.op == opEQ))
}

func compareNum(op cmpOp, l, r float64) bool {
	switch op {
	case opLT:
		return l < r
	case opLE:
		return l <= r
	case opGT:
		return l > r
	case opGE:
		return l >= r
	case opEQ:
		return l == r
	}
	return l != r
}

func boolStatus(ok bool) Status {
	if ok {
		return Success
	}
	return Failure
}
