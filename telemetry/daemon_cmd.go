package telemetry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

const maxCommandID = 128

type inboundCmd struct {
	payload []byte
	size    int    // when payload was too large to keep
	id      string // then: its id, read from its head
}

// onCommand runs on the MQTT client's goroutine and never waits. An
// e-stop is engaged from here (daemon_estop.go); any other command is
// queued for the intake, and when the queue is full (CommandQueue
// commands, or CommandQueueBytes) it is answered BUSY at once (a ground
// station sends it again with the same id).
func (d *Daemon) onCommand(_ string, payload []byte) {
	if o, isEStop := d.estopIn(payload); isEStop {
		d.engage(o)
		return
	}
	in := inboundCmd{size: len(payload)}
	if len(payload) > d.cfg.MaxPayload {
		in.id = scanTop(payload[:min(len(payload), tooLargeHead)]).id
	}
	// Only this goroutine adds to cmdBytes: the intake can only make room
	// between the test and the send.
	queued := d.cmdBytes.Load()
	if len(payload) <= d.cfg.MaxPayload && queued > 0 && queued+int64(len(payload)) > int64(d.cfg.CommandQueueBytes) {
		top := scanTop(payload)
		d.offerReply(refuse(top.id, protocol.ErrBusy, "", "%d bytes of commands are waiting already; send it again with the same id", queued))
		return
	}
	if len(payload) <= d.cfg.MaxPayload {
		in.payload = bytes.Clone(payload)
	}
	select {
	case d.cmds <- in:
		d.cmdBytes.Add(int64(len(in.payload)))
		return
	default:
	}
	if in.payload == nil {
		d.offerReply(d.tooLarge(in.size, payload))
		return
	}
	top := scanTop(payload)
	d.offerReply(refuse(top.id, protocol.ErrBusy, "", "%d commands are waiting already; send it again with the same id", cap(d.cmds)))
}

// estopIn reports whether a command payload is an e-stop, as the order
// to engage it. It reads the payload as UTF-8 text first (encoding.go: a
// byte-order mark, UTF-16). The cheap test next: only a payload that
// mentions estop (or hides letters behind \u escapes) is scanned, and no
// further than the size limit (scanTop reads what it can of a cut-off
// object).
func (d *Daemon) estopIn(payload []byte) (estopOrder, bool) {
	text, enc := utf8Text(payload[:min(len(payload), 2*d.cfg.MaxPayload)])
	if bytes.Contains(text, []byte("estop")) || bytes.Contains(text, []byte(`\u`)) {
		if top := scanTop(text[:min(len(text), d.cfg.MaxPayload)]); top.estop {
			return estopOrder{topic: protocol.LeafCmd, id: top.id, idProblem: top.idProblem, reply: true, encoding: enc, payload: keepEStop(text)}, true
		}
	}
	return estopOrder{}, false
}

// onRetainedCommand runs on the MQTT client's goroutine for a command the
// broker kept from before the subscription (the retain flag). It is never
// executed: it would run again at every connect, after every restart
// (a retained mission.start left by any tool started the mission at every
// boot). It is answered RETAINED, reported in an event and counted
// (dropped.retained). An e-stop is obeyed all the same: stopping is the
// safe side.
func (d *Daemon) onRetainedCommand(topic string, payload []byte) {
	if len(payload) == 0 {
		return // an empty retained message clears one: nothing was sent
	}
	if o, isEStop := d.estopIn(payload); isEStop {
		d.log.Warn("a retained e-stop on cmd was obeyed; clear it with an empty retained message", "topic", topic)
		d.engage(o)
		return
	}
	d.retainedCmds.Add(1)
	top := scanTop(payload[:min(len(payload), tooLargeHead, d.cfg.MaxPayload)])
	msg := fmt.Sprintf("a command left retained on %s was ignored (%d bytes): a retained command would run again at every connect; clear it with an empty retained message", topic, len(payload))
	d.log.Warn(msg, "id", top.id)
	d.EventSink()(protocol.Event{Kind: "command.retained", Level: "warning", Message: msg, Data: map[string]any{"id": top.id, "bytes": len(payload)}})
	d.offerReply(refuse(top.id, protocol.ErrRetained, "", "%s", msg))
}

// intakeLoop handles commands one at a time, in arrival order, and sends
// exactly one reply for each. It returns once every command it handed to
// Commands.Do has returned (they end with ctx).
func (d *Daemon) intakeLoop(ctx context.Context, cmds <-chan inboundCmd) {
	defer d.doing.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case in := <-cmds:
			d.cmdBytes.Add(-int64(len(in.payload)))
			d.queueReply(ctx, d.handle(ctx, in))
		}
	}
}

func refuse(id, code, path, format string, args ...any) protocol.Reply {
	return protocol.Reply{ID: id, Error: &protocol.ReplyError{Code: code, Message: fmt.Sprintf(format, args...), Path: path}}
}

// tooLarge refuses an oversized command, under its id when its head
// (tooLargeHead bytes) names one.
func (d *Daemon) tooLarge(size int, payload []byte) protocol.Reply {
	id := ""
	if payload != nil {
		id = scanTop(payload[:min(len(payload), tooLargeHead)]).id
	}
	return refuse(id, protocol.ErrTooLarge, "", "command of %d bytes exceeds the limit of %d", size, d.cfg.MaxPayload)
}

// handle checks a command in this order: size; JSON syntax, duplicate
// keys and nesting; id; member types; op; repeated id (replycache.go: the
// same command from the same sender gets the same reply again and
// nothing is done twice, another command under its id gets ID_REUSED);
// rate; ts; the signed envelope (Authorize). Then state.request is served
// here and every command goes to Commands.Do. An e-stop skips every check
// after the JSON (see engage). Only replies of commands that passed every
// check are kept for repeats: a refusal did nothing, so a resend is
// checked afresh (a rate-limited command may pass later).
func (d *Daemon) handle(ctx context.Context, in inboundCmd) protocol.Reply {
	if in.payload == nil {
		r := d.tooLarge(in.size, nil)
		r.ID = in.id
		return r
	}
	m, prob := parseStrict(in.payload, maxCommandDepth)
	if prob != nil {
		text, enc := utf8Text(in.payload)
		top := scanTop(text)
		if top.estop { // an e-stop hidden behind escapes or in another encoding, or broken: obeyed all the same
			return d.estopNow(ctx, estopOrder{topic: protocol.LeafCmd, id: top.id, idProblem: top.idProblem, reply: true, encoding: enc, payload: text})
		}
		if enc != "" {
			return refuse(top.id, protocol.ErrInvalidJSON, "", "a command is UTF-8 JSON text without a byte-order mark; this one is %s", enc)
		}
		id := top.id
		if prob.code == protocol.ErrInvalidJSON {
			id = "" // nothing of it can be trusted
		}
		return refuse(id, prob.code, prob.path, "%s", prob.msg)
	}
	id, idProblem := checkID(m["id"])
	if isEStop(m) {
		return d.estopNow(ctx, estopOrder{topic: protocol.LeafCmd, id: id, idProblem: idProblem, reply: true, payload: in.payload})
	}
	if idProblem != "" {
		return refuse("", protocol.ErrValidation, "/id", "%s", idProblem)
	}
	if prob := checkMemberNames(m); prob != nil {
		return refuse(id, prob.code, prob.path, "%s", prob.msg)
	}
	var c protocol.Command
	if err := json.Unmarshal(in.payload, &c); err != nil {
		return parseRefusal(id, err)
	}
	if c.Op == "" {
		return refuse(c.ID, protocol.ErrValidation, "/op", "missing op")
	}
	hash := bodyHash(m)
	key := cacheKey{sender: senderOf(c), id: c.ID}
	if prev, ok := d.replies.get(key); ok {
		return d.repeat(ctx, c, prev, hash)
	}
	now := d.cfg.Clock.Now()
	if !d.limiter.allow(now) {
		return refuse(c.ID, protocol.ErrRateLimited, "", "more than %g commands per second", d.cfg.CommandRate)
	}
	if c.TS != "" {
		ts, err := protocol.ParseTS(c.TS)
		if err != nil {
			return refuse(c.ID, protocol.ErrValidation, "/ts", "ts is not RFC 3339: %v", err)
		}
		if d.cfg.StaleAfter > 0 && now.Sub(ts) > d.cfg.StaleAfter {
			return refuse(c.ID, protocol.ErrStaleCommand, "/ts", "command sent at %s is older than %s", c.TS, d.cfg.StaleAfter)
		}
		if d.cfg.FutureSkew > 0 && ts.Sub(now) > d.cfg.FutureSkew {
			return refuse(c.ID, protocol.ErrStaleCommand, "/ts", "command sent at %s is more than %s ahead of the robot's clock (%s)",
				c.TS, d.cfg.FutureSkew, protocol.FormatTS(now))
		}
	}
	// Room for its entry is looked for before the envelope is checked:
	// the check spends a signed command's nonce, and a BUSY command must
	// be accepted when it is sent again as it was. Only this goroutine
	// makes running entries, so the room cannot go before the claim
	// (an e-stop's entry is a finished one, which the claim forgets).
	if !d.replies.room() {
		return d.cacheFull(c.ID)
	}
	if d.cfg.Authorize != nil {
		if rerr := d.cfg.Authorize(c, in.payload); rerr != nil {
			return protocol.Reply{ID: c.ID, Error: rerr}
		}
	}
	e, first, room := d.replies.claim(key, hash)
	switch {
	case !room:
		return d.cacheFull(c.ID)
	case !first: // an e-stop took the id meanwhile
		return d.repeat(ctx, c, e, hash)
	}
	if c.Op == protocol.OpStateRequest {
		select {
		case d.requests <- struct{}{}:
		default: // one is pending already
		}
	}
	if r, served := d.serveEvents(c); served {
		d.replies.finish(e, boundReply(r, d.cfg.MaxPublish))
		return e.reply
	}
	// Commands.Do runs on a goroutine of its own, which gives the entry
	// its outcome whenever it comes: a command still queued for the tick
	// when this delivery stops waiting may be carried out later, and a
	// retry under its id must get that outcome, never run it twice.
	cache := d.replies
	d.doing.Go(func() { cache.finish(e, boundReply(d.do(ctx, c), d.cfg.MaxPublish)) })
	return d.await(ctx, c, e, "no reply from the robot within %s; the command may still be carried out: a retry with the same id gets its outcome")
}

// cacheFull is the reply to a command that finds every entry of the
// reply cache still running.
func (d *Daemon) cacheFull(id string) protocol.Reply {
	return refuse(id, protocol.ErrBusy, "", "%d commands are still being carried out; send it again with the same id", d.cfg.ReplyCache)
}

// repeat answers a command whose key has an entry: ID_REUSED unless it is
// the same command, else the entry's reply, once it has one.
func (d *Daemon) repeat(ctx context.Context, c protocol.Command, e *cacheEntry, hash [32]byte) protocol.Reply {
	if e.hash != hash {
		return refuse(c.ID, protocol.ErrIDReused, "/id", "id %q was used by another command already (ts aside, a repeat must be the same command)", c.ID)
	}
	return d.await(ctx, c, e, "the first delivery of this command is still being carried out after %s: a retry with the same id gets its outcome")
}

// await returns e's reply, waiting for it at most CommandTimeout; late
// (a format with the timeout's %s) explains the INTERNAL reply when it
// did not come in time. Nothing else waits on e: an e-stop never looks
// at the cache before it engages.
func (d *Daemon) await(ctx context.Context, c protocol.Command, e *cacheEntry, late string) protocol.Reply {
	select {
	case <-e.done:
		return e.reply
	default:
	}
	t := time.NewTimer(d.cfg.CommandTimeout)
	defer t.Stop()
	select {
	case <-e.done:
		return e.reply
	case <-t.C:
		return refuse(c.ID, protocol.ErrInternal, "", late, d.cfg.CommandTimeout)
	case <-ctx.Done():
		return refuse(c.ID, protocol.ErrInternal, "", "the daemon is stopping")
	}
}

// isEStop reports whether a command is an e-stop: a top-level op (in any
// letter case, as encoding/json would read it) is "estop".
func isEStop(m map[string]any) bool {
	for k, v := range m {
		if s, _ := v.(string); s == protocol.OpEStop && strings.EqualFold(k, "op") {
			return true
		}
	}
	return false
}

// commandMembers are the member names of a Command.
var commandMembers = func() []string {
	var names []string
	t := reflect.TypeFor[protocol.Command]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}()

// checkMemberNames refuses a top-level member that differs from a
// command's member only in letter case: encoding/json would take "OP"
// for "op", and the last of the two for both, which is the duplicate key
// that parseStrict refuses by another name.
func checkMemberNames(m map[string]any) *jsonProblem {
	for k := range m {
		for _, name := range commandMembers {
			if k != name && strings.EqualFold(k, name) {
				return &jsonProblem{code: protocol.ErrValidation, path: "/" + pointerEscape(k),
					msg: fmt.Sprintf("unknown member %q: member names are case-sensitive (%q)", k, name)}
			}
		}
	}
	return nil
}

// bodyHash identifies a command for the reply cache: its members but ts,
// in a canonical encoding (sorted keys), so that a resend with a fresh ts
// is still the same command.
func bodyHash(m map[string]any) [32]byte {
	c := maps.Clone(m)
	delete(c, "ts")
	b, _ := json.Marshal(c) // values from a Decoder always encode
	return sha256.Sum256(b)
}

// do calls the handler. It sets no deadline: the handler answers when the
// command was carried out or refused (the intake stops waiting after
// CommandTimeout, the cache keeps waiting for the outcome), or when ctx
// ends. The handler turns its own panics into an INTERNAL reply
// (CommandHandler).
func (d *Daemon) do(ctx context.Context, c protocol.Command) (r protocol.Reply) {
	r = d.cfg.Commands.Do(ctx, c)
	r.ID = c.ID
	if !r.OK && r.Error == nil {
		r.Error = &protocol.ReplyError{Code: protocol.ErrInternal, Message: "refused without a reason"}
	}
	return r
}

// parseRefusal explains a command that does not decode into a Command: a
// member of the wrong type (VALIDATION_FAILED with its path). The JSON was
// checked before, so anything else is unexpected.
func parseRefusal(id string, err error) protocol.Reply {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		path := "/" + strings.ReplaceAll(te.Field, ".", "/")
		return refuse(id, protocol.ErrValidation, path, "%s: want %s, got %s", path, te.Type, te.Value)
	}
	return refuse(id, protocol.ErrInvalidJSON, "", "%v", err)
}

// offerReply queues a reply from the MQTT client's goroutine, which must
// not wait: when even the reply queue is full the reply is dropped, and
// counted with the commands left without a reply (dropped.commands).
func (d *Daemon) offerReply(r protocol.Reply) {
	if !d.replyQ.offer(r) {
		d.droppedCommands.Add(1)
		d.log.Warn("reply queue full: command left without a reply", "id", r.ID, "code", errCode(r))
	}
}

// queueReply queues a reply from one of the daemon's own goroutines: it
// waits for room (the reply loop drains the queue at publishing speed).
func (d *Daemon) queueReply(ctx context.Context, r protocol.Reply) {
	if !d.replyQ.put(ctx, r) {
		d.droppedCommands.Add(1)
	}
}

// queueEStopReply queues an e-stop's reply, waiting for room as queueReply.
func (d *Daemon) queueEStopReply(ctx context.Context, r protocol.Reply) {
	select {
	case d.estopReplies <- r:
	case <-ctx.Done():
		d.droppedCommands.Add(1)
	}
}

func errCode(r protocol.Reply) string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// replyLoop publishes the replies, e-stop replies first. It is the only
// publisher of the reply topic, so reply seqs go out in order. A reply
// waits for the link to be up (a command the broker delivers while the
// client subscribes, a retained one, is answered before the connection
// counts as up, when a publish would fail).
func (d *Daemon) replyLoop(ctx context.Context, conn transport.Conn) {
	for {
		if !waitUp(ctx, conn) {
			return
		}
		select {
		case r := <-d.estopReplies:
			d.sendReply(conn, r)
			continue
		default:
		}
		select {
		case <-ctx.Done():
			return
		case r := <-d.estopReplies:
			d.sendReply(conn, r)
		case <-d.replyQ.wait():
			// One reply a turn, so an e-stop's reply overtakes the rest
			// (take signals again while more are queued).
			if r, ok := d.replyQ.take(); ok {
				d.sendReply(conn, r)
			}
		}
	}
}

// waitUp waits until conn is up; false when ctx ended first.
func waitUp(ctx context.Context, conn transport.Conn) bool {
	for {
		changed := conn.LinkChanged()
		if conn.IsUp() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
		}
	}
}

func (d *Daemon) sendReply(conn transport.Conn, r protocol.Reply) {
	r = boundReply(r, d.cfg.MaxPublish)
	b, err := json.Marshal(protocol.ReplyMsg{Header: d.header(&d.seq.reply), Reply: r})
	if err != nil {
		// A Result the handler filled with something JSON cannot hold.
		d.log.Error("reply not encodable", "id", r.ID, "err", err)
		b, _ = json.Marshal(protocol.ReplyMsg{Header: d.header(&d.seq.reply),
			Reply: refuse(r.ID, protocol.ErrInternal, "", "reply not encodable")})
	}
	// Not waited for: paho resends it after a reconnect, and a ground
	// station that missed it asks again with the same id.
	if _, err := conn.PublishAsync(d.topics.Reply(), protocol.QoSReliable, false, b); err != nil {
		d.publishFailures.Add(1)
		d.log.Debug("reply not sent", "id", r.ID, "err", err)
	}
}

// tokenBucket limits commands: rate per second, up to burst at once.
type tokenBucket struct {
	rate, burst, tokens float64
	last                time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	return &tokenBucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

func (b *tokenBucket) allow(now time.Time) bool {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(b.burst, b.tokens+dt*b.rate)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
