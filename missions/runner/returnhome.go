package runner

import (
	"fmt"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// botd's own return home. When a failsafe's action, or the geofence's,
// is return_home and Config.ReturnHome gives a tree for the running
// mission (the daemon's: to its nearest rally point), the runner runs that
// tree in the failsafe tree's place instead of asking the vehicle for its
// own return (Vehicles.Failsafe, Geofence.Breach), and keeps the failsafe
// active until the tree ends, even once what tripped it has cleared (a
// return that stopped half way when the robot came back inside the fence
// would leave it hovering there). An abort, an e-stop, or a new breach of
// the geofence stop it as they stop any failsafe tree; a breach whose
// action is return_home starts it again, from where the robot is.

// ReturnHomeFunc gives the tree that takes the robot home for mission m
// and says where it goes ("rally point 1 (47.3981, 8.5462), 35 m away");
// a nil tree leaves the return to the vehicle.
type ReturnHomeFunc func(m *missions.Mission) (tree *bt.NodeDef, target string)

// CodeReturningHome is the state.errors entry while botd's own return runs
// (its ref is the target).
const CodeReturningHome = "RETURNING_HOME"

const returnTreeName = "return_home"

// startReturn starts botd's own return for the failsafe why; false when
// there is none (no ReturnHome, no tree for this mission, or it does not
// compile): the caller asks the vehicle for its own.
func (r *Runner) startReturn(why string) bool {
	run := r.run
	if r.cfg.ReturnHome == nil || run == nil || !isActive(run.status) {
		return false
	}
	if run.returning != "" && run.fsAgent != nil {
		return true // on its way already
	}
	def, target := r.cfg.ReturnHome(run.s.m)
	if def == nil {
		return false
	}
	d := run.s.m.Doc
	spec := d.Spec(r.loadOptions())
	spec.Trees, spec.Main, spec.Blackboard = map[string]*bt.NodeDef{returnTreeName: def}, returnTreeName, nil
	t, err := r.cfg.Registry.Compile(spec)
	if err != nil {
		r.emit(protocol.Event{Kind: "failsafe.error", Level: "error", Mission: d.ID,
			Message: fmt.Sprintf("the return to %s does not compile: %v; the vehicle returns on its own", target, err)})
		return false
	}
	if run.fsAgent != nil {
		run.fsAgent.HaltAll()
	}
	now := r.cfg.Clock.Now()
	a := bt.NewAgent(t, 1, now.UnixNano())
	a.Sink = agentSink{r}
	a.ExprLimits = r.exprLimits(r.hz)
	run.fsBinding = nil
	if hw := r.cfg.Hardware; hw != nil {
		a.Env = hw.Env()
		run.fsBinding = hw.Bind(t)
	}
	run.fsAgent, run.fsTree = a, "return to "+target
	run.returning, run.returnWhy = target, why
	r.emit(protocol.Event{Kind: "failsafe.return_home", Level: "warning", Mission: d.ID, Revision: d.Revision,
		Message: fmt.Sprintf("failsafe %s: botd returns to %s", why, target), Data: map[string]any{"reason": why, "target": target}})
	return true
}

// returnLatch keeps the failsafe active while botd's own return runs (as
// the failsafe it serves, once that has cleared), with a RETURNING_HOME
// entry naming its target; when the return's tree has ended on its own it
// reports where the robot stopped (failsafe.returned) and lets go.
func (r *Runner) returnLatch(reason, action string, errs []protocol.StateError) (string, string, []protocol.StateError) {
	run := r.run
	if run == nil || run.returning == "" {
		return reason, action, errs
	}
	if !isActive(run.status) || r.currentMode() != protocol.ModeFailsafe {
		run.returning = ""
		return reason, action, errs
	}
	if run.fsAgent == nil { // its tree ended (tickFailsafeTree said how)
		d := run.s.m.Doc
		ev := protocol.Event{Kind: "failsafe.returned", Level: "info", Mission: d.ID, Revision: d.Revision,
			Message: fmt.Sprintf("the return to %s ended", run.returning), Data: map[string]any{"target": run.returning}}
		if f := r.fence; r.cfg.Geofence != nil && !f.NoPose {
			ev.Data["x"], ev.Data["y"] = f.X, f.Y
			ev.Message += fmt.Sprintf(" at (%.2f, %.2f)", f.X, f.Y)
		}
		r.emit(ev)
		run.returning = ""
		return reason, action, errs
	}
	errs = append(errs, protocol.StateError{Code: CodeReturningHome, Level: "WARNING", Ref: run.returning, Message: "botd returns to " + run.returning})
	if reason == "" {
		reason, action = run.returnWhy, r.fs.action
	}
	return reason, action, errs
}

// stopReturn stops botd's own return, if it runs (an escalation to land).
func (r *Runner) stopReturn() {
	if run := r.run; run != nil && run.returning != "" {
		if run.fsAgent != nil {
			run.fsAgent.HaltAll()
			run.fsAgent = nil
		}
		run.returning = ""
	}
}
