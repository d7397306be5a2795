package btcpp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
)

// loopTypes are BehaviorTree.CPP's LoopInt, LoopDouble, LoopString and
// LoopBool.
var loopTypes = []bt.NodeType{
	loopType("LoopInt", loopInt), loopType("LoopDouble", loopDouble),
	loopType("LoopString", loopString), loopType("LoopBool", loopBool),
}

type loopKind uint8

const (
	loopInt loopKind = iota
	loopDouble
	loopString
	loopBool
)

func loopType(name string, kind loopKind) bt.NodeType {
	return bt.NodeType{
		Name: name, KeepsProgress: true, Kind: bt.Decorator, SkipsAbsorb: true,
		Doc: "As in BehaviorTree.CPP: takes the next element of `queue` (a list written \"1;2;3\", or \"{key}\" holding a list or " +
			"such a string), writes it to `value` and ticks the child, once per tick while elements remain (RUNNING); FAILURE when " +
			"the child fails; `if_empty` (SUCCESS) once the queue is exhausted. A queue read from the blackboard is read by position " +
			"and not consumed (BT.CPP pops a shared queue in place); a \"{key}\" that is not set is ERROR (BT.CPP throws).",
		Params: []bt.Param{
			{Name: "queue", Type: bt.TAny, Required: true, Doc: "the elements: \"a;b;c\", a list, or \"{key}\""},
			{Name: "value", Type: bt.TString, Doc: "key the current element is written to (\"{key}\")"},
			{Name: "if_empty", Type: bt.TEnum, Enum: elseEnum, Default: "SUCCESS", Doc: "status once the queue is empty"},
		},
		New: func(b *bt.Builder) bt.Behavior { return newLoop(b, kind) },
	}
}

type loop struct {
	kind    loopKind
	static  []bt.Value // the queue, when written in the mission
	from    bt.Slot    // the queue's key, when read from the blackboard
	value   bt.Slot
	ifEmpty bt.Status
	mem     bt.Mem[loopMem]
}

// loopMem is a loop's per-agent memory.
type loopMem struct {
	pos          int32 // the next element
	childRunning bool
}

var _ bt.Opener = (*loop)(nil)

func newLoop(b *bt.Builder, kind loopKind) bt.Behavior {
	l := &loop{kind: kind, from: bt.NoSlot, value: b.PortKey("value"), ifEmpty: b.Status("if_empty"), mem: bt.Reserve[loopMem](b)}
	raw, _ := b.Raw("queue")
	if s, ok := raw.(string); ok {
		if k, ref := bt.RefKey(s); ref {
			l.from = b.Key(k)
			return l
		}
	}
	var elems []any
	switch q := raw.(type) {
	case []any:
		elems = q
	case string:
		if strings.TrimSpace(q) != "" {
			for _, part := range strings.Split(q, ";") {
				elems = append(elems, part)
			}
		}
	default:
		elems = []any{raw}
	}
	for i, e := range elems {
		v, err := kind.convert(e)
		if err != nil {
			b.Errorf("queue", "element %d: %s", i, err)
			continue
		}
		l.static = append(l.static, v)
	}
	return l
}

// convert reads one element as the loop's type.
func (k loopKind) convert(e any) (bt.Value, error) {
	s, isStr := e.(string)
	if isStr {
		s = strings.TrimSpace(s)
	}
	switch k {
	case loopInt, loopDouble:
		f, ok := bt.AsNumber(e)
		if isStr {
			var err error
			if f, err = strconv.ParseFloat(s, 64); err != nil {
				return bt.Value{}, fmt.Errorf("%q is not a number", s)
			}
			ok = true
		}
		if !ok {
			return bt.Value{}, fmt.Errorf("want a number, got %s", bt.Describe(e))
		}
		if k == loopInt && f != float64(int64(f)) {
			return bt.Value{}, fmt.Errorf("%v is not a whole number", f)
		}
		return bt.NumberValue(f), nil
	case loopBool:
		if b, ok := e.(bool); ok {
			return bt.BoolValue(b), nil
		}
		switch s {
		case "true", "True", "TRUE", "1":
			return bt.BoolValue(true), nil
		case "false", "False", "FALSE", "0":
			return bt.BoolValue(false), nil
		}
		return bt.Value{}, fmt.Errorf("%s is not a boolean", bt.Describe(e))
	}
	if isStr {
		return bt.StringValue(s), nil
	}
	return bt.StringValue(bt.ValueOf(e).String()), nil
}

func (l *loop) Open(a *bt.Agent, n *bt.Node) { *l.mem.Of(a, n) = loopMem{} }

// next returns the element at pos; ok is false past the end (or when the
// queue cannot be read, with err set).
func (l *loop) next(a *bt.Agent, pos int32) (v bt.Value, ok bool, err error) {
	if l.from == bt.NoSlot {
		if int(pos) >= len(l.static) {
			return bt.Value{}, false, nil
		}
		return l.static[pos], true, nil
	}
	q := a.BB.Get(l.from)
	switch q.Kind() {
	case bt.KindNone:
		// BT.CPP creates the entry empty and throws when it reads it.
		return bt.Value{}, false, fmt.Errorf("the queue %q is not set", a.BB.Key(l.from).Name)
	case bt.KindString:
		s := q.String()
		for i := int32(0); i < pos; i++ {
			j := strings.IndexByte(s, ';')
			if j < 0 {
				return bt.Value{}, false, nil
			}
			s = s[j+1:]
		}
		if j := strings.IndexByte(s, ';'); j >= 0 {
			s = s[:j]
		}
		if strings.TrimSpace(s) == "" {
			return bt.Value{}, false, nil
		}
		v, err := l.kind.convert(s)
		return v, err == nil, err
	case bt.KindOther:
		list, isList := q.Interface().([]any)
		if !isList {
			return bt.Value{}, false, fmt.Errorf("%q is not a list", a.BB.Key(l.from).Name)
		}
		if int(pos) >= len(list) {
			return bt.Value{}, false, nil
		}
		v, err := l.kind.convert(list[pos])
		return v, err == nil, err
	}
	return bt.Value{}, false, fmt.Errorf("%q is not a list", a.BB.Key(l.from).Name)
}

// maySkip: if_empty may be SKIPPED (a skipped child makes it RUNNING, as
// in BT.CPP).
func (l *loop) MaySkip() bool { return l.ifEmpty == bt.Skipped }

func (l *loop) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := l.mem.Of(a, n)
	if !m.childRunning {
		v, ok, err := l.next(a, m.pos)
		if err != nil {
			a.Emit(n.Index, "error", "loop: "+err.Error())
			return bt.Error
		}
		if !ok {
			return l.ifEmpty
		}
		m.pos++
		if l.value != bt.NoSlot {
			a.BB.Set(l.value, v)
		}
	}
	st := a.Exec(n.Children[0])
	m.childRunning = st == bt.Running
	switch st {
	case bt.Failure, bt.Error:
		return st
	}
	return bt.Running
}
