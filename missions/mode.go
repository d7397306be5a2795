package missions

import (
	"fmt"
	"time"

	"github.com/botd-project/botd/bt/fsm"
)

// The daemon's mode is a bt/fsm machine. Operator commands move it with To
// (after the checks in commands.go); the conditions below move it on their
// own at the start of every tick: e-stop wins over everything, and a
// failsafe takes over a running mission.
func newModeMachine() (*fsm.Machine[*Runner], error) {
	inMode := func(r *Runner, mem *fsm.Memory) string { return r.mode.Current(mem) }
	return fsm.New(ModeStarting,
		[]fsm.State[*Runner]{
			{Name: ModeStarting},
			{Name: ModeIdle},
			{Name: ModeRunning, Enter: (*Runner).enterRunning},
			{Name: ModePaused, Enter: (*Runner).enterPaused},
			{Name: ModeFailsafe, Enter: (*Runner).enterFailsafe, Exit: (*Runner).exitFailsafe},
			{Name: ModeEStop, Enter: (*Runner).enterEStop},
		},
		[]fsm.Transition[*Runner]{
			{From: fsm.Any, To: ModeEStop, When: func(r *Runner, m *fsm.Memory) bool {
				return r.estop && inMode(r, m) != ModeEStop
			}},
			{From: ModeEStop, To: ModePaused, When: func(r *Runner, _ *fsm.Memory) bool {
				return !r.estop && r.run != nil && isActive(r.run.status)
			}},
			{From: ModeEStop, To: ModeIdle, When: func(r *Runner, _ *fsm.Memory) bool { return !r.estop }},
			{From: ModeStarting, To: ModeIdle, When: func(*Runner, *fsm.Memory) bool { return true }},
			{From: ModeRunning, To: ModeFailsafe, When: func(r *Runner, _ *fsm.Memory) bool {
				return r.fs.active && r.fs.action != ActionContinue
			}},
			{From: ModeFailsafe, To: ModePaused, When: func(r *Runner, _ *fsm.Memory) bool {
				return !r.fs.active && r.run != nil && isActive(r.run.status)
			}},
			{From: ModeFailsafe, To: ModeIdle, When: func(r *Runner, _ *fsm.Memory) bool { return !r.fs.active }},
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
		r.run.status = RunRunning
	}
}

// enterPaused halts the running nodes (actions stop their motors) and puts
// the robot in its safe state; resume continues from the root.
func (r *Runner) enterPaused(_ *fsm.Memory) {
	if run := r.run; run != nil {
		run.agent.HaltAll()
		if isActive(run.status) {
			run.status = RunPaused
		}
	}
	r.safe()
}

func (r *Runner) enterEStop(_ *fsm.Memory) {
	r.enterPaused(nil)
	r.emit(Event{Kind: "estop.engaged", Level: "error", Message: "e-stop: every actuator is in its safe state until estop.reset"})
}

// enterFailsafe carries out the failsafe's action.
func (r *Runner) enterFailsafe(_ *fsm.Memory) {
	run := r.run
	d := run.s.m.Doc
	r.emit(Event{Kind: "failsafe.entered", Level: "error", Mission: d.ID, Revision: d.Revision,
		Message: fmt.Sprintf("failsafe %s: %s", r.fs.reason, r.fs.action), Data: map[string]any{"reason": r.fs.reason, "action": r.fs.action}})
	run.agent.HaltAll()
	r.safe()
	switch r.fs.action {
	case ActionAbort:
		r.pendingAbort = true
	case ActionHold:
	default: // a tree of the mission
		r.startFailsafeTree(run, r.fs.action)
	}
}

func (r *Runner) exitFailsafe(_ *fsm.Memory) {
	if run := r.run; run != nil && run.fsAgent != nil {
		run.fsAgent.HaltAll()
		run.fsAgent = nil
		r.safe()
	}
}
