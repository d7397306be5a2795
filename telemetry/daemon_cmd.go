package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

const maxCommandID = 128

type inboundCmd struct {
	payload []byte
	size    int // when payload was too large to keep
}

// onCommand runs on the MQTT client's goroutine: it only queues. A full
// queue drops the command (no reply; counted): the ground station resends
// with the same id.
func (d *Daemon) onCommand(_ string, payload []byte) {
	in := inboundCmd{size: len(payload)}
	if len(payload) <= d.cfg.MaxPayload {
		in.payload = bytes.Clone(payload)
	}
	queue := d.cmds
	if isEStop(in.payload) {
		// E-stop always wins: it does not wait behind a slow command.
		queue = d.urgent
	}
	select {
	case queue <- in:
	default:
		d.droppedCommands.Add(1)
	}
}

// intakeLoop handles commands one at a time, in arrival order, and sends
// exactly one reply for each.
func (d *Daemon) intakeLoop(ctx context.Context, conn transport.Conn, cmds <-chan inboundCmd) {
	for {
		select {
		case <-ctx.Done():
			return
		case in := <-cmds:
			d.sendReply(conn, d.handle(ctx, in))
		}
	}
}

// isEStop reports whether a payload is an estop command.
func isEStop(payload []byte) bool {
	if !bytes.Contains(payload, []byte("estop")) {
		return false
	}
	var c struct {
		Op string `json:"op"`
	}
	return json.Unmarshal(payload, &c) == nil && c.Op == protocol.OpEStop
}

func refuse(id, code, path, format string, args ...any) protocol.Reply {
	return protocol.Reply{ID: id, Error: &protocol.ReplyError{Code: code, Message: fmt.Sprintf(format, args...), Path: path}}
}

// handle checks a command in this order: size, JSON, id and op, repeated
// id (the same reply again, nothing done twice), rate, age; then
// state.request is served here and every command goes to Commands.Do.
// Only replies of commands that reached Commands.Do are kept for repeats:
// a refusal did nothing, so a resend is checked afresh (a rate-limited
// command may pass later).
func (d *Daemon) handle(ctx context.Context, in inboundCmd) protocol.Reply {
	if in.payload == nil {
		return refuse("", protocol.ErrTooLarge, "", "command of %d bytes exceeds the limit of %d", in.size, d.cfg.MaxPayload)
	}
	var c protocol.Command
	if err := json.Unmarshal(in.payload, &c); err != nil {
		return parseRefusal(in.payload, err)
	}
	if len(c.ID) > maxCommandID {
		return refuse("", protocol.ErrValidation, "/id", "id longer than %d bytes", maxCommandID)
	}
	if c.ID == "" {
		return refuse("", protocol.ErrValidation, "/id", "missing id")
	}
	if c.Op == "" {
		return refuse(c.ID, protocol.ErrValidation, "/op", "missing op")
	}
	if r, ok := d.replies.get(c.ID); ok {
		return r
	}
	now := d.cfg.Clock.Now()
	if c.Op != protocol.OpEStop && !d.limiter.allow(now) { // e-stop is never rate-limited
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
	}
	if c.Op == protocol.OpStateRequest {
		select {
		case d.requests <- struct{}{}:
		default: // one is pending already
		}
	}
	r, served := d.serveEvents(c)
	if !served {
		r = d.do(ctx, c)
	}
	d.replies.put(c.ID, r)
	return r
}

func (d *Daemon) do(ctx context.Context, c protocol.Command) (r protocol.Reply) {
	defer func() {
		if p := recover(); p != nil {
			d.log.Error("command handler panicked", "op", c.Op, "panic", p)
			r = refuse(c.ID, protocol.ErrInternal, "", "command handler failed")
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, d.cfg.CommandTimeout)
	defer cancel()
	r = d.cfg.Commands.Do(ctx, c)
	r.ID = c.ID
	if !r.OK && r.Error == nil {
		r.Error = &protocol.ReplyError{Code: protocol.ErrInternal, Message: "refused without a reason"}
	}
	return r
}

// parseRefusal explains a payload that does not decode into a Command:
// INVALID_JSON for bad syntax or a non-object, VALIDATION_FAILED with the
// path for a member of the wrong type. It names the command's id when it
// can find one.
func parseRefusal(payload []byte, err error) protocol.Reply {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		var probe struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(payload, &probe)
		id, _ := probe.ID.(string)
		if len(id) > maxCommandID {
			id = ""
		}
		path := "/" + strings.ReplaceAll(te.Field, ".", "/")
		return refuse(id, protocol.ErrValidation, path, "%s: want %s, got %s", path, te.Type, te.Value)
	}
	if te != nil {
		return refuse("", protocol.ErrInvalidJSON, "", "a command is a JSON object")
	}
	return refuse("", protocol.ErrInvalidJSON, "", "%v", err)
}

func (d *Daemon) sendReply(conn transport.Conn, r protocol.Reply) {
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

// replyCache keeps the last n replies by command id.
// replyCache keeps the last replies by command id. The ordinary and the
// e-stop intake loops share it, so it locks.
type replyCache struct {
	mu   sync.Mutex
	byID map[string]protocol.Reply
	ring []string
	next int
}

func newReplyCache(n int) *replyCache {
	return &replyCache{byID: make(map[string]protocol.Reply, n), ring: make([]string, n)}
}

func (c *replyCache) get(id string) (protocol.Reply, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byID[id]
	return r, ok
}

func (c *replyCache) put(id string, r protocol.Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[id]; ok {
		c.byID[id] = r
		return
	}
	if old := c.ring[c.next]; old != "" {
		delete(c.byID, old)
	}
	c.ring[c.next] = id
	c.next = (c.next + 1) % len(c.ring)
	c.byID[id] = r
}
