package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// pending is a command on its way to the tick goroutine.
type pending struct {
	c   protocol.Command
	m   *missions.Mission // mission.load: already validated
	doc []byte
	// canon and hash are the mission's canonical bytes and their hash; the
	// document is on disk under them before the load is applied.
	canon []byte
	hash  string
	slot  *bt.Tree // mission.inject: compiled against parent
	// parent is the tree the injection was compiled for; the tick refuses
	// it if another mission started meanwhile.
	parent *bt.Tree
	// uses is how the mission of parent uses a blackboard.set key.
	uses []missions.KeyUse
	// estops is the count of e-stops engaged when an estop.reset was
	// sent.
	estops uint64
	reply  chan protocol.Reply
	// entry is the command's place in the reply cache; the tick goroutine
	// finishes it.
	entry *cacheEntry
}

// Do executes a command and returns its reply. Missions are decoded and
// validated here, on the caller's goroutine; the change itself is applied
// by the tick goroutine between two ticks. A repeated command id gets the
// first reply again and changes nothing, except that a failure which
// depends on a passing condition (BUSY, STORAGE_FAILED, INTERNAL) is not
// remembered, so that a retry once the cause is gone is tried afresh.
//
// An e-stop is the exception to all of it: it engages every time (with or
// without an id, whatever id it repeats), and its reply comes as soon as
// the hardware gate is closed, never after waiting for the tick goroutine
// or another command (estopNow).
func (r *Runner) Do(ctx context.Context, c protocol.Command) protocol.Reply {
	if c.Op == protocol.OpEStop {
		return r.estopNow(c)
	}
	if c.ID == "" {
		return refuse(c, protocol.ErrValidation, "command without an id", "/id")
	}
	entry, first := r.replies.claim(c.ID)
	if !first {
		select {
		case <-entry.done:
			return entry.reply
		case <-ctx.Done():
			return refuse(c, protocol.ErrInternal, "timed out waiting for the first delivery of this command", "")
		}
	}
	rep, queued := r.doSafely(ctx, c, entry)
	if !queued {
		r.replies.finish(entry, rep)
	}
	// else the tick goroutine finishes entry with the reply it applied
	// (drainCommands): a command that timed out here may still be
	// applied, and a retry under its id must get that outcome, not run
	// it twice.
	return rep
}

// estopNow is the e-stop path: the hardware gate closes on the caller's
// goroutine, the state shows ESTOP from now on (State reads the flag
// whatever the tick goroutine is doing, and telemetry is signalled), and
// the tick goroutine changes the mode the next time it runs (estopPending,
// estopReq). Nothing here waits for the tick goroutine or is cached by id.
func (r *Runner) estopNow(c protocol.Command) (rep protocol.Reply) {
	rep = ok(c, nil)
	r.replies.estops.Add(1) // before the gate: a reset releasing it now sees this one (applyReset)
	if hw := r.cfg.Hardware; hw != nil {
		func() {
			defer func() {
				if p := recover(); p != nil {
					r.log.Error("panic closing the e-stop gate", "panic", p)
					rep = refuse(c, protocol.ErrInternal, fmt.Sprintf("closing the hardware e-stop gate failed: %v; the mode goes to ESTOP all the same", p), "")
				}
			}()
			hw.EStop("operator e-stop")
		}()
	}
	r.estopPending.Store(true)
	r.mu.Lock()
	r.state.EStop = true
	r.mu.Unlock()
	r.signal()
	select {
	case r.estopReq <- struct{}{}:
	default: // the loop is woken already
	}
	return rep
}

// doSafely turns a panic while handling a command into an INTERNAL reply.
// queued is whether the command went to the tick goroutine, which then
// answers it (and finishes entry).
func (r *Runner) doSafely(ctx context.Context, c protocol.Command, entry *cacheEntry) (rep protocol.Reply, queued bool) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("panic handling a command", "op", c.Op, "panic", p)
			rep = refuse(c, protocol.ErrInternal, fmt.Sprintf("internal error: %v", p), "")
		}
	}()
	return r.do(ctx, c, entry)
}

func (r *Runner) do(ctx context.Context, c protocol.Command, entry *cacheEntry) (protocol.Reply, bool) {
	if protocol.IsHookOp(c.Op) {
		return r.doHook(ctx, c), false // hookcmds.go
	}
	h, known := ops[c.Op]
	if !known || c.Op == protocol.OpEStop { // an e-stop never queues (estopNow)
		return refuse(c, protocol.ErrUnknownOp, fmt.Sprintf("unknown op %q", c.Op), "/op"), false
	}
	p := &pending{c: c, reply: make(chan protocol.Reply, 1), entry: entry}
	if h.prepare != nil {
		if rep, refused := h.prepare(r, p); refused {
			return rep, false
		}
	}
	select {
	case r.cmds <- p:
	default:
		return refuse(c, protocol.ErrBusy, "too many commands queued; try again", ""), false
	}
	select {
	case rep := <-p.reply:
		return rep, true
	case <-ctx.Done():
		return refuse(c, protocol.ErrInternal, "no reply from the tick loop in time; a retry with the same id gets the outcome", ""), true
	}
}

// apply makes a queued command's change (tick goroutine).
func (r *Runner) apply(p *pending, now time.Time) protocol.Reply {
	h, known := ops[p.c.Op]
	if !known {
		return refuse(p.c, protocol.ErrUnknownOp, fmt.Sprintf("unknown op %q", p.c.Op), "/op")
	}
	return h.apply(r, p, now)
}

// missionBytes accepts a document as a JSON value or a JSON string (YAML,
// XML or JSON text).
func missionBytes(raw json.RawMessage) ([]byte, *protocol.ReplyError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, &protocol.ReplyError{Code: protocol.ErrValidation, Message: "mission.load without a mission", Path: "/mission"}
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, &protocol.ReplyError{Code: protocol.ErrInvalidJSON, Message: err.Error(), Path: "/mission"}
		}
		return []byte(s), nil
	}
	return raw, nil
}

// problemsError turns validation problems into a reply error: the code
// and path of the first problem, and the first protocol.MaxReplyProblems
// of them (More counts the others, so that a document with thousands of
// problems gets a small reply).
func problemsError(err error) *protocol.ReplyError {
	var ps bt.Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		e := &protocol.ReplyError{Code: protocol.ErrValidation, Message: err.Error()}
		e.Bound()
		return e
	}
	shown := ps[:min(len(ps), protocol.MaxReplyProblems)]
	msg := shown.Error()
	if more := len(ps) - len(shown); more > 0 {
		msg = fmt.Sprintf("%d problems, the first %d:%s\n  (and %d more)", len(ps), len(shown), strings.TrimPrefix(msg, fmt.Sprintf("%d problems:", len(shown))), more)
	}
	e := &protocol.ReplyError{Code: ps[0].Code, Message: msg, Path: ps[0].Path}
	if e.Code == "" {
		e.Code = protocol.ErrValidation
	}
	for _, p := range ps {
		e.Problems = append(e.Problems, protocol.ReplyProblem{Path: p.Path, Message: p.Message, Code: p.Code})
		if len(e.Problems) == protocol.MaxReplyProblems {
			break
		}
	}
	e.More = len(ps) - len(e.Problems)
	e.Bound()
	return e
}

func refuse(c protocol.Command, code, msg, path string) protocol.Reply {
	return protocol.Reply{ID: c.ID, Error: &protocol.ReplyError{Code: code, Message: msg, Path: path}}
}

func ok(c protocol.Command, result map[string]any) protocol.Reply {
	return protocol.Reply{ID: c.ID, OK: true, Result: result}
}

// drainCommands applies every queued command (tick goroutine).
func (r *Runner) drainCommands(now time.Time) {
	r.applyPendingEStop(now)
	for {
		select {
		case p := <-r.cmds:
			rep := r.apply(p, now)
			if p.entry != nil {
				r.replies.finish(p.entry, rep)
			}
			p.reply <- rep
			r.signal()
		default:
			return
		}
	}
}

// applyPendingEStop moves the mode to ESTOP when an e-stop engaged since
// the last drain (tick goroutine). An e-stop is never queued: it takes
// effect before any command queued with it, and a reset sent before it
// cannot release it (applyReset). The mode moves at once, so that a reset
// in the same drain finds the mission paused by the e-stop (it stays
// paused until resumed) rather than releasing a flag the mode never saw.
func (r *Runner) applyPendingEStop(now time.Time) {
	if r.estopPending.Swap(false) {
		r.applyEStop(&pending{c: protocol.Command{ID: "estop-pending", Op: protocol.OpEStop}}, now)
		r.stepMode(now)
		r.signal()
	}
}

// drainCommandsWith refuses every queued command (shutdown).
func (r *Runner) drainCommandsWith(code, msg string) {
	for {
		select {
		case p := <-r.cmds:
			rep := refuse(p.c, code, msg, "")
			if p.entry != nil {
				r.replies.finish(p.entry, rep)
			}
			p.reply <- rep
		default:
			return
		}
	}
}
