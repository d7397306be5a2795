package nav2

import "github.com/botd-project/botd/bt"

// Nav2's PauseResumeController, with its two Trigger services read as
// blackboard keys: a write to the key named by pause_service_name is a
// pause request, one to resume_service_name's a resume request (an
// operator or another node writes them).

var pauseResumeType = bt.NodeType{
	Name: "PauseResumeController", Kind: bt.Composite, MinChildren: 1, MaxChildren: 4, SkipsAbsorb: true,
	Doc: "As in Nav2, its services read as blackboard keys: a write to the key `pause_service_name` requests a pause, one to " +
		"`resume_service_name` a resume (a pause is refused when paused, a resume unless paused, as Nav2's services answer). " +
		"It starts RESUMED, ticking its first child; SUCCESS when that child succeeds. A pause request halts the running child " +
		"and ticks the third child (ON_PAUSE) until it completes, then the second (PAUSED) while paused; a resume request ticks " +
		"the fourth (ON_RESUME), then the first again. A missing child is skipped over (RUNNING); a child that succeeds (or skips) " +
		"in the other states moves it on and returns RUNNING; a child's FAILURE is FAILURE. It starts afresh RESUMED.",
	Params: []bt.Param{
		{Name: "pause_service_name", Type: bt.TString, Required: true, Doc: "the key whose writes request a pause"},
		{Name: "resume_service_name", Type: bt.TString, Required: true, Doc: "the key whose writes request a resume"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		return &pauseResume{pause: b.PortKey("pause_service_name"), resume: b.PortKey("resume_service_name"), mem: bt.Reserve[pauseMem](b)}
	},
}

// The controller's states, as Nav2 names them.
type pauseState uint8

const (
	prResumed pauseState = iota
	prPaused
	prPauseRequested
	prOnPause
	prResumeRequested
	prOnResume
)

var pauseStateNames = [...]string{"RESUMED", "PAUSED", "PAUSE_REQUESTED", "ON_PAUSE", "RESUME_REQUESTED", "ON_RESUME"}

func (s pauseState) String() string { return pauseStateNames[s] }

// childOf is the child each state ticks (Nav2's child_indices); -1 none.
var pauseChild = [...]int{prResumed: 0, prPaused: 1, prPauseRequested: -1, prOnPause: 2, prResumeRequested: -1, prOnResume: 3}

// next is Nav2's switchToNextState.
func (s pauseState) next() pauseState {
	switch s {
	case prPauseRequested:
		return prOnPause
	case prOnPause:
		return prPaused
	case prResumeRequested:
		return prOnResume
	case prOnResume:
		return prResumed
	}
	return s
}

type pauseResume struct {
	pause, resume bt.Slot
	mem           bt.Mem[pauseMem]
}

type pauseMem struct {
	held                  bt.HeldMem
	state                 pauseState
	pauseSeen, resumeSeen int64 // write stamps of the requests seen
	started               bool
}

var _ bt.Halter = (*pauseResume)(nil)

// requested reports a write to key since the stamp seen, and notes it.
func requested(a *bt.Agent, key bt.Slot, seen *int64) bool {
	if key == bt.NoSlot {
		return false
	}
	st, ok := a.BB.Stamp(key)
	if !ok || st == *seen {
		return false
	}
	*seen = st
	return true
}

func (p *pauseResume) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := p.mem.Of(a, n)
	if !a.HeldStatus(n, &m.held) {
		m.state = prResumed
	}
	if !m.started {
		// Requests made before the controller first ran reach no service.
		m.started = true
		requested(a, p.pause, &m.pauseSeen)
		requested(a, p.resume, &m.resumeSeen)
	}
	// The services' answers (Nav2's spin_some, in the order of the calls).
	if requested(a, p.pause, &m.pauseSeen) && m.state != prPaused {
		m.state = prPauseRequested
	}
	if requested(a, p.resume, &m.resumeSeen) && m.state == prPaused {
		m.state = prResumeRequested
	}
	if m.state == prPauseRequested || m.state == prResumeRequested {
		// The child that ran is halted at the end of the tick (it is
		// not reached again).
		m.state = m.state.next()
	}
	idx := pauseChild[m.state]
	if idx >= len(n.Children) {
		m.state = m.state.next()
		return bt.Running
	}
	switch st := a.Exec(n.Children[idx]); st {
	case bt.Success, bt.Skipped:
		if m.state == prResumed {
			return bt.Success
		}
		m.state = m.state.next()
		return bt.Running
	default: // RUNNING, FAILURE, ERROR
		return st
	}
}

// Halt resets the state, as Nav2's halt does.
func (p *pauseResume) Halt(a *bt.Agent, n *bt.Node) { p.mem.Of(a, n).state = prResumed }
