package bt

import (
	"encoding/json"
	"io"
	"strconv"
)

// TraceWriter writes the JSON-lines trace of MISSIONS.md section 8: a first
// line with the node table, then one line per tick per agent with the
// events in the order they happened. Attach it to agents as their Observer;
// call EndTick after each agent's tick.
type TraceWriter struct {
	w      io.Writer
	buf    []byte
	events [][]byte // pending events per agent id
	err    error
}

// NewTraceWriter writes the node table of t to w and returns the writer.
func NewTraceWriter(w io.Writer, t *Tree) *TraceWriter {
	tw := &TraceWriter{w: w}
	b := append(tw.buf[:0], `{"nodes":[`...)
	for i := range t.nodes {
		n := &t.nodes[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(n.Index), 10)
		b = append(b, `,"id":`...)
		b = strconv.AppendQuote(b, n.ID)
		b = append(b, `,"type":`...)
		typ := ""
		if n.Type != nil {
			typ = n.Type.Name
		}
		b = strconv.AppendQuote(b, typ)
		b = append(b, `,"name":`...)
		b = strconv.AppendQuote(b, n.Name)
		b = append(b, `,"parent":`...)
		b = strconv.AppendInt(b, int64(n.Parent), 10)
		b = append(b, '}')
	}
	b = append(b, "]}\n"...)
	tw.write(b)
	return tw
}

func (tw *TraceWriter) write(b []byte) {
	tw.buf = b[:0]
	if tw.err == nil {
		_, tw.err = tw.w.Write(b)
	}
}

// OnNode records one event.
func (tw *TraceWriter) OnNode(a *Agent, node int32, ev Event, st Status) {
	for a.ID >= len(tw.events) {
		tw.events = append(tw.events, nil)
	}
	e := tw.events[a.ID]
	if len(e) > 0 {
		e = append(e, ',')
	}
	e = append(e, `{"node":`...)
	e = strconv.AppendInt(e, int64(node), 10)
	e = append(e, `,"event":"`...)
	e = append(e, ev.String()...)
	e = append(e, '"')
	if ev == EventTick {
		e = append(e, `,"status":"`...)
		e = append(e, st.String()...)
		e = append(e, '"')
	}
	e = append(e, '}')
	tw.events[a.ID] = e
}

// Emit records a message a node emitted (a Sink's Emit: an error's
// reason, a Log node's message) as an event {"node":3,"event":"message",
// "level":"error","message":"..."}.
func (tw *TraceWriter) Emit(a *Agent, node int32, level, msg string) {
	for a.ID >= len(tw.events) {
		tw.events = append(tw.events, nil)
	}
	e := tw.events[a.ID]
	if len(e) > 0 {
		e = append(e, ',')
	}
	e = append(e, `{"node":`...)
	e = strconv.AppendInt(e, int64(node), 10)
	e = append(e, `,"event":"message","level":`...)
	e = appendJSONString(e, level)
	e = append(e, `,"message":`...)
	e = appendJSONString(e, msg)
	e = append(e, '}')
	tw.events[a.ID] = e
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil {
		return append(b, `""`...)
	}
	return append(b, q...)
}

// EndTick writes the line of one agent's tick.
func (tw *TraceWriter) EndTick(tick uint64, timeMs float64, a *Agent, root Status) {
	b := append(tw.buf[:0], `{"tick":`...)
	b = strconv.AppendUint(b, tick, 10)
	b = append(b, `,"time_ms":`...)
	b = strconv.AppendFloat(b, timeMs, 'f', -1, 64)
	b = append(b, `,"agent":`...)
	b = strconv.AppendInt(b, int64(a.ID), 10)
	b = append(b, `,"root":"`...)
	b = append(b, root.String()...)
	b = append(b, `","events":[`...)
	if a.ID < len(tw.events) {
		b = append(b, tw.events[a.ID]...)
		tw.events[a.ID] = tw.events[a.ID][:0]
	}
	b = append(b, "]}\n"...)
	tw.write(b)
}

// Err returns the first write error.
func (tw *TraceWriter) Err() error { return tw.err }
