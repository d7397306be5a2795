package missions

import (
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/botd-project/botd/bt"
)

// pending is a command on its way to the tick goroutine.
type pending struct {
	c    Command
	m    *Mission // mission.load: already validated
	doc  []byte
	slot *bt.Tree // mission.inject: compiled against parent
	// parent is the tree the injection was compiled for; the tick refuses
	// it if another mission started meanwhile.
	parent *bt.Tree
	reply  chan Reply
}

// Do executes a command and returns its reply. Missions are decoded and
// validated here, on the caller's goroutine; the change itself is applied
// by the tick goroutine between two ticks. A repeated command id gets the
// first reply again and changes nothing.
func (r *Runner) Do(ctx context.Context, c Command) Reply {
	if c.ID == "" {
		return refuse(c, ErrValidation, "command without an id", "/id")
	}
	entry, first := r.replies.claim(c.ID)
	if !first {
		select {
		case <-entry.done:
			return entry.reply
		case <-ctx.Done():
			return refuse(c, ErrInternal, "timed out waiting for the first delivery of this command", "")
		}
	}
	rep := r.doSafely(ctx, c)
	r.replies.finish(entry, rep)
	return rep
}

// doSafely turns a panic while handling a command into an INTERNAL reply.
func (r *Runner) doSafely(ctx context.Context, c Command) (rep Reply) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("panic handling a command", "op", c.Op, "panic", p)
			rep = refuse(c, ErrInternal, fmt.Sprintf("internal error: %v", p), "")
		}
	}()
	return r.do(ctx, c)
}

func (r *Runner) do(ctx context.Context, c Command) Reply {
	p := &pending{c: c, reply: make(chan Reply, 1)}
	switch c.Op {
	case OpMissionLoad:
		doc, rerr := missionBytes(c.Mission)
		if rerr != nil {
			return Reply{ID: c.ID, Error: rerr}
		}
		if r.cfg.Verify != nil {
			if rerr := r.cfg.Verify(c, doc); rerr != nil {
				return Reply{ID: c.ID, Error: rerr}
			}
		}
		m, err := Load(doc, r.loadOptions())
		if err != nil {
			return Reply{ID: c.ID, Error: problemsError(err)}
		}
		p.m, p.doc = m, doc
	case OpEStop:
		// E-stop always wins: the hardware gate closes now, from this
		// goroutine; the tick goroutine then changes the mode.
		if hw := r.cfg.Hardware; hw != nil {
			hw.EStop("operator e-stop")
		}
		defer func() {
			select {
			case r.estopReq <- struct{}{}:
			default:
			}
		}()
	case OpMissionInject:
		if rep, bad := r.prepareInject(p); bad {
			return rep
		}
	case OpMissionStart, OpMissionPause, OpMissionResume, OpMissionAbort,
		OpEStopReset, OpStateRequest, OpBlackboardSet:
	default:
		return refuse(c, ErrUnknownOp, fmt.Sprintf("unknown op %q", c.Op), "/op")
	}
	select {
	case r.cmds <- p:
	default:
		return refuse(c, ErrRateLimited, "too many commands queued; try again", "")
	}
	if c.Op == OpEStop {
		select {
		case r.estopReq <- struct{}{}:
		default:
		}
	}
	select {
	case rep := <-p.reply:
		return rep
	case <-ctx.Done():
		return refuse(c, ErrInternal, "no reply from the tick loop in time", "")
	}
}

// missionBytes accepts a document as a JSON value or a JSON string (YAML,
// XML or JSON text).
func missionBytes(raw json.RawMessage) ([]byte, *ReplyError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, &ReplyError{Code: ErrValidation, Message: "mission.load without a mission", Path: "/mission"}
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, &ReplyError{Code: ErrInvalidJSON, Message: err.Error(), Path: "/mission"}
		}
		return []byte(s), nil
	}
	return raw, nil
}

// problemsError turns validation problems into a reply error: the code
// and path of the first problem, and the whole list.
func problemsError(err error) *ReplyError {
	var ps bt.Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		return &ReplyError{Code: ErrValidation, Message: err.Error()}
	}
	e := &ReplyError{Code: ps[0].Code, Message: ps.Error(), Path: ps[0].Path}
	if e.Code == "" {
		e.Code = ErrValidation
	}
	for _, p := range ps {
		e.Problems = append(e.Problems, ReplyProblem{Path: p.Path, Message: p.Message, Code: p.Code})
	}
	return e
}

func refuse(c Command, code, msg, path string) Reply {
	return Reply{ID: c.ID, Error: &ReplyError{Code: code, Message: msg, Path: path}}
}

func ok(c Command, result map[string]any) Reply { return Reply{ID: c.ID, OK: true, Result: result} }

// drainCommands applies every queued command (tick goroutine).
func (r *Runner) drainCommands(now time.Time) {
	for {
		select {
		case p := <-r.cmds:
			p.reply <- r.apply(p, now)
			r.signal()
		default:
			return
		}
	}
}

// drainCommandsWith refuses every queued command (shutdown).
func (r *Runner) drainCommandsWith(code, msg string) {
	for {
		select {
		case p := <-r.cmds:
			if p.c.Op == OpEStop {
				p.reply <- ok(p.c, nil)
				continue
			}
			p.reply <- refuse(p.c, code, msg, "")
		default:
			return
		}
	}
}

func (r *Runner) apply(p *pending, now time.Time) Reply {
	c := p.c
	mode := r.currentMode()
	switch c.Op {
	case OpMissionLoad:
		return r.applyLoad(p, now)
	case OpMissionStart:
		s, found := r.store[c.MissionID]
		if !found {
			return refuse(c, ErrNoMission, fmt.Sprintf("no mission %q is loaded", c.MissionID), "/mission_id")
		}
		return r.applyStart(c, s, c.Replace, now)
	case OpMissionPause:
		if r.run == nil || !isActive(r.run.status) {
			return refuse(c, ErrNoMission, "no mission is running", "")
		}
		if mode == ModePaused {
			return ok(c, nil)
		}
		if mode != ModeRunning && mode != ModeFailsafe {
			return refuse(c, ErrNotAllowedInMode, "pause is not possible in mode "+mode, "")
		}
		r.mode.To(ModePaused, r, &r.modeMem, now.UnixNano())
		r.requested = ModePaused
		r.emit(Event{Kind: "mission.paused", Level: "info", Mission: r.run.s.m.Doc.ID, Message: "mission paused by the operator"})
		r.jrnl.add(journalRecord{TS: now.UTC(), Event: "paused", Mission: r.run.s.m.Doc.ID, Revision: r.run.s.m.Doc.Revision}, nil)
		return ok(c, nil)
	case OpMissionResume:
		return r.applyResume(c, now)
	case OpMissionAbort:
		if r.run == nil || !isActive(r.run.status) {
			r.safe()
			return refuse(c, ErrNoMission, "no mission is running", "")
		}
		r.finish(r.run, now, RunAborted)
		return ok(c, nil)
	case OpMissionInject:
		return r.applyInject(p)
	case OpEStop:
		if !r.estop {
			r.estop = true
			r.mu.Lock()
			r.state.EStop = true
			r.mu.Unlock()
		}
		return ok(c, nil)
	case OpEStopReset:
		if !r.estop {
			return ok(c, nil)
		}
		r.estop = false
		if hw := r.cfg.Hardware; hw != nil {
			hw.ReleaseEStop()
		}
		r.mu.Lock()
		r.state.EStop = false
		r.mu.Unlock()
		r.emit(Event{Kind: "estop.released", Level: "warning", Message: "e-stop released; the mission stays paused until resumed"})
		return ok(c, nil)
	case OpStateRequest:
		return ok(c, nil)
	case OpBlackboardSet:
		return r.applySet(c, now)
	}
	return refuse(c, ErrUnknownOp, fmt.Sprintf("unknown op %q", c.Op), "/op")
}

func (r *Runner) applyLoad(p *pending, now time.Time) Reply {
	c, m := p.c, p.m
	d := m.Doc
	if d.ID == "" {
		return refuse(c, ErrValidation, "a mission sent to the daemon needs an id (botctl fills one in)", "/id")
	}
	hash := d.Hash()
	if old, found := r.store[d.ID]; found {
		switch {
		case d.Revision < old.m.Doc.Revision:
			return refuse(c, ErrOutdatedRevision, fmt.Sprintf("revision %d is older than the stored revision %d", d.Revision, old.m.Doc.Revision), "/revision")
		case d.Revision == old.m.Doc.Revision && hash != old.hash:
			return refuse(c, ErrSameRevisionDiff, fmt.Sprintf("revision %d is already stored with different content; raise the revision", d.Revision), "/revision")
		case d.Revision == old.m.Doc.Revision:
			if c.Start && (r.run == nil || r.run.s != old || !isActive(r.run.status)) {
				return r.applyStart(c, old, c.Replace, now)
			}
			return ok(c, map[string]any{"mission_id": d.ID, "revision": d.Revision, "unchanged": true})
		}
		if r.run != nil && r.run.s == old && isActive(r.run.status) && !c.Replace {
			return refuse(c, ErrOtherMission, "this mission is running; send replace: true to swap in the new revision", "")
		}
	}
	if c.Start && r.run != nil && isActive(r.run.status) && r.run.s.m.Doc.ID != d.ID && !c.Replace {
		return refuse(c, ErrOtherMission, fmt.Sprintf("mission %q is running; send replace: true to replace it", r.run.s.m.Doc.Name), "")
	}
	s := &stored{m: m, hash: hash, doc: Canonical(d)}
	r.store[d.ID] = s
	r.emit(Event{Kind: "mission.accepted", Level: "info", Mission: d.ID, Revision: d.Revision,
		Message: fmt.Sprintf("mission %q revision %d accepted (%d nodes)", d.Name, d.Revision, m.Tree.Len())})
	r.jrnl.add(journalRecord{TS: now.UTC(), Event: "accepted", Mission: d.ID, Revision: d.Revision, Hash: hash}, s.doc)
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

func (r *Runner) applyStart(c Command, s *stored, replace bool, now time.Time) Reply {
	switch mode := r.currentMode(); {
	case mode == ModeEStop:
		return refuse(c, ErrNotAllowedInMode, "e-stop is engaged; send estop.reset first", "")
	case mode == ModeFailsafe:
		return refuse(c, ErrNotAllowedInMode, "a failsafe is active ("+r.fs.reason+")", "")
	}
	if r.run != nil && isActive(r.run.status) && !replace {
		return refuse(c, ErrOtherMission, fmt.Sprintf("mission %q is %s; send replace: true to replace it", r.run.s.m.Doc.Name, r.run.status), "")
	}
	r.startMission(s, now)
	return ok(c, map[string]any{"mission_id": s.m.Doc.ID, "revision": s.m.Doc.Revision, "started": true})
}

func (r *Runner) applyResume(c Command, now time.Time) Reply {
	mode := r.currentMode()
	if r.run == nil || !isActive(r.run.status) {
		// After a restart: the interrupted mission resumes only if it
		// allows it.
		for _, s := range r.store {
			if !s.interrupted {
				continue
			}
			if !s.m.Doc.ResumeAfterRestart {
				return refuse(c, ErrNotAllowedInMode, fmt.Sprintf("mission %q was interrupted by a restart and does not allow resuming (resume_after_restart: false)", s.m.Doc.Name), "")
			}
			return r.applyStart(c, s, false, now)
		}
		return refuse(c, ErrNoMission, "no mission to resume", "")
	}
	switch mode {
	case ModeRunning:
		return ok(c, nil)
	case ModePaused:
	default:
		return refuse(c, ErrNotAllowedInMode, "resume is not possible in mode "+mode, "")
	}
	r.mode.To(ModeRunning, r, &r.modeMem, now.UnixNano())
	r.requested = ModeRunning
	d := r.run.s.m.Doc
	r.emit(Event{Kind: "mission.resumed", Level: "info", Mission: d.ID, Message: "mission resumed from the root"})
	r.jrnl.add(journalRecord{TS: now.UTC(), Event: "resumed", Mission: d.ID, Revision: d.Revision}, nil)
	return ok(c, nil)
}

func (r *Runner) applySet(c Command, now time.Time) Reply {
	allowed := false
	for _, k := range r.cfg.Writable {
		allowed = allowed || k == c.Key
	}
	if !allowed {
		return refuse(c, ErrValidation, fmt.Sprintf("key %q is not writable by operators (config: writable)", c.Key), "/key")
	}
	v := bt.ValueOf(c.Value)
	if v.Kind() == bt.KindNone || v.Kind() == bt.KindOther {
		return refuse(c, ErrValidation, "value must be a number, boolean or string", "/value")
	}
	r.operator[c.Key] = v
	if run := r.run; run != nil {
		if slot, found := run.s.m.Tree.Slot(c.Key); found {
			run.agent.BB.SetAt(slot, v, now.UnixNano())
		}
	}
	return ok(c, nil)
}

// replyCache remembers the last replies by command id, so a command
// delivered twice (QoS 1) is executed once.
type replyCache struct {
	mu    sync.Mutex
	max   int
	byID  map[string]*list.Element
	order *list.List
}

type cacheEntry struct {
	id    string
	reply Reply
	done  chan struct{}
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

func (c *replyCache) finish(e *cacheEntry, r Reply) {
	e.reply = r
	close(e.done)
}

// prepareInject validates and compiles the tree of a mission.inject on
// the caller's goroutine. tree is the name of a tree of the active mission
// or a node definition (JSON).
func (r *Runner) prepareInject(p *pending) (Reply, bool) {
	c := p.c
	r.mu.Lock()
	parent, doc := r.activeTree, r.activeDoc
	r.mu.Unlock()
	if parent == nil {
		return refuse(c, ErrNoMission, "no mission is active", ""), true
	}
	found := false
	for _, s := range parent.Slots() {
		found = found || s == c.Slot
	}
	if !found {
		return refuse(c, ErrValidation, fmt.Sprintf("the active mission has no DynamicSubTree slot %q (slots: %v)", c.Slot, parent.Slots()), "/slot"), true
	}
	if c.Agent != nil && *c.Agent != 0 {
		return refuse(c, ErrValidation, "this robot runs one agent: agent must be 0 or absent", "/agent"), true
	}
	spec := doc.Spec(r.loadOptions())
	var name string
	if len(c.Tree) > 0 && c.Tree[0] == '"' && json.Unmarshal(c.Tree, &name) == nil {
		if _, ok := doc.Trees[name]; !ok {
			return refuse(c, ErrValidation, fmt.Sprintf("the mission has no tree %q", name), "/tree"), true
		}
		spec.Main = name
	} else {
		def := &bt.NodeDef{}
		if len(c.Tree) == 0 || json.Unmarshal(c.Tree, def) != nil || def.Type == "" {
			return refuse(c, ErrValidation, "tree must be a tree name of the mission or a node definition", "/tree"), true
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
		return Reply{ID: c.ID, Error: problemsError(err)}, true
	}
	p.slot, p.parent = t, parent
	return Reply{}, false
}

func (r *Runner) applyInject(p *pending) Reply {
	c := p.c
	run := r.run
	if run == nil || run.s.m.Tree != p.parent {
		return refuse(c, ErrOtherMission, "the active mission changed before the injection was applied", "")
	}
	var err error
	if c.Agent != nil {
		err = run.agent.Inject(c.Slot, p.slot)
	} else {
		err = p.parent.InjectAll(c.Slot, p.slot)
	}
	if err != nil {
		return refuse(c, ErrValidation, err.Error(), "/slot")
	}
	r.emit(Event{Kind: "mission.injected", Level: "info", Mission: run.s.m.Doc.ID, Revision: run.s.m.Doc.Revision,
		Message: fmt.Sprintf("slot %q will run the new tree (%d nodes) the next time it opens", c.Slot, p.slot.Len())})
	return ok(c, map[string]any{"slot": c.Slot, "nodes": p.slot.Len()})
}
