package runner

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	uses []keyUse
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
	p := &pending{c: c, reply: make(chan protocol.Reply, 1), entry: entry}
	switch c.Op {
	case protocol.OpMissionLoad:
		doc, rerr := missionBytes(c.Mission)
		if rerr != nil {
			return protocol.Reply{ID: c.ID, Error: rerr}, false
		}
		m, err := missions.Load(doc, r.loadOptions())
		if err == nil && r.cfg.CheckMission != nil {
			err = r.cfg.CheckMission(m)
		}
		if err != nil {
			return protocol.Reply{ID: c.ID, Error: problemsError(err)}, false
		}
		p.m, p.doc = m, doc
		p.canon = missions.Canonical(m.Doc)
		p.hash = m.Doc.Hash()
		if m.Doc.ID != "" {
			if err := r.jrnl.storeDoc(m.Doc.ID, p.hash, p.canon); err != nil {
				r.log.Error("storing a mission", "mission", m.Doc.ID, "err", err)
				return refuse(c, protocol.ErrStorageFailed, fmt.Sprintf("the mission cannot be stored, so it would be lost at a restart: %v", err), ""), false
			}
		}
	case protocol.OpEStopReset:
		// The reset releases the e-stops engaged before it was sent, never
		// one that came after it (applyReset compares).
		p.estops = r.replies.estops.Load()
	case protocol.OpMissionInject:
		if rep, bad := r.prepareInject(p); bad {
			return rep, false
		}
	case protocol.OpBlackboardSet:
		if rep, bad := r.prepareSet(p); bad {
			return rep, false
		}
	case protocol.OpMissionStart, protocol.OpMissionPause, protocol.OpMissionResume, protocol.OpMissionAbort,
		protocol.OpStateRequest, protocol.OpMissionsList:
	default:
		return refuse(c, protocol.ErrUnknownOp, fmt.Sprintf("unknown op %q", c.Op), "/op"), false
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
		r.apply(&pending{c: protocol.Command{ID: "estop-pending", Op: protocol.OpEStop}}, now)
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

func (r *Runner) apply(p *pending, now time.Time) protocol.Reply {
	c := p.c
	mode := r.currentMode()
	switch c.Op {
	case protocol.OpMissionLoad:
		return r.applyLoad(p, now)
	case protocol.OpMissionStart:
		s, found := r.store[c.MissionID]
		if !found {
			return refuse(c, protocol.ErrNoMission, fmt.Sprintf("no mission %q is loaded", c.MissionID), "/mission_id")
		}
		return r.applyStart(c, s, c.Replace, now)
	case protocol.OpMissionPause:
		if r.run == nil || !isActive(r.run.status) {
			return refuse(c, protocol.ErrNoMission, "no mission is running", "")
		}
		if mode == protocol.ModePaused {
			return ok(c, nil)
		}
		if mode != protocol.ModeRunning && mode != protocol.ModeFailsafe {
			return refuse(c, protocol.ErrNotAllowedInMode, "pause is not possible in mode "+mode, "")
		}
		r.mode.To(protocol.ModePaused, r, &r.modeMem, now.UnixNano())
		r.requested = protocol.ModePaused
		r.emit(protocol.Event{Kind: "mission.paused", Level: "info", Mission: r.run.s.m.Doc.ID, Message: "mission paused by the operator"})
		r.jrnl.add(journalRecord{TS: now.UTC(), Event: "paused", Mission: r.run.s.m.Doc.ID, Revision: r.run.s.m.Doc.Revision}, nil)
		return ok(c, nil)
	case protocol.OpMissionResume:
		return r.applyResume(c, now)
	case protocol.OpMissionAbort:
		if r.run == nil || !isActive(r.run.status) {
			r.safe()
			return refuse(c, protocol.ErrNoMission, "no mission is running", "")
		}
		r.finish(r.run, now, protocol.RunAborted, "aborted by the operator (mission.abort)")
		return ok(c, nil)
	case protocol.OpMissionInject:
		return r.applyInject(p)
	case protocol.OpEStop:
		if !r.estop {
			r.estop = true
			r.mu.Lock()
			r.state.EStop = true
			r.mu.Unlock()
		}
		return ok(c, nil)
	case protocol.OpEStopReset:
		return r.applyReset(p, now)
	case protocol.OpStateRequest:
		return ok(c, nil)
	case protocol.OpMissionsList:
		return ok(c, map[string]any{"missions": r.storedSummaries()})
	case protocol.OpBlackboardSet:
		return r.applySet(p, now)
	}
	return refuse(c, protocol.ErrUnknownOp, fmt.Sprintf("unknown op %q", c.Op), "/op")
}

// applyReset releases the e-stop, unless another e-stop engaged after the
// reset was sent: that one stays engaged whatever the order in which the
// two reach the tick goroutine.
func (r *Runner) applyReset(p *pending, now time.Time) protocol.Reply {
	c := p.c
	r.applyPendingEStop(now) // an e-stop engaged before the reset was sent is released by it
	later := func() bool { return r.replies.estops.Load() != p.estops }
	if later() {
		return refuse(c, protocol.ErrNotAllowedInMode, "an e-stop engaged after this reset was sent; send estop.reset again", "")
	}
	if !r.estop {
		return ok(c, nil)
	}
	r.estop = false
	if hw := r.cfg.Hardware; hw != nil {
		hw.ReleaseEStop()
		if later() { // one engaged while the gate was being released
			hw.EStop("operator e-stop")
			r.estop = true
			return refuse(c, protocol.ErrNotAllowedInMode, "an e-stop engaged after this reset was sent; send estop.reset again", "")
		}
	}
	r.mu.Lock()
	r.state.EStop = r.estopPending.Load()
	r.mu.Unlock()
	msg := "e-stop released; no mission is running"
	if r.run != nil && isActive(r.run.status) {
		msg = "e-stop released; the mission stays paused until resumed"
	}
	r.emit(protocol.Event{Kind: "estop.released", Level: "warning", Message: msg})
	return ok(c, nil)
}

func (r *Runner) applyLoad(p *pending, now time.Time) protocol.Reply {
	c, m := p.c, p.m
	d := m.Doc
	if d.ID == "" {
		return refuse(c, protocol.ErrValidation, "a mission sent to the daemon needs an id (botctl fills one in)", "/id")
	}
	hash := p.hash
	if old, found := r.store[d.ID]; found {
		switch {
		case d.Revision < old.m.Doc.Revision:
			return refuse(c, protocol.ErrOutdatedRevision, fmt.Sprintf("revision %d is older than the stored revision %d", d.Revision, old.m.Doc.Revision), "/revision")
		case d.Revision == old.m.Doc.Revision && hash != old.hash:
			return refuse(c, protocol.ErrSameRevisionDiff, fmt.Sprintf("revision %d is already stored with different content; raise the revision", d.Revision), "/revision")
		case d.Revision == old.m.Doc.Revision:
			if c.Start && (r.run == nil || r.run.s != old || !isActive(r.run.status)) {
				return r.applyStart(c, old, c.Replace, now)
			}
			return ok(c, map[string]any{"mission_id": d.ID, "revision": d.Revision, "unchanged": true})
		}
		if r.run != nil && r.run.s == old && isActive(r.run.status) && !c.Replace {
			return refuse(c, protocol.ErrOtherMission, "this mission is running; send replace: true to swap in the new revision", "")
		}
	}
	if c.Start && r.run != nil && isActive(r.run.status) && r.run.s.m.Doc.ID != d.ID && !c.Replace {
		return refuse(c, protocol.ErrOtherMission, fmt.Sprintf("mission %q is running; send replace: true to replace it", r.run.s.m.Doc.Name), "")
	}
	r.stored++
	s := &stored{m: m, hash: hash, doc: p.canon, order: r.stored}
	r.store[d.ID] = s
	r.evict(now)
	r.emit(protocol.Event{Kind: "mission.accepted", Level: "info", Mission: d.ID, Revision: d.Revision,
		Message: fmt.Sprintf("mission %q revision %d accepted (%d nodes)", d.Name, d.Revision, m.Tree.Len())})
	r.jrnl.add(journalRecord{TS: now.UTC(), Event: "accepted", Mission: d.ID, Revision: d.Revision, Hash: hash}, nil) // the document is on disk already
	res := map[string]any{"mission_id": d.ID, "revision": d.Revision, "nodes": m.Tree.Len()}
	if c.Start {
		rep := r.applyStart(c, s, true, now)
		if !rep.OK {
			return rep
		}
		res["started"] = true
	}
	return ok(c, res)
}

// evict drops the oldest stored missions that are not running while the
// store is over MaxStored missions or MaxStoredBytes, each with an event
// and a journal record (its document is deleted from disk).
func (r *Runner) evict(now time.Time) {
	for {
		n, bytes := len(r.store), 0
		for _, s := range r.store {
			bytes += len(s.doc)
		}
		if n <= r.cfg.MaxStored && bytes <= r.cfg.MaxStoredBytes {
			return
		}
		var oldest *stored
		for _, s := range r.store {
			if r.run != nil && r.run.s == s {
				continue
			}
			if oldest == nil || s.order < oldest.order {
				oldest = s
			}
		}
		if oldest == nil {
			return // only the running mission is left
		}
		d := oldest.m.Doc
		delete(r.store, d.ID)
		r.emit(protocol.Event{Kind: "mission.evicted", Level: "info", Mission: d.ID, Revision: d.Revision,
			Message: fmt.Sprintf("mission %q dropped from storage to make room (%d missions, %d bytes stored; limits %d and %d)", d.Name, n, bytes, r.cfg.MaxStored, r.cfg.MaxStoredBytes)})
		r.jrnl.add(journalRecord{TS: now.UTC(), Event: "evicted", Mission: d.ID, Revision: d.Revision, Hash: oldest.hash}, nil)
	}
}

func (r *Runner) applyStart(c protocol.Command, s *stored, replace bool, now time.Time) protocol.Reply {
	switch mode := r.currentMode(); {
	case mode == protocol.ModeEStop:
		return refuse(c, protocol.ErrNotAllowedInMode, "e-stop is engaged; send estop.reset first", "")
	case mode == protocol.ModeFailsafe:
		return refuse(c, protocol.ErrNotAllowedInMode, "a failsafe is active ("+r.fs.reason+")", "")
	}
	if why := r.fenceRefusal(); why != "" {
		return refuse(c, protocol.ErrNotAllowedInMode, why, "")
	}
	if r.run != nil && isActive(r.run.status) && !replace {
		return refuse(c, protocol.ErrOtherMission, fmt.Sprintf("mission %q is %s; send replace: true to replace it", r.run.s.m.Doc.Name, r.run.status), "")
	}
	r.startMission(s, now)
	return ok(c, map[string]any{"mission_id": s.m.Doc.ID, "revision": s.m.Doc.Revision, "started": true})
}

func (r *Runner) applyResume(c protocol.Command, now time.Time) protocol.Reply {
	mode := r.currentMode()
	if r.run == nil || !isActive(r.run.status) {
		// After a restart: the interrupted mission resumes only if it
		// allows it.
		for _, s := range r.store {
			if !s.interrupted {
				continue
			}
			if !s.m.Doc.ResumeAfterRestart {
				return refuse(c, protocol.ErrNotAllowedInMode, fmt.Sprintf("mission %q was interrupted by a restart and does not allow resuming (resume_after_restart: false)", s.m.Doc.Name), "")
			}
			return r.applyStart(c, s, false, now)
		}
		return refuse(c, protocol.ErrNoMission, "no mission to resume", "")
	}
	switch mode {
	case protocol.ModeRunning:
		// Nothing to resume: the reply says so rather than "resumed".
		return ok(c, map[string]any{"resumed": false, "mission_id": r.run.s.m.Doc.ID, "note": fmt.Sprintf("mission %q is already running", r.run.s.m.Doc.Name)})
	case protocol.ModePaused:
	default:
		return refuse(c, protocol.ErrNotAllowedInMode, "resume is not possible in mode "+mode, "")
	}
	if why := r.fenceRefusal(); why != "" {
		return refuse(c, protocol.ErrNotAllowedInMode, why, "")
	}
	r.mode.To(protocol.ModeRunning, r, &r.modeMem, now.UnixNano())
	r.requested = protocol.ModeRunning
	d := r.run.s.m.Doc
	r.emit(protocol.Event{Kind: "mission.resumed", Level: "info", Mission: d.ID, Message: "mission resumed where it paused"})
	r.jrnl.add(journalRecord{TS: now.UTC(), Event: "resumed", Mission: d.ID, Revision: d.Revision}, nil)
	return ok(c, map[string]any{"resumed": true, "mission_id": d.ID})
}

// MaxOperatorString is the longest string value blackboard.set accepts,
// in bytes: operator values stay on the blackboard, which telemetry
// publishes at its rate.
const MaxOperatorString = bt.MaxValueBytes // the limit of values missions write, too

// prepareSet checks a blackboard.set on the caller's goroutine: a
// writable key, a number, boolean or string value, not too long; and it
// finds how the active mission uses the key, for applySet to check the
// value's type against.
func (r *Runner) prepareSet(p *pending) (protocol.Reply, bool) {
	c := p.c
	allowed := false
	for _, k := range r.cfg.Writable {
		allowed = allowed || k == c.Key
	}
	if !allowed {
		return refuse(c, protocol.ErrValidation, fmt.Sprintf("key %q is not writable by operators (config: writable)", c.Key), "/key"), true
	}
	v := bt.ValueOf(c.Value)
	switch v.Kind() {
	case bt.KindNone, bt.KindOther:
		return refuse(c, protocol.ErrValidation, "value must be a number, boolean or string", "/value"), true
	case bt.KindString:
		if n := len(v.String()); n > MaxOperatorString {
			return refuse(c, protocol.ErrTooLarge, fmt.Sprintf("a string of %d bytes exceeds the limit of %d for operator values", n, MaxOperatorString), "/value"), true
		}
	}
	r.mu.Lock()
	tree, doc := r.activeTree, r.activeDoc
	r.mu.Unlock()
	if tree != nil {
		p.parent, p.uses = tree, keyUses(doc, r.cfg.Registry, c.Key)
	}
	return protocol.Reply{}, false
}

// applySet writes an operator value (tick goroutine). The value must have
// the type the running mission uses the key with; when the mission says
// nothing of the key, or no mission runs, the type of the value the key
// holds already.
func (r *Runner) applySet(p *pending, now time.Time) protocol.Reply {
	c := p.c
	v := bt.ValueOf(c.Value)
	run := r.run
	if run != nil && !isActive(run.status) {
		run = nil
	}
	var uses []keyUse
	if run != nil {
		uses = p.uses
		if p.parent != run.s.m.Tree { // another mission started meanwhile
			uses = keyUses(run.s.m.Doc, r.cfg.Registry, c.Key)
		}
	}
	for _, u := range uses {
		if u.kind != v.Kind() {
			return refuse(c, protocol.ErrValidation, fmt.Sprintf("the running mission %s %q as a %s (%s); got a %s",
				u.how, c.Key, u.kind, u.where, v.Kind()), "/value")
		}
	}
	if len(uses) == 0 {
		prev := r.operator[c.Key]
		if run != nil {
			if slot, found := run.s.m.Tree.Slot(c.Key); found {
				if cur := run.agent.BB.Get(slot); cur.Kind() != bt.KindNone {
					prev = cur
				}
			}
		}
		if k := prev.Kind(); k != bt.KindNone && k != v.Kind() {
			return refuse(c, protocol.ErrValidation, fmt.Sprintf("key %q holds a %s; got a %s", c.Key, k, v.Kind()), "/value")
		}
	}
	r.operator[c.Key] = v
	if run != nil {
		if slot, found := run.s.m.Tree.Slot(c.Key); found {
			run.agent.BB.SetAt(slot, v, now.UnixNano())
		}
	}
	return ok(c, nil)
}

// keyUse is one place where a mission says what type a blackboard key
// holds.
type keyUse struct {
	kind  bt.ValueKind
	how   string // "reads", "compares", "writes", "starts"
	where string // JSON pointer in the mission document
}

// keyUses lists how a mission uses a global blackboard key, from what the
// node types declare: a number or boolean parameter given as "{key}"
// (read when the node opens: another type makes the node fail), a Check
// that orders the key (numbers only) or compares it with a constant, a
// Set that writes a constant to it, and the document's initial
// blackboard. Expressions and parameters of any type say nothing. The
// nodes a StateMachine synthesises from its parameters are not looked at.
func keyUses(doc *missions.Document, reg *bt.Registry, key string) []keyUse {
	if doc == nil || reg == nil {
		return nil
	}
	var uses []keyUse
	if v, found := doc.Blackboard[key]; found {
		if k := bt.ValueOf(v).Kind(); k != bt.KindNone && k != bt.KindOther {
			uses = append(uses, keyUse{k, "starts", "/blackboard/" + pointerEscape(key)})
		}
	}
	var walk func(def *bt.NodeDef, path string)
	walk = func(def *bt.NodeDef, path string) {
		if def == nil {
			return
		}
		if nt, found := reg.Lookup(def.Type); found {
			uses = append(uses, nodeKeyUses(nt, def, path, key)...)
		}
		for i, ch := range def.Children {
			walk(ch, fmt.Sprintf("%s/children/%d", path, i))
		}
	}
	names := make([]string, 0, len(doc.Trees))
	for name := range doc.Trees {
		names = append(names, name)
	}
	slices.Sort(names) // the same message every time
	for _, name := range names {
		walk(doc.Trees[name], "/trees/"+pointerEscape(name))
	}
	return uses
}

// nodeKeyUses is keyUses for one node.
func nodeKeyUses(nt *bt.NodeType, def *bt.NodeDef, path, key string) []keyUse {
	var uses []keyUse
	param := func(name string) (any, bool) {
		if v, found := def.Params[name]; found {
			return v, true
		}
		for n, v := range def.Params { // given under an alias
			if p := nt.Param(n); p != nil && p.Name == name {
				return v, true
			}
		}
		if p := nt.Param(name); p != nil && p.Default != nil {
			return p.Default, true
		}
		return nil, false
	}
	refersTo := func(v any) bool {
		s, _ := v.(string)
		k, isRef := bt.RefKey(s)
		return isRef && k == key
	}
	constant := func(v any) bt.ValueKind { // the kind of a constant; KindNone for "{key}"
		if s, isStr := v.(string); isStr {
			if _, isRef := bt.RefKey(s); isRef {
				return bt.KindNone
			}
		}
		return bt.ValueOf(v).Kind()
	}
	names := make([]string, 0, len(def.Params))
	for name := range def.Params {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		pd := nt.Param(name)
		if pd == nil || !refersTo(def.Params[name]) {
			continue
		}
		where := path + "/params/" + pointerEscape(name)
		switch pd.Type {
		case bt.TNumber:
			uses = append(uses, keyUse{bt.KindNumber, "reads", where})
		case bt.TBool:
			uses = append(uses, keyUse{bt.KindBool, "reads", where})
		}
	}
	switch nt.Name {
	case "Check":
		k, _ := param("key")
		other, _ := param("other_key")
		value, hasValue := param("value")
		op, _ := param("op")
		ordered := op == "<" || op == "<=" || op == ">" || op == ">="
		mentions := k == key || other == key || (hasValue && refersTo(value))
		switch {
		case !mentions:
		case ordered:
			uses = append(uses, keyUse{bt.KindNumber, "compares", path + "/params/op"})
		case k == key && hasValue:
			if kind := constant(value); kind != bt.KindNone && kind != bt.KindOther {
				uses = append(uses, keyUse{kind, "compares", path + "/params/value"})
			}
		}
	case "Set":
		k, _ := param("key")
		value, hasValue := param("value")
		if k == key && hasValue {
			if kind := constant(value); kind != bt.KindNone && kind != bt.KindOther {
				uses = append(uses, keyUse{kind, "writes", path + "/params/value"})
			}
		}
	}
	return uses
}

// pointerEscape escapes a JSON pointer token (RFC 6901).
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// replyCache remembers the last replies by command id, so a command
// delivered twice (QoS 1) is executed once. It also counts the e-stops
// engaged, for estop.reset (applyReset).
type replyCache struct {
	mu    sync.Mutex
	max   int
	byID  map[string]*list.Element
	order *list.List
	// estops counts the e-stops engaged so far (any goroutine).
	estops atomic.Uint64
}

type cacheEntry struct {
	id       string
	reply    protocol.Reply
	done     chan struct{}
	finished bool // guarded by replyCache.mu
}

func newReplyCache(max int) *replyCache {
	return &replyCache{max: max, byID: map[string]*list.Element{}, order: list.New()}
}

// claim returns the entry for id and whether the caller is the first to
// see it (and must execute the command).
func (c *replyCache) claim(id string) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, found := c.byID[id]; found {
		return el.Value.(*cacheEntry), false
	}
	e := &cacheEntry{id: id, done: make(chan struct{})}
	c.byID[id] = c.order.PushFront(e)
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.byID, old.Value.(*cacheEntry).id)
	}
	return e, true
}

// finish gives e its reply (once) and wakes the deliveries waiting for
// it. A reply that depends on a passing condition is not kept: the next
// delivery of the id runs the command afresh.
func (c *replyCache) finish(e *cacheEntry, r protocol.Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.finished {
		return
	}
	e.finished = true
	e.reply = r
	close(e.done)
	if r.Transient() {
		if el, found := c.byID[e.id]; found && el.Value.(*cacheEntry) == e {
			c.order.Remove(el)
			delete(c.byID, e.id)
		}
	}
}

// prepareInject validates and compiles the tree of a mission.inject on
// the caller's goroutine. tree is the name of a tree of the active mission
// or a node definition (JSON).
func (r *Runner) prepareInject(p *pending) (protocol.Reply, bool) {
	c := p.c
	r.mu.Lock()
	parent, doc := r.activeTree, r.activeDoc
	r.mu.Unlock()
	if parent == nil {
		return refuse(c, protocol.ErrNoMission, "no mission is active", ""), true
	}
	found := false
	for _, s := range parent.Slots() {
		found = found || s == c.Slot
	}
	if !found {
		return refuse(c, protocol.ErrValidation, fmt.Sprintf("the active mission has no DynamicSubTree slot %q (slots: %v)", c.Slot, parent.Slots()), "/slot"), true
	}
	if c.Agent != nil && *c.Agent != 0 {
		return refuse(c, protocol.ErrValidation, "this robot runs one agent: agent must be 0 or absent", "/agent"), true
	}
	spec := doc.Spec(r.loadOptions())
	var name string
	if len(c.Tree) > 0 && c.Tree[0] == '"' && json.Unmarshal(c.Tree, &name) == nil {
		if _, ok := doc.Trees[name]; !ok {
			return refuse(c, protocol.ErrValidation, fmt.Sprintf("the mission has no tree %q", name), "/tree"), true
		}
		spec.Main = name
	} else {
		def := &bt.NodeDef{}
		if len(c.Tree) == 0 || json.Unmarshal(c.Tree, def) != nil || def.Type == "" {
			return refuse(c, protocol.ErrValidation, "tree must be a tree name of the mission or a node definition", "/tree"), true
		}
		if rep, bad := r.checkInjected(c, def); bad {
			return rep, true
		}
		trees := map[string]*bt.NodeDef{"injected": def}
		for k, v := range doc.Trees {
			if k != "injected" {
				trees[k] = v
			}
		}
		spec.Trees, spec.Main = trees, "injected"
	}
	t, err := r.cfg.Registry.CompileSlotTree(parent, c.Slot, spec)
	if err != nil {
		return protocol.Reply{ID: c.ID, Error: problemsError(err)}, true
	}
	p.slot, p.parent = t, parent
	return protocol.Reply{}, false
}

func (r *Runner) applyInject(p *pending) protocol.Reply {
	c := p.c
	run := r.run
	if run == nil || run.s.m.Tree != p.parent {
		return refuse(c, protocol.ErrOtherMission, "the active mission changed before the injection was applied", "")
	}
	if !isActive(run.status) {
		// The tree would never run: the sender learns it now (and may load
		// a mission instead) rather than waiting for it.
		return refuse(c, protocol.ErrNoMission, fmt.Sprintf("mission %q has ended (%s): the injection would never run", run.s.m.Doc.Name, run.status), "")
	}
	var err error
	if c.Agent != nil {
		err = run.agent.Inject(c.Slot, p.slot)
	} else {
		err = p.parent.InjectAll(c.Slot, p.slot)
	}
	if err != nil {
		return refuse(c, protocol.ErrValidation, err.Error(), "/slot")
	}
	r.emit(protocol.Event{Kind: "mission.injected", Level: "info", Mission: run.s.m.Doc.ID, Revision: run.s.m.Doc.Revision,
		Message: fmt.Sprintf("slot %q will run the new tree (%d nodes) the next time it opens", c.Slot, p.slot.Len())})
	return ok(c, map[string]any{"slot": c.Slot, "nodes": p.slot.Len()})
}

// checkInjected applies CheckMission to an injected node definition (the
// mission's own trees were checked when it was loaded); the problems are
// located under /tree.
func (r *Runner) checkInjected(c protocol.Command, def *bt.NodeDef) (protocol.Reply, bool) {
	if r.cfg.CheckMission == nil {
		return protocol.Reply{}, false
	}
	err := r.cfg.CheckMission(&missions.Mission{Doc: &missions.Document{Trees: map[string]*bt.NodeDef{"injected": def}}})
	if err == nil {
		return protocol.Reply{}, false
	}
	var ps bt.Problems
	if errors.As(err, &ps) {
		moved := make(bt.Problems, len(ps))
		for i, p := range ps {
			p.Path = "/tree" + strings.TrimPrefix(p.Path, "/trees/injected")
			moved[i] = p
		}
		err = moved
	}
	return protocol.Reply{ID: c.ID, Error: problemsError(err)}, true
}
