package nodes

import (
	"strings"

	"github.com/botd-project/botd/bt"
)

var logType = bt.NodeType{
	Name: "Log", Kind: bt.Leaf, Category: "action",
	Doc: "Emits an event with `message` (\"{key}\" inside it is replaced by the key's value, \"{key:.1f}\" formats a number " +
		"as Python's format does: .Nf, .Ne, .Ng, d, %, with a width); SUCCESS.",
	Params: []bt.Param{
		{Name: "message", Type: bt.TString, Required: true, Doc: "text; {key} is replaced by the blackboard value, {key:.0f} formats a number"},
		{Name: "level", Type: bt.TEnum, Enum: []string{"debug", "info", "warning", "error"}, Default: "info", Doc: "severity"},
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
	slot bt.Slot
	f    numFormat // how a number in slot is written; the zero value as Value.String does
}

func newLog(b *bt.Builder) bt.Behavior {
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
			l.parts = append(l.parts, logPart{text: msg, slot: bt.NoSlot})
			break
		}
		if k, ok := bt.RefKey(msg[i : i+j+1]); ok {
			if i > 0 {
				l.parts = append(l.parts, logPart{text: msg[:i], slot: bt.NoSlot})
			}
			k, f := splitFormat(b, k)
			l.parts = append(l.parts, logPart{slot: b.Key(k), f: f})
		} else {
			l.parts = append(l.parts, logPart{text: msg[:i+j+1], slot: bt.NoSlot})
		}
		msg = msg[i+j+1:]
	}
	return l
}

// Tick builds the message in a buffer on the stack: the message string
// is its only allocation (none without a sink).
func (l *logNode) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	if a.Sink == nil {
		return bt.Success
	}
	var arr [256]byte
	buf := arr[:0]
	for _, p := range l.parts {
		if p.slot == bt.NoSlot {
			buf = append(buf, p.text...)
			continue
		}
		v := a.BB.Get(p.slot)
		switch v.Kind() {
		case bt.KindNone:
			buf = append(buf, "<unset>"...)
		case bt.KindNumber:
			x, _ := v.Number()
			buf = p.f.appendNumber(buf, x)
		default:
			start := len(buf)
			buf = p.f.pad(append(buf, v.String()...), start, false)
		}
	}
	a.Sink.Emit(a, n.Index, l.level, string(buf))
	return bt.Success
}
