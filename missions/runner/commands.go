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
}

// Do executes a command and returns its reply. Missions are decoded and
// validated here, on the caller's goroutine; the change itself is applied
// by the tick goroutine between two ticks. Do returns once the command
// was applied or refused, or when ctx ends first (INTERNAL; the command
// may still be applied then).
//
// Do remembers no command ids: every call is carried out. Repeats of a
// command are the caller's to recognise; for commands from the ground
// that is telemetry's reply cache, the one idempotency layer
// (telemetry/replycache.go). Do never panics: a panic in an op, on the
// caller's goroutine or on the tick goroutine, becomes the command's one
// INTERNAL reply (doSafely, answerPanic).
//
// An e-stop is the exception to all of it: it engages every time (with or
// without an id), and its reply comes as soon as the hardware gate is
// closed, never after waiting for the tick goroutine or another command
// (estopNow).
func (r *Runner) Do(ctx context.Context, c protocol.Command) protocol.Reply {
	if c.Op == protocol.OpEStop {
		return r.estopNow(c)
	}
	if c.ID == "" {
		return refuse(c, protocol.ErrValidation, "command without an id", "/id")
	}
	return r.doSafely(ctx, c)
}

// estopNow is the e-stop path: the hardware gate closes on the caller's
// goroutine, the state shows ESTOP from now on (State reads the flag
// whatever the tick goroutine is doing, and telemetry is signalled), and
// the tick goroutine changes the mode the next time it runs (estopPending,
// estopReq). Nothing here waits for the tick goroutine or is cached by id.
func (r *Runner) estopNow(c protocol.Command) (rep protocol.Reply) {
	rep = ok(c, nil)
	r.estops.Add(1) // before the gate: a reset releasing it now sees this one (applyReset)
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

// doSafely is the runner's one guard of commands on the caller's
// goroutine: a panic while handling c (preparing it, a hook op) becomes
// its INTERNAL reply. On the tick goroutine answerPanic does the same.
func (r *Runner) doSafely(ctx context.Context, c protocol.Command) (rep protocol.Reply) {
	defer func() {
		if p := recover(); p != nil {
			rep = r.panicReply(c, p)
		}
	}()
	return r.do(ctx, c)
}

// panicReply is the one reply of a command whose handling panicked.
func (r *Runner) panicReply(c protocol.Command, p any) protocol.Reply {
	r.log.Error("panic handling a command", "op", c.Op, "panic", p)
	return refuse(c, protocol.ErrInternal, fmt.Sprintf("internal error: %v", p), "")
}

func (r *Runner) do(ctx context.Context, c protocol.Command) protocol.Reply {
	if protocol.IsHookOp(c.Op) {
		return r.doHook(ctx, c) // hookcmds.go
	}
	h, known := ops[c.Op]
	if !known || c.Op == protocol.OpEStop { // an e-stop never queues (estopNow)
		return refuse(c, protocol.ErrUnknownOp, fmt.Sprintf("unknown op %q", c.Op), "/op")
	}
	p := &pending{c: c, reply: make(chan protocol.Reply, 1)}
	if h.prepare != nil {
		if rep, refused := h.prepare(r, p); refused {
			return rep
		}
	}
	select {
	case r.cmds <- p:
	default:
		return refuse(c, protocol.ErrBusy, "too many commands queued; try again", "")
	}
	select {
	case rep := <-p.reply:
		return rep
	case <-ctx.Done():
		return refuse(c, protocol.ErrInternal, "no reply from the tick loop in time; the command may still be applied", "")
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
			r.applyOne(p, now)
		default:
			return
		}
	}
}

// applyOne applies p and answers it, also when apply panics (answerPanic).
func (r *Runner) applyOne(p *pending, now time.Time) {
	defer r.answerPanic(p)
	p.reply <- r.apply(p, now)
	r.signal()
}

// answerPanic, deferred on the tick goroutine around one command, gives a
// command whose apply panicked its one reply (INTERNAL) and lets the panic
// go on to safeTick, which ends the mission and makes the robot safe: the
// caller is answered, never left waiting for a reply that cannot come.
func (r *Runner) answerPanic(p *pending) {
	if v := recover(); v != nil {
		select {
		case p.reply <- r.panicReply(p.c, v):
		default: // answered before the panic (one slot)
		}
		panic(v)
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
			p.reply <- refuse(p.c, code, msg, "")
		default:
			return
		}
	}
}
