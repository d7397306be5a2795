package missions

import (
	"slices"

	"github.com/botd-project/botd/bt"
)

// What a document says about the type of a blackboard key: the runner
// checks an operator's blackboard.set against it, so that a value of the
// wrong type is refused rather than ending the mission in ERROR when a
// node reads it.

// KeyUse is one place where a mission says what type a blackboard key
// holds.
type KeyUse struct {
	Kind  bt.ValueKind
	How   string // "reads", "compares", "writes", "starts"
	Where string // JSON pointer in the mission document
}

// KeyUses lists how a mission uses a global blackboard key, from what the
// node types declare: a number or boolean parameter given as "{key}"
// (read when the node opens: another type makes the node fail), a Check
// that orders the key (numbers only) or compares it with a constant, a
// Set that writes a constant to it, and the document's initial
// blackboard. Expressions and parameters of any type say nothing. The
// nodes a StateMachine synthesises from its parameters are not looked at.
func KeyUses(doc *Document, reg *bt.Registry, key string) []KeyUse {
	if doc == nil || reg == nil {
		return nil
	}
	var uses []KeyUse
	if v, found := doc.Blackboard[key]; found {
		if k := bt.ValueOf(v).Kind(); k != bt.KindNone && k != bt.KindOther {
			uses = append(uses, KeyUse{Kind: k, How: "starts", Where: ptr("/blackboard", key)})
		}
	}
	var walk func(def *bt.NodeDef, path string)
	walk = func(def *bt.NodeDef, path string) {
		if def == nil {
			return
		}
		if nt, found := reg.Lookup(def.Type); found {
			uses = append(uses, nodeKeyUses(nt, def, path, key)...)
		}
		for i, ch := range def.Children {
			walk(ch, ptr(path+"/children", i))
		}
	}
	names := make([]string, 0, len(doc.Trees))
	for name := range doc.Trees {
		names = append(names, name)
	}
	slices.Sort(names) // the same message every time
	for _, name := range names {
		walk(doc.Trees[name], ptr("/trees", name))
	}
	return uses
}

// nodeKeyUses is KeyUses for one node.
func nodeKeyUses(nt *bt.NodeType, def *bt.NodeDef, path, key string) []KeyUse {
	var uses []KeyUse
	param := func(name string) (any, bool) {
		if v, found := def.Params[name]; found {
			return v, true
		}
		for n, v := range def.Params { // given under an alias
			if p := nt.Param(n); p != nil && p.Name == name {
				return v, true
			}
		}
		if p := nt.Param(name); p != nil && p.Default != nil {
			return p.Default, true
		}
		return nil, false
	}
	refersTo := func(v any) bool {
		s, _ := v.(string)
		k, isRef := bt.RefKey(s)
		return isRef && k == key
	}
	constant := func(v any) bt.ValueKind { // the kind of a constant; KindNone for "{key}"
		if s, isStr := v.(string); isStr {
			if _, isRef := bt.RefKey(s); isRef {
				return bt.KindNone
			}
		}
		return bt.ValueOf(v).Kind()
	}
	names := make([]string, 0, len(def.Params))
	for name := range def.Params {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		pd := nt.Param(name)
		if pd == nil || !refersTo(def.Params[name]) {
			continue
		}
		where := ptr(path+"/params", name)
		switch pd.Type {
		case bt.TNumber:
			uses = append(uses, KeyUse{Kind: bt.KindNumber, How: "reads", Where: where})
		case bt.TBool:
			uses = append(uses, KeyUse{Kind: bt.KindBool, How: "reads", Where: where})
		}
	}
	switch nt.Name {
	case "Check":
		k, _ := param("key")
		other, _ := param("other_key")
		value, hasValue := param("value")
		op, _ := param("op")
		ordered := op == "<" || op == "<=" || op == ">" || op == ">="
		mentions := k == key || other == key || (hasValue && refersTo(value))
		switch {
		case !mentions:
		case ordered:
			uses = append(uses, KeyUse{Kind: bt.KindNumber, How: "compares", Where: path + "/params/op"})
		case k == key && hasValue:
			if kind := constant(value); kind != bt.KindNone && kind != bt.KindOther {
				uses = append(uses, KeyUse{Kind: kind, How: "compares", Where: path + "/params/value"})
			}
		}
	case "Set":
		k, _ := param("key")
		value, hasValue := param("value")
		if k == key && hasValue {
			if kind := constant(value); kind != bt.KindNone && kind != bt.KindOther {
				uses = append(uses, KeyUse{Kind: kind, How: "writes", Where: path + "/params/value"})
			}
		}
	}
	return uses
}
