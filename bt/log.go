package bt

import "strings"

var logType = NodeType{
	Name: "Log", Kind: Leaf, Category: "action",
	Doc: "Emits an event with `message` (\"{key}\" inside it is replaced by the key's value, \"{key:.1f}\" formats a number " +
		"as Python's format does: .Nf, .Ne, .Ng, d, %, with a width); SUCCESS.",
	Params: []Param{
		{Name: "message", Type: TString, Required: true, Doc: "text; {key} is replaced by the blackboard value, {key:.0f} formats a number"},
		{Name: "level", Type: TEnum, Enum: []string{"debug", "info", "warning", "error"}, Default: "info", Doc: "severity"},
	},
	New: newLog,
}

// logNode keeps the message as literal parts and key slots.
type logNode struct {
	level string
	parts []logPart
}

type logPart struct {
	text string
	slot Slot
	f    numFormat // how a number in slot is written; the zero value as Value.String does
}

func newLog(b *Builder) Behavior {
	l := &logNode{}
	lv, _ := b.Raw("level")
	l.level, _ = lv.(string)
	raw, _ := b.Raw("message")
	msg, _ := raw.(string)
	for msg != "" {
		i := strings.IndexByte(msg, '{')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(msg[i:], '}')
		}
		if i < 0 || j < 0 {
			l.parts = append(l.parts, logPart{text: msg, slot: NoSlot})
			break
		}
		if k, ok := RefKey(msg[i : i+j+1]); ok {
			if i > 0 {
				l.parts = append(l.parts, logPart{text: msg[:i], slot: NoSlot})
			}
			k, f := splitFormat(b, k)
			l.parts = append(l.parts, logPart{slot: b.Key(k), f: f})
		} else {
			l.parts = append(l.parts, logPart{text: msg[:i+j+1], slot: NoSlot})
		}
		msg = msg[i+j+1:]
	}
	return l
}

// Tick builds the message in a buffer on the stack: the message string
// is its only allocation (none without a sink).
func (l *logNode) Tick(a *Agent, n *Node) Status {
	if a.Sink == nil {
		return Success
	}
	var arr [256]byte
	buf := arr[:0]
	for _, p := range l.parts {
		if p.slot == NoSlot {
			buf = append(buf, p.text...)
			continue
		}
		v := a.BB.Get(p.slot)
		switch v.Kind() {
		case KindNone:
			buf = append(buf, "<unset>"...)
		case KindNumber:
			buf = p.f.appendNumber(buf, v.n)
		default:
			start := len(buf)
			buf = p.f.pad(append(buf, v.String()...), start, false)
		}
	}
	a.Sink.Emit(a, n.Index, l.level, string(buf))
	return Success
}
