package runner

import (
	"fmt"
	"time"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// opHandler is how the runner handles one op; ops holds one per op the
// runner knows (Do refuses any other with UNKNOWN_OP).
//
// prepare, when set, runs on the caller's goroutine before the command is
// queued: decoding, validating, compiling, storing, anything slow and any
// refusal that does not depend on what the tick goroutine owns. refused
// true makes rep the answer and queues nothing; otherwise prepare leaves
// what apply needs in p.
//
// apply runs on the tick goroutine between two ticks, owns the runner's
// state while it runs and makes the change; its reply is the command's.
type opHandler struct {
	prepare func(r *Runner, p *pending) (rep protocol.Reply, refused bool)
	apply   func(r *Runner, p *pending, now time.Time) protocol.Reply
}

// ops is the runner's command table. An e-stop is here for its apply
// only: Do engages it on the caller's goroutine (estopNow) and the tick
// goroutine applies the mode change (applyPendingEStop); it is never
// queued.
var ops = map[string]opHandler{
	protocol.OpMissionLoad:   {prepare: (*Runner).prepareLoad, apply: (*Runner).applyLoad},
	protocol.OpMissionStart:  {apply: (*Runner).applyStartOp},
	protocol.OpMissionPause:  {apply: (*Runner).applyPause},
	protocol.OpMissionResume: {apply: (*Runner).applyResume},
	protocol.OpMissionAbort:  {apply: (*Runner).applyAbort},
	protocol.OpMissionInject: {prepare: (*Runner).prepareInject, apply: (*Runner).applyInject},
	protocol.OpMissionsList:  {apply: (*Runner).applyList},
	protocol.OpEStop:         {apply: (*Runner).applyEStop},
	protocol.OpEStopReset:    {prepare: (*Runner).prepareReset, apply: (*Runner).applyReset},
	protocol.OpStateRequest:  {apply: func(_ *Runner, p *pending, _ time.Time) protocol.Reply { return ok(p.c, nil) }},
	protocol.OpBlackboardSet: {prepare: (*Runner).prepareSet, apply: (*Runner).applySet},
}

func (r *Runner) applyStartOp(p *pending, now time.Time) protocol.Reply {
	c := p.c
	s, found := r.store[c.MissionID]
	if !found {
		return refuse(c, protocol.ErrNoMission, fmt.Sprintf("no mission %q is loaded", c.MissionID), "/mission_id")
	}
	return r.applyStart(c, s, c.Replace, now)
}

func (r *Runner) applyPause(p *pending, now time.Time) protocol.Reply {
	c := p.c
	mode := r.currentMode()
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
}

func (r *Runner) applyAbort(p *pending, now time.Time) protocol.Reply {
	c := p.c
	if r.run == nil || !isActive(r.run.status) {
		r.safe()
		return refuse(c, protocol.ErrNoMission, "no mission is running", "")
	}
	r.finish(r.run, now, protocol.RunAborted, "aborted by the operator (mission.abort)")
	return ok(c, nil)
}

func (r *Runner) applyList(p *pending, _ time.Time) protocol.Reply {
	return ok(p.c, map[string]any{"missions": r.storedSummaries()})
}

// applyEStop moves the mode to ESTOP (tick goroutine); the gate closed
// already (estopNow).
func (r *Runner) applyEStop(p *pending, _ time.Time) protocol.Reply {
	if !r.estop {
		r.estop = true
		r.mu.Lock()
		r.state.EStop = true
		r.mu.Unlock()
	}
	return ok(p.c, nil)
}

// prepareReset notes the e-stops engaged when the reset was sent: it
// releases those, never one that came after it (applyReset compares).
func (r *Runner) prepareReset(p *pending) (protocol.Reply, bool) {
	p.estops = r.estops.Load()
	return protocol.Reply{}, false
}

// applyReset releases the e-stop, unless another e-stop engaged after the
// reset was sent: that one stays engaged whatever the order in which the
// two reach the tick goroutine.
func (r *Runner) applyReset(p *pending, now time.Time) protocol.Reply {
	c := p.c
	r.applyPendingEStop(now) // an e-stop engaged before the reset was sent is released by it
	later := func() bool { return r.estops.Load() != p.estops }
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
	// The mode leaves ESTOP now, not at the end of the tick: a command in
	// the same drain behind the reset (a start) finds it released.
	r.stepMode(now)
	msg := "e-stop released; no mission is running"
	if r.run != nil && isActive(r.run.status) {
		msg = "e-stop released; the mission stays paused until resumed"
	}
	r.emit(protocol.Event{Kind: "estop.released", Level: "warning", Message: msg})
	return ok(c, nil)
}

// Mission documents: load (prepare on the caller's goroutine, apply on
// the tick goroutine), start, resume, and the store's eviction.

// prepareLoad decodes, validates and stores a mission.load's document on
// the caller's goroutine: a mission the disk cannot hold is refused
// (STORAGE_FAILED) rather than accepted and lost at a restart.
func (r *Runner) prepareLoad(p *pending) (protocol.Reply, bool) {
	c := p.c
	doc, rerr := missionBytes(c.Mission)
	if rerr != nil {
		return protocol.Reply{ID: c.ID, Error: rerr}, true
	}
	m, err := missions.Load(doc, r.loadOptions())
	if err == nil && r.cfg.CheckMission != nil {
		err = r.cfg.CheckMission(m)
	}
	if err != nil {
		return protocol.Reply{ID: c.ID, Error: problemsError(err)}, true
	}
	p.m, p.doc = m, doc
	p.canon = missions.Canonical(m.Doc)
	p.hash = m.Doc.Hash()
	if m.Doc.ID != "" {
		if err := r.jrnl.storeDoc(m.Doc.ID, p.hash, p.canon); err != nil {
			r.log.Error("storing a mission", "mission", m.Doc.ID, "err", err)
			return refuse(c, protocol.ErrStorageFailed, fmt.Sprintf("the mission cannot be stored, so it would be lost at a restart: %v", err), ""), true
		}
	}
	return protocol.Reply{}, false
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

func (r *Runner) applyResume(p *pending, now time.Time) protocol.Reply {
	c := p.c
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
