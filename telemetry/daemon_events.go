package telemetry

import (
	"github.com/botd-project/botd/telemetry/protocol"
)

// serveEvents answers the event history commands, which telemetry serves
// itself from its outbox: events.request sends the kept events after
// since_seq again on the events topic (each keeps its seq and id, so a
// ground station merges them with what it has); events.ack lets the
// outbox drop the delivered events up to seq.
func (d *Daemon) serveEvents(c protocol.Command) (protocol.Reply, bool) {
	switch c.Op {
	case protocol.OpEventsRequest:
		first, last, n := d.outbox.Replay(c.SinceSeq)
		res := map[string]any{"count": n, "boot": d.outbox.Boot(), "last_seq": d.outbox.LastSeq()}
		if n > 0 {
			res["first_seq"], res["to_seq"] = first, last
		}
		return protocol.Reply{ID: c.ID, OK: true, Result: res}, true
	case protocol.OpEventsAck:
		if c.Seq == 0 {
			return refuse(c.ID, protocol.ErrValidation, "/seq", "events.ack needs the seq of the last event the ground station has"), true
		}
		if last := d.outbox.LastSeq(); c.Seq > last {
			return refuse(c.ID, protocol.ErrValidation, "/seq", "seq %d was never sent (the last is %d)", c.Seq, last), true
		}
		n := d.outbox.Ack(c.Seq)
		return protocol.Reply{ID: c.ID, OK: true, Result: map[string]any{"dropped": n, "kept": d.outbox.Len()}}, true
	}
	return protocol.Reply{}, false
}
