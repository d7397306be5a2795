package runner

import (
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/telemetry/protocol"
)

// SetLink tells the runner what telemetry knows of the link (any
// goroutine).
func (r *Runner) SetLink(l protocol.LinkState) {
	r.mu.Lock()
	changed := r.link != l
	r.link = l
	r.state.Link = l
	r.mu.Unlock()
	if changed {
		r.signal()
	}
}

// SetError reports a problem the runner does not see itself (telemetry's
// event storage, say) under key, for state.errors; nil clears it. Any
// goroutine.
func (r *Runner) SetError(key string, e *protocol.StateError) {
	r.mu.Lock()
	_, had := r.external[key]
	if e == nil {
		delete(r.external, key)
	} else {
		r.external[key] = *e
	}
	r.mu.Unlock()
	if had || e != nil {
		r.signal()
	}
}

// State returns the current state. Mode is ESTOP from the moment an
// e-stop closed the gate (estopNow), before the tick goroutine got to
// change the mode.
func (r *Runner) State() protocol.State {
	r.mu.Lock()
	s := r.state
	if s.EStop {
		s.Mode = protocol.ModeEStop
	}
	s.Errors = append([]protocol.StateError{}, r.state.Errors...)
	if r.state.Mission != nil {
		m := *r.state.Mission
		s.Mission = &m
	}
	if r.state.Battery != nil {
		b := *r.state.Battery
		s.Battery = &b
	}
	hz := r.state.Tick.Hz
	r.mu.Unlock()
	s.Tick = r.stats.Summary(hz)
	if e, stuck := r.stallError(r.cfg.Clock.Now()); stuck {
		s.Errors = append(s.Errors, e)
	}
	return s
}

// publishState copies what the tick goroutine owns into the shared state.
func (r *Runner) publishState() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.state.Mode = r.currentMode()
	r.state.RequestedMode = r.requested
	r.state.Tick.Hz = r.hz
	r.state.EStop = r.estop || r.estopPending.Load() // an e-stop the tick has not applied yet
	r.state.Failsafe = protocol.FailsafeState{Active: r.fs.active, Reason: r.fs.reason, Action: r.fs.action}
	r.state.LastFailure = r.lastFailure
	if run := r.run; run != nil {
		d := run.s.m.Doc
		// The tick goroutine owns missionBuf; State copies it under mu.
		r.missionBuf = protocol.MissionState{ID: d.ID, Name: d.Name, Revision: d.Revision, Status: run.status, Started: run.started.UTC()}
		if !run.finished.IsZero() {
			r.missionBuf.Finished = run.finished.UTC()
		}
		r.state.Mission = &r.missionBuf
	} else {
		r.state.Mission = nil
		for _, s := range r.store {
			if s.interrupted {
				d := s.m.Doc
				r.missionBuf = protocol.MissionState{ID: d.ID, Name: d.Name, Revision: d.Revision, Status: protocol.RunInterrupted}
				r.state.Mission = &r.missionBuf
			}
		}
	}
}

// Tree returns the active mission's compiled tree.
func (r *Runner) Tree() (protocol.TreeInfo, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tree == nil {
		return protocol.TreeInfo{}, false
	}
	return *r.tree, true
}

// Status returns node-status changes since the last call, or a keyframe.
func (r *Runner) Status(keyframe bool) (protocol.StatusUpdate, bool) {
	r.mu.Lock()
	b := r.board
	r.mu.Unlock()
	if b == nil {
		return protocol.StatusUpdate{}, false
	}
	return b.take(keyframe), true
}

// Blackboard returns the active mission's global values with their ages
// (converted here, on the caller's goroutine, so the tick does not
// allocate).
func (r *Runner) Blackboard() []protocol.BlackboardValue {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]protocol.BlackboardValue, len(r.bbSnap))
	for i, e := range r.bbSnap {
		out[i] = protocol.BlackboardValue{Key: e.key, Value: e.v.Interface(), AgeMs: float64(r.bbAt.UnixNano()-e.ts) / 1e6}
	}
	return out
}

// StatusChanged is signalled when node statuses changed (StatusNotifier).
func (r *Runner) StatusChanged() <-chan struct{} { return r.statusCh }

// Changed is signalled when the state or tree changed.
func (r *Runner) Changed() <-chan struct{} { return r.changed }

// bbEntry is one blackboard value as the tick copied it.
type bbEntry struct {
	key string
	v   bt.Value
	ts  int64
}

// snapshotBlackboard copies the global blackboard values for telemetry,
// at most ten times a second (the tick goroutine owns the agent).
func (r *Runner) snapshotBlackboard(run *activeRun, now time.Time) {
	if now.Sub(r.bbAt) < 100*time.Millisecond {
		return
	}
	keys := run.s.m.Tree.Keys()
	bb := &run.agent.BB
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bbAt = now
	r.bbSnap = r.bbSnap[:0]
	for i, k := range keys {
		if k.Scope != bt.ScopeGlobal {
			continue
		}
		v := bb.Get(bt.Slot(i))
		if v.Kind() == bt.KindNone {
			continue
		}
		ts, _ := bb.Stamp(bt.Slot(i))
		r.bbSnap = append(r.bbSnap, bbEntry{key: k.Name, v: v, ts: ts})
	}
}
