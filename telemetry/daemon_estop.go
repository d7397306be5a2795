package telemetry

import (
	"bytes"
	"context"
	"maps"

	"github.com/google/uuid"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// The e-stop path. An e-stop is obeyed whatever else is wrong with it (its
// ts, its id, other members), and never waits behind ordinary commands,
// the rate limit or the reply cache. It comes two ways: as a command on
// cmd, recognised in the MQTT client's callback before any queue; and on
// the estop topic, whatever the payload. The daemon reads the estop topic
// on a connection of its own, so that a flood of commands the broker
// queued for the main connection cannot delay it.
//
// The callbacks hand the e-stop to estopLoop through a signal with one
// slot, which never blocks (a full slot means the loop looks again
// anyway); the loop calls Commands.Do with the e-stop (the runner closes
// the hardware gate at once, on the caller's goroutine) and then answers
// each e-stop that asked for a reply.

const (
	// maxEStopOrders bounds the e-stops waiting for their reply; past it
	// an e-stop still engages, but is left without a reply (counted).
	maxEStopOrders = 1024
	// maxEStopKept is the largest e-stop payload kept to be checked (for
	// the log and the reply cache) after it engaged.
	maxEStopKept = 4096
)

// estopOrder is one e-stop received.
type estopOrder struct {
	topic     string // leaf it came on: cmd or estop
	id        string // "" when it had no usable id
	idProblem string // why not
	encoding  string // the payload came in this encoding, not plain UTF-8 (utf8Text)
	reply     bool   // answer on the reply topic
	payload   []byte // nil when not kept
}

// estopConnOptions are the options of the e-stop connection: the main
// connection's broker, credentials and TLS (under EStopUsername when
// set), its own client id, the estop
// topic only, and no will, birth or goodbye.
func (d *Daemon) estopConnOptions() transport.Options {
	o := d.cfg.Conn
	o.ClientID += "-estop"
	if d.cfg.EStopUsername != "" {
		o.Username = d.cfg.EStopUsername
	}
	o.Subscriptions = []transport.Subscription{{Filter: d.topics.EStop(), QoS: protocol.QoSReliable, Handler: d.onEStop, Retained: d.onRetainedEStop}}
	o.Will, o.Birth, o.Goodbye = nil, nil, nil
	o.NoResend = nil
	o.Discard = d.topics.Discard()
	if o.Logger == nil {
		o.Logger = d.log
	}
	o.Logger = o.Logger.With("conn", "estop")
	return o
}

// onEStop runs on the e-stop connection's callback: any payload engages,
// and a reply goes out when it carries a usable id.
func (d *Daemon) onEStop(_ string, payload []byte) {
	o := estopOrder{topic: protocol.LeafEStop}
	if len(payload) <= d.cfg.MaxPayload {
		text, enc := utf8Text(payload)
		top := scanTop(text)
		o.id, o.reply, o.encoding = top.id, top.id != "", enc
		o.payload = keepEStop(text)
	}
	d.engage(o)
}

// onRetainedEStop obeys an e-stop the broker kept from before the
// subscription (left retained by a ground station): an e-stop is obeyed
// however it comes, so a robot with one left on the broker stops at every
// connect until someone clears it (an empty retained message). That is
// the safe side; the log says where it came from.
func (d *Daemon) onRetainedEStop(topic string, payload []byte) {
	if len(payload) == 0 {
		return // the clearing message itself
	}
	d.log.Warn("a retained e-stop was obeyed; clear it with an empty retained message", "topic", topic)
	d.onEStop(topic, payload)
}

// keepEStop copies an e-stop's payload to be checked after it engaged,
// unless it is too large to be worth it.
func keepEStop(payload []byte) []byte {
	if len(payload) > maxEStopKept {
		return nil
	}
	return bytes.Clone(payload)
}

// engage hands an e-stop to estopLoop without waiting.
func (d *Daemon) engage(o estopOrder) {
	d.estopMu.Lock()
	if len(d.estopOrders) < maxEStopOrders {
		d.estopOrders = append(d.estopOrders, o)
	} else if o.reply {
		d.droppedCommands.Add(1) // engaged all the same, but left without a reply
	}
	d.estopMu.Unlock()
	select {
	case d.estopSig <- struct{}{}:
	default: // a signal is pending: the loop takes this order with it
	}
}

// estopLoop engages the e-stops the callbacks signalled: one Commands.Do
// for all that arrived meanwhile, then a reply to each that wants one.
func (d *Daemon) estopLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.estopSig:
		}
		d.estopMu.Lock()
		orders := d.estopOrders
		d.estopOrders = nil
		d.estopMu.Unlock()
		rep := d.estopDo(ctx)
		for _, o := range orders {
			r := d.estopAnswer(rep, o)
			if o.reply {
				d.queueEStopReply(ctx, r)
			}
		}
	}
}

// estopNow engages an e-stop the intake found (one whose op the callback
// could not see, behind \u escapes) and returns its reply.
func (d *Daemon) estopNow(ctx context.Context, o estopOrder) protocol.Reply {
	return d.estopAnswer(d.estopDo(ctx), o)
}

// estopDo calls Commands.Do with an e-stop under an id of its own: a
// handler that remembers replies by id (the runner does) would answer a
// repeated id without engaging again, and an e-stop must engage every
// time, whatever id the ground station used before.
func (d *Daemon) estopDo(ctx context.Context) protocol.Reply {
	return d.do(ctx, protocol.Command{ID: "botd-estop-" + uuid.NewString(), Op: protocol.OpEStop})
}

// estopAnswer turns the handler's reply into the reply to one e-stop, and
// logs it: what was wrong with it, if anything, goes into the log and the
// reply's result ("malformed"), since it was obeyed all the same.
func (d *Daemon) estopAnswer(rep protocol.Reply, o estopOrder) protocol.Reply {
	var note string
	if o.topic == protocol.LeafCmd {
		note = o.idProblem // on cmd, a command needs an id
	}
	if o.encoding != "" {
		note = joinNotes(note, "sent as "+o.encoding+", not UTF-8 JSON text")
	}
	var hash [32]byte
	hashed := false
	if len(o.payload) > 0 {
		m, prob := parseStrict(o.payload, maxCommandDepth)
		switch {
		case prob != nil:
			note = joinNotes(note, prob.path+": "+prob.msg)
		default:
			hash, hashed = bodyHash(m), true
			if ts, ok := m["ts"]; ok {
				s, _ := ts.(string)
				if _, err := protocol.ParseTS(s); err != nil {
					note = joinNotes(note, "/ts: not RFC 3339")
				}
			}
			if op, ok := m["op"]; ok && op != protocol.OpEStop {
				note = joinNotes(note, "/op: not estop")
			}
		}
	}
	r := rep
	r.ID = o.id
	if note != "" {
		d.log.Warn("e-stop obeyed although malformed", "topic", o.topic, "id", o.id, "problem", note)
		if r.OK {
			r.Result = maps.Clone(r.Result)
			if r.Result == nil {
				r.Result = map[string]any{}
			}
			r.Result["malformed"] = note
		}
	} else {
		d.log.Info("e-stop", "topic", o.topic, "id", o.id)
	}
	if o.id != "" && hashed {
		// A later unsigned command under this id gets ID_REUSED. An
		// e-stop is never authorised, so it is remembered under no key
		// (replycache.go): it cannot take a signed command's id.
		d.replies.remember(cacheKey{id: o.id}, hash, r)
	}
	return r
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
