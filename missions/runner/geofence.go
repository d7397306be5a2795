package runner

import (
	"fmt"
	"math"
	"time"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Geofence is a keep-in fence the supervisor enforces once per tick
// (cmd/botd wires the drivers' fence monitor). Both methods run on the
// tick goroutine; Check must be cheap and allocate nothing.
type Geofence interface {
	// Check judges the robot's latest position at now.
	Check(now time.Time) FenceStatus
	// Breach carries out the fence's action on the vehicle ("hold",
	// "return_home", "land"; "abort" holds it), once per breach, after
	// the mission was halted and the robot made safe.
	Breach(action string) error
}

// FenceStatus is one check of the fence.
type FenceStatus struct {
	// Trip: the robot is outside the fence, about to leave it (within
	// the margin one reaction time ahead, moving), or its position is lost.
	Trip bool
	// Outside: outside the polygon or the altitude band; NoPose: no
	// fresh position. Either way no mission may start or resume.
	Outside, NoPose bool
	// Where the robot is (local frame, m; Alt NaN when not watched), how
	// far inside the fence (negative: outside), how fast it moves (m/s).
	X, Y, Alt, Clearance, Speed float64
	// Action is the configured action: hold, return_home, land or abort.
	Action string
	// Zone names the zone breached, or nearest to be ("" when the
	// position is lost): the config's fence or one of the mission's
	// zones.
	Zone string
	// Receding: the robot moves away from the zones' edges it is nearest
	// to (its clearance grows). botd's own return home is not stopped by
	// a predicted breach (Trip while inside) while it recedes.
	Receding bool
}

// MissionFence is a Geofence that also enforces the zones the running
// mission carries (a QGroundControl plan's geoFence): the runner calls
// SetMission on the tick goroutine when a mission starts, and with nil
// when it ends or is replaced, so its zones go away with it while the
// config's fence stays.
type MissionFence interface {
	Geofence
	SetMission(m *missions.Mission)
}

// Reason names in events and state.errors.
const (
	fenceReason = "geofence"
	// CodeGeofenceBreach and CodeGeofenceNoPose are the state.errors codes.
	CodeGeofenceBreach = "GEOFENCE_BREACH"
	CodeGeofenceNoPose = "GEOFENCE_NO_POSE"
)

// superviseFence runs the fence check: it trips the failsafe (before the
// other checks, so a breach wins over them) and reports the breach once,
// on its rising edge. It returns the state error to show, if any.
func (r *Runner) superviseFence(now time.Time, trip func(why, act string)) (protocol.StateError, bool) {
	g := r.cfg.Geofence
	if g == nil {
		return protocol.StateError{}, false
	}
	st := g.Check(now)
	if run := r.run; run != nil && run.returning != "" && st.Trip && !st.Outside && !st.NoPose && st.Receding {
		// botd's own return leaves the margin it tripped in: not a new breach
		st.Trip = false
	}
	r.fence = st
	if !st.Trip {
		r.fs.fenceTripped, r.fs.fenceActPending = false, false
		return protocol.StateError{}, false
	}
	act := ActionHold
	if st.Action == "abort" {
		act = ActionAbort
	}
	trip(fenceReason, act)
	var e protocol.StateError
	switch {
	case st.NoPose:
		e = protocol.StateError{Code: CodeGeofenceNoPose, Level: "ERROR", Message: "geofence: no fresh position: the robot holds until it has one"}
	case st.Outside:
		e = protocol.StateError{Code: CodeGeofenceBreach, Level: "ERROR", Ref: st.Zone, Message: fmt.Sprintf("%s breached by %.2f m at (%.2f, %.2f)", zoneText(st.Zone), -st.Clearance, st.X, st.Y)}
	default:
		e = protocol.StateError{Code: CodeGeofenceBreach, Level: "ERROR", Ref: st.Zone, Message: fmt.Sprintf("about to breach %s: %.2f m clear at %.2f m/s", zoneText(st.Zone), st.Clearance, st.Speed)}
	}
	if st.NoPose && (r.run == nil || !isActive(r.run.status)) {
		// No position and no mission (the daemon starting, a pose source
		// not up yet): nothing to stop; the state says it and no mission
		// may start. A mission running when the position goes is reported.
		return e, true
	}
	if !r.fs.fenceTripped {
		r.fs.fenceTripped = true
		r.fs.fenceActPending = true
		r.emitBreach(st)
		if r.currentMode() == protocol.ModeFailsafe {
			// Another failsafe's tree may be driving: the fence stops it and acts now.
			r.exitFailsafe(nil)
			if run := r.run; run != nil {
				run.agent.Pause() // paused already: keeps its progress
			}
			r.safe()
			r.fenceAct(st.Action)
			if act == ActionAbort {
				r.pendingAbort, r.abortWhy = true, "geofence breach: its action is abort"
			}
		}
	}
	return e, true
}

// zoneText names a zone in a message.
func zoneText(zone string) string {
	if zone == "" {
		return "the geofence"
	}
	return "zone " + zone
}

func (r *Runner) emitBreach(st FenceStatus) {
	what, level := "about to breach "+zoneText(st.Zone), "error"
	switch {
	case st.NoPose:
		what = "geofence: the position is lost"
	case st.Outside:
		what = "outside " + zoneText(st.Zone)
	}
	data := map[string]any{"x": st.X, "y": st.Y, "outside_m": math.Max(0, -st.Clearance), "clearance_m": st.Clearance,
		"speed": st.Speed, "action": st.Action, "outside": st.Outside, "no_pose": st.NoPose}
	if st.Zone != "" && !st.NoPose {
		data["zone"] = st.Zone
	}
	if !math.IsNaN(st.Alt) {
		data["alt"] = st.Alt
	}
	if st.NoPose {
		delete(data, "x")
		delete(data, "y")
		delete(data, "clearance_m")
		delete(data, "outside_m")
	}
	ev := protocol.Event{Kind: "geofence.breach", Level: level, Data: data,
		Message: fmt.Sprintf("%s at (%.2f, %.2f), %.2f m inside, %.2f m/s: %s", what, st.X, st.Y, st.Clearance, st.Speed, st.Action)}
	if st.NoPose {
		ev.Message = fmt.Sprintf("%s: %s", what, st.Action)
	}
	if run := r.run; run != nil {
		ev.Mission, ev.Revision = run.s.m.Doc.ID, run.s.m.Doc.Revision
		r.jrnl.add(journalRecord{TS: r.cfg.Clock.Now().UTC(), Event: "geofence_breach", Mission: ev.Mission, Revision: ev.Revision,
			Zone: zoneOf(st), Status: st.Action}, nil)
	}
	r.emit(ev)
}

// zoneOf is the zone a breach is recorded with ("position lost" when
// there is no position to place in one).
func zoneOf(st FenceStatus) string {
	if st.NoPose {
		return "position lost"
	}
	return st.Zone
}

// fenceMission tells a MissionFence which mission runs (nil: none).
func (r *Runner) fenceMission(m *missions.Mission) {
	if mf, ok := r.cfg.Geofence.(MissionFence); ok {
		mf.SetMission(m)
	}
}

// fenceAct carries out the vehicle's part of a breach (once per breach).
func (r *Runner) fenceAct(action string) {
	if !r.fs.fenceActPending {
		return
	}
	r.fs.fenceActPending = false
	if action == ActionReturnHome && r.startReturn(fenceReason) {
		return // botd's own (returnhome.go)
	}
	if err := r.cfg.Geofence.Breach(action); err != nil {
		r.emit(protocol.Event{Kind: "failsafe.error", Level: "error", Message: fmt.Sprintf("geofence action %s: %v; the robot is held in its safe state", action, err)})
	}
}

// fenceRefusal says why a mission may not start or resume now ("" when it
// may): outside the fence, or no position.
func (r *Runner) fenceRefusal() string {
	if r.cfg.Geofence == nil {
		return ""
	}
	switch st := r.fence; {
	case st.NoPose:
		return "the geofence has no fresh position of the robot"
	case st.Outside:
		return fmt.Sprintf("the robot is %.2f m outside %s; bring it back inside first", -st.Clearance, zoneText(st.Zone))
	}
	return ""
}
