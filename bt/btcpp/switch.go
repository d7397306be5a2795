package btcpp

import (
	"math"
	"strconv"

	"github.com/botd-project/botd/bt"
)

// switchTypes are BehaviorTree.CPP's Switch2 .. Switch6: N cases and a
// default, one child each.
var switchTypes = func() []bt.NodeType {
	var out []bt.NodeType
	for cases := 2; cases <= 6; cases++ {
		params := []bt.Param{{Name: "variable", Type: bt.TAny, Doc: "the value to match (usually \"{key}\")"}}
		for i := 1; i <= cases; i++ {
			params = append(params, bt.Param{Name: "case_" + strconv.Itoa(i), Type: bt.TAny, Doc: "value selecting child " + strconv.Itoa(i)})
		}
		out = append(out, bt.NodeType{
			Name: "Switch" + strconv.Itoa(cases), Kind: bt.Composite, MinChildren: cases + 1, MaxChildren: cases + 1, SkipsPass: true,
			Doc: "As in BehaviorTree.CPP: on every tick ticks the child of the first `case_i` equal to `variable` (compared as strings, " +
				"or as numbers when both read as numbers), else the last child (the default), and returns its status. A child no longer " +
				"selected is halted (at the end of the tick, by botd's halt rule). A missing `variable` selects the default.",
			Params: params,
			New:    newSwitch,
		})
	}
	return out
}()

// anyStr is a parameter of any type read as a string: a constant, or
// "{key}" read when needed; given is false for an absent parameter.
type anyStr struct {
	bt.Str
	given bool
}

func anyString(b *bt.Builder, name string) anyStr {
	raw, ok := b.Raw(name)
	if !ok || !b.Has(name) {
		return anyStr{}
	}
	if s, isStr := raw.(string); isStr {
		if k, ref := bt.RefKey(s); ref {
			return anyStr{bt.Str{Slot: b.Key(k)}, true}
		}
	}
	return anyStr{bt.Str{V: bt.ValueOf(raw).String(), Slot: bt.NoSlot}, true}
}

type switchNode struct {
	variable anyStr
	cases    []anyStr
}

func newSwitch(b *bt.Builder) bt.Behavior {
	s := &switchNode{variable: anyString(b, "variable")}
	for i := 1; i < len(b.Children()); i++ {
		s.cases = append(s.cases, anyString(b, "case_"+strconv.Itoa(i)))
	}
	return s
}

func (s *switchNode) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	match := len(n.Children) - 1
	if v, ok := s.variable.Get(a); ok && s.variable.given {
		for i, c := range s.cases {
			if cv, ok := c.Get(a); ok && c.given && switchEqual(v, cv) {
				match = i
				break
			}
		}
	}
	return a.Exec(n.Children[match])
}

// float32Epsilon is the tolerance BT.CPP's Switch compares reals with.
const float32Epsilon = 1.1920929e-07

// switchEqual compares as BT.CPP's Switch does: equal strings, else equal
// integers, else reals within a float's epsilon.
func switchEqual(a, b string) bool {
	if a == b {
		return true
	}
	if x, err := strconv.Atoi(a); err == nil {
		if y, err := strconv.Atoi(b); err == nil && x == y {
			return true
		}
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && math.Abs(x-y) <= float32Epsilon
}
