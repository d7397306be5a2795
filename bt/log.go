package bt

import "strings"

var logType = NodeType{
	Name: "Log", Kind: Leaf, Category: "action",
	Doc: "Emits an event with `message` (\"{key}\" inside it is replaced by the key's value); SUCCESS.",
	Params: []Param{
		{Name: "message", Type: TString, Required: true, Doc: "text; {key} is replaced by the blackboard value"},
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
			l.parts = append(l.parts, logPart{slot: b.Key(k)})
		} else {
			l.parts = append(l.parts, logPart{text: msg[:i+j+1], slot: NoSlot})
		}
		msg = msg[i+j+1:]
	}
	return l
}

func (l *logNode) Tick(a *Agent, n *Node) Status {
	if a.Sink == nil {
		return Success
	}
	var sb strings.Builder
	for _, p := range l.parts {
		if p.slot == NoSlot {
			sb.WriteString(p.text)
		} else if v := a.BB.Get(p.slot); v.Kind() != KindNone {
			sb.WriteString(v.String())
		} else {
			sb.WriteString("<unset>")
		}
	}
	a.Sink.Emit(a, n.Index, l.level, sb.String())
	return Success
}
