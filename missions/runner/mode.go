package runner

import (
	"fmt"
	"time"

	"github.com/botd-project/botd/bt/fsm"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The daemon's mode is a bt/fsm machine. Operator commands move it with To
// (after the checks in commands.go); the conditions below move it on their
// own at the start of every tick: e-stop wins over everything, and a
// failsafe takes over a running mission.
func newModeMachine() (*fsm.Machine[*Runner], error) {
	inMode := func(r *Runner, mem *fsm.Memory) string { return r.mode.Current(mem) }
	return fsm.New(protocol.ModeStarting,
		[]fsm.State[*Runner]{
			{Name: protocol.ModeStarting},
			{Name: protocol.ModeIdle},
			{Name: protocol.ModeRunning, Enter: (*Runner).enterRunning},
			{Name: protocol.ModePaused, Enter: (*Runner).enterPaused},
			{Name: protocol.ModeFailsafe, Enter: (*Runner).enterFailsafe, Exit: (*Runner).exitFailsafe},
			{Name: protocol.ModeEStop, Enter: (*Runner).enterEStop},
		},
		[]fsm.Transition[*Runner]{
			{From: fsm.Any, To: protocol.ModeEStop, When: func(r *Runner, m *fsm.Memory) bool {
				return r.estop && inMode(r, m) != protocol.ModeEStop
			}},
			{From: protocol.ModeEStop, To: protocol.ModePaused, When: func(r *Runner, _ *fsm.Memory) bool {
				return !r.estop && r.run != nil && isActive(r.run.status)
			}},
			{From: protocol.ModeEStop, To: protocol.ModeIdle, When: func(r *Runner, _ *fsm.Memory) bool { return !r.estop }},
			{From: protocol.ModeStarting, To: protocol.ModeIdle, When: func(*Runner, *fsm.Memory) bool { return true }},
			{From: protocol.ModeRunning, To: protocol.ModeFailsafe, When: func(r *Runner, _ *fsm.Memory) bool {
				return r.fs.active && r.fs.action != ActionContinue
			}},
			{From: protocol.ModeFailsafe, To: protocol.ModePaused, When: func(r *Runner, _ *fsm.Memory) bool {
				return !r.fs.active && r.run != nil && isActive(r.run.status)
			}},
			{From: protocol.ModeFailsafe, To: protocol.ModeIdle, When: func(r *Runner, _ *fsm.Memory) bool { return !r.fs.active }},
		})
}

func (r *Runner) currentMode() string { return r.mode.Current(&r.modeMem) }

// stepMode applies the automatic transitions (repeatedly: e-stop released
// may lead on to another state in the same tick).
func (r *Runner) stepMode(now time.Time) {
	for i := 0; i < 4 && r.mode.Step(r, &r.modeMem, now.UnixNano()); i++ {
		r.signal()
	}
}

func (r *Runner) enterRunning(_ *fsm.Memory) {
	if r.run != nil {
		r.run.status = protocol.RunRunning
	}
}

// enterPaused halts the running nodes (actions stop their motors) and puts
// the robot in its safe state. Resume ticks from the root again, and the
// memory composites continue where they were (bt.Agent.Pause): a patrol
// goes on with the leg it was driving, its Repeater with its count. The
// paused mission waits for mission.resume whatever paused it (the
// operator, an e-stop released, a failsafe cleared), so the requested
// mode is PAUSED too.
func (r *Runner) enterPaused(_ *fsm.Memory) {
	r.pauseRun()
	if run := r.run; run != nil && isActive(run.status) {
		r.requested = protocol.ModePaused
	}
}

// pauseRun halts the mission's running nodes, keeping its progress, and
// puts the robot in its safe state.
func (r *Runner) pauseRun() {
	if run := r.run; run != nil {
		run.agent.Pause()
		if isActive(run.status) {
			run.status = protocol.RunPaused
		}
	}
	r.safe()
}

// enterEStop stops everything; the operator's request stays what it was
// ("requested RUNNING, effective ESTOP"), until the release leaves the
// mission paused (enterPaused).
func (r *Runner) enterEStop(_ *fsm.Memory) {
	r.pauseRun()
	r.releaseHooks("e-stop")
	r.emit(protocol.Event{Kind: "estop.engaged", Level: "error", Message: "e-stop: every actuator is in its safe state until estop.reset"})
}

// enterFailsafe carries out the failsafe's action.
func (r *Runner) enterFailsafe(_ *fsm.Memory) {
	run := r.run
	d := run.s.m.Doc
	r.fs.announced = true
	r.emit(protocol.Event{Kind: "failsafe.entered", Level: "error", Mission: d.ID, Revision: d.Revision,
		Message: fmt.Sprintf("failsafe %s: %s", r.fs.reason, r.fs.action), Data: map[string]any{"reason": r.fs.reason, "action": r.fs.action}})
	// The mission is paused, not ended: once the failsafe clears it waits
	// in PAUSED and a resume continues it where it was.
	run.agent.Pause()
	r.releaseHooks("failsafe " + r.fs.reason)
	r.safe()
	if r.fs.reason == fenceReason {
		r.fenceAct(r.fence.Action)
	}
	switch r.fs.action {
	case ActionAbort:
		r.pendingAbort, r.abortWhy = true, fmt.Sprintf("failsafe %s: its action is abort", r.fs.reason)
	case ActionHold:
	case ActionLand, ActionReturnHome:
		r.vehicleAction(r.fs.action)
	default: // a tree of the mission
		r.startFailsafeTree(run, r.fs.action)
	}
}

func (r *Runner) exitFailsafe(_ *fsm.Memory) {
	if run := r.run; run != nil && run.fsAgent != nil {
		run.fsAgent.HaltAll()
		run.fsAgent = nil
		run.returning = "" // botd's own return is stopped too
		r.safe()
	}
}
