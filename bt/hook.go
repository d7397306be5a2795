package bt

import "fmt"

// Hooks: breakpoints and node replacement for debuggers (the Groot2
// endpoint's hooks), as BehaviorTree.CPP's pre- and post-tick callbacks
// offer them, with one difference that matters on a robot: a breakpoint
// never blocks the goroutine that ticks. A node held at a breakpoint is
// not ticked and reports RUNNING, so its parents wait exactly as they
// wait for any RUNNING child; the tick itself returns at once, and
// everything the caller does around the tick (a runner's safety envelope,
// failsafes, telemetry, e-stop) runs on.
//
// The engine knows nothing of the debugger: it keeps the hooks an agent
// was given and tells a HookListener what they did. Every hook method
// runs on the goroutine that ticks the agent, between ticks, like every
// other method of an Agent. An agent with no hook takes the same paths
// as before (the fast path when it has no observer); one with hooks (or
// with a node still held) takes the general path.
//
// The rules, as BT.CPP's Groot2Publisher applies its hooks:
//
//   - A PRE hook acts when its node is about to be ticked; a POST hook
//     when the node has been ticked (whatever its status).
//   - A REPLACE hook with Status SUCCESS or FAILURE gives that status in
//     place of the node's tick (PRE: the node is not ticked; POST: its
//     status is replaced); with any other Status it does nothing but
//     count a hit. A node that was running and is replaced is halted.
//   - A BREAKPOINT holds its node: not ticked, RUNNING, until it is
//     unlocked (UnlockHook), its hook removed or disabled, or the node
//     halted (its parent preempted, the tree halted: Agent.HaltAll). A
//     node that was running when the hold began is halted then, with its
//     descendants: BT.CPP's blocked thread leaves a node's last commands
//     in force, and a node that is not ticked must not go on acting (a
//     Drive would keep its wheels turning past the distance it checks at
//     every tick). On the tick after the unlock, the unlock's status, if
//     SUCCESS or FAILURE, is the node's (it is not ticked; for a POST
//     breakpoint, else the status the node had returned if it had
//     completed); otherwise the node opens again and ticks. An unlock
//     when the node is not held lets its next hit through at once
//     (BT.CPP's ready flag).
//   - A hook with Once is removed after it acted (a breakpoint once
//     released).
//   - A breakpoint hits again every time its node is reached, so a
//     RUNNING node with a PRE breakpoint stops at every tick: each unlock
//     is a step (the node, halted at each hold, starts again at each
//     step; remove the breakpoint to let it run on).

// HookPosition is where a hook acts: before or after its node's tick.
type HookPosition uint8

const (
	HookPre HookPosition = iota
	HookPost
)

func (p HookPosition) String() string {
	if p == HookPost {
		return "post"
	}
	return "pre"
}

// HookMode is what a hook does.
type HookMode uint8

const (
	// HookBreakpoint holds the node until it is unlocked.
	HookBreakpoint HookMode = iota
	// HookReplace gives Status in place of the node's (fault injection).
	HookReplace
)

func (m HookMode) String() string {
	if m == HookReplace {
		return "replace"
	}
	return "breakpoint"
}

// Hook is a breakpoint or a replacement on one node.
type Hook struct {
	Node     int32
	Position HookPosition
	Mode     HookMode
	// Status is what the node gives instead of its own: SUCCESS or
	// FAILURE; anything else (Idle, BT.CPP's SKIPPED) gives the node's own.
	Status Status
	// Once removes the hook after it acted (BT.CPP's remove_when_done).
	Once bool
	// Disabled hooks stay listed and do nothing.
	Disabled bool
}

// HookState is a hook as Agent.Hooks lists it.
type HookState struct {
	Hook
	// Held is set while the hook's breakpoint holds its node.
	Held bool
	// Hits counts the times the hook acted.
	Hits uint64
}

// HookEventKind says what a HookEvent reports.
type HookEventKind uint8

const (
	// HookHit: a hook acted (a breakpoint started holding its node, a
	// replacement gave its status or counted a hit).
	HookHit HookEventKind = iota
	// HookReleased: a held node's hold ended (Why: "unlocked", "removed",
	// "disabled", "halted").
	HookReleased
	// HookRemoved: a hook was removed (Why: "once", "removed",
	// "cleared", or the reason given to ClearHooks).
	HookRemoved
)

func (k HookEventKind) String() string {
	switch k {
	case HookHit:
		return "hit"
	case HookReleased:
		return "released"
	}
	return "removed"
}

// HookEvent is what a HookListener is told. Status is, for a hit, the
// status the node gives (RUNNING while held), and for a release, the
// status the hold ends with (Idle when the node just ticks again).
type HookEvent struct {
	Kind   HookEventKind
	Hook   Hook
	Status Status
	Hits   uint64
	Why    string
}

// HookListener is told what an agent's hooks do. It runs on the tick
// goroutine, inside the tick for hits and releases there, and must not
// block.
type HookListener func(a *Agent, ev HookEvent)

// hookSet is an agent's hooks and holds (nil when it has neither).
type hookSet struct {
	// mark has bit 1 (pre), 2 (post), 4 (held) by node: the tick's test.
	mark  []uint8
	hooks []*hookEntry
	holds []*hold
	// inside is the node execHooked is ticking (its second execGeneral
	// call goes to the node).
	inside int32
}

type hookEntry struct {
	Hook
	hits  uint64
	ready bool // an unlock came before the breakpoint was reached
}

// hold is a node held at a breakpoint. The node is open in the agent's
// bookkeeping (its open bit set, RUNNING), so the halt rules reach it
// when its parent stops waiting; its behavior is not open (a node that
// was running was halted when the hold began), so its Halt is not
// called then.
type hold struct {
	node     int32
	pos      HookPosition
	hook     Hook   // as it was when it hit (for events)
	saved    Status // POST: what the node returned
	released bool
	status   Status // the unlock's status
	why      string
}

const (
	markPre  = 1
	markPost = 2
	markHeld = 4
)

func completed(s Status) bool { return s == Success || s == Failure }

// SetHookListener sets the function told about hits, releases and
// removals (nil: nobody).
func (a *Agent) SetHookListener(f HookListener) { a.hookFn = f }

func (a *Agent) hookEvent(kind HookEventKind, h Hook, st Status, hits uint64, why string) {
	if a.hookFn != nil {
		a.hookFn(a, HookEvent{Kind: kind, Hook: h, Status: st, Hits: hits, Why: why})
	}
}

// SetHook adds a hook, or changes the one at the same node and position.
// A held breakpoint changed into a replacement is released (BT.CPP's
// unlock of a hook that stops being interactive).
func (a *Agent) SetHook(h Hook) error {
	if h.Node < 0 || int(h.Node) >= len(a.nodes) {
		return fmt.Errorf("bt: no node %d", h.Node)
	}
	if h.Position > HookPost || h.Mode > HookReplace {
		return fmt.Errorf("bt: bad hook position %d or mode %d", h.Position, h.Mode)
	}
	s := a.hookSet()
	if e := s.find(h.Node, h.Position); e != nil {
		was := e.Mode
		e.Hook = h
		if was == HookBreakpoint && h.Mode == HookReplace {
			a.releaseHold(h.Node, h.Position, Idle, "unlocked")
		}
		if h.Disabled {
			a.releaseHold(h.Node, h.Position, Idle, "disabled")
		}
		return nil
	}
	s.hooks = append(s.hooks, &hookEntry{Hook: h})
	s.remark(h.Node)
	return nil
}

// RemoveHook removes the hook at node and position (false when there is
// none); a node it holds is released.
func (a *Agent) RemoveHook(node int32, pos HookPosition) bool {
	s := a.hooks
	if s == nil || s.find(node, pos) == nil {
		return false
	}
	a.removeHook(node, pos, "removed")
	return true
}

func (a *Agent) removeHook(node int32, pos HookPosition, why string) {
	s := a.hooks
	for k, e := range s.hooks {
		if e.Node == node && e.Position == pos {
			s.hooks = append(s.hooks[:k], s.hooks[k+1:]...)
			a.releaseHold(node, pos, Idle, "removed")
			s.remark(node)
			a.hookEvent(HookRemoved, e.Hook, Idle, e.hits, why)
			break
		}
	}
	a.dropHooksIfEmpty()
}

// UnlockHook releases the breakpoint at node and position: the held node
// goes on at the next tick that reaches it, with st if it is SUCCESS or
// FAILURE (kept as the hook's Status, as BT.CPP does); remove removes
// the hook once released. When the node is not held, its next hit goes
// through at once. False when there is no such hook.
func (a *Agent) UnlockHook(node int32, pos HookPosition, st Status, remove bool) bool {
	s := a.hooks
	if s == nil {
		return false
	}
	e := s.find(node, pos)
	if e == nil {
		return false
	}
	if !completed(st) {
		st = Idle
	}
	e.Status = st
	e.Once = e.Once || remove
	if e.Mode == HookBreakpoint {
		if !a.releaseHold(node, pos, st, "unlocked") {
			e.ready = true
		}
	}
	if remove && s.holdOf(node, pos) != nil {
		a.removeHook(node, pos, "once")
	}
	return true
}

// DisableHooks disables every hook (BT.CPP's DISABLE_ALL_HOOKS); held
// nodes are released.
func (a *Agent) DisableHooks() {
	s := a.hooks
	if s == nil {
		return
	}
	for _, e := range s.hooks {
		e.Disabled = true
		a.releaseHold(e.Node, e.Position, Idle, "disabled")
	}
}

// ClearHooks removes every hook, releasing the nodes they hold; why is
// told to the listener (a mission's end, an e-stop, a silent client).
func (a *Agent) ClearHooks(why string) {
	s := a.hooks
	if s == nil {
		return
	}
	for len(s.hooks) > 0 {
		e := s.hooks[len(s.hooks)-1]
		a.removeHook(e.Node, e.Position, why)
		if a.hooks == nil {
			return
		}
	}
}

// Hooks appends the agent's hooks to dst.
func (a *Agent) Hooks(dst []HookState) []HookState {
	s := a.hooks
	if s == nil {
		return dst
	}
	for _, e := range s.hooks {
		h := s.holdOf(e.Node, e.Position)
		dst = append(dst, HookState{Hook: e.Hook, Held: h != nil && !h.released, Hits: e.hits})
	}
	return dst
}

// HasHooks reports whether the agent has a hook or a held node.
func (a *Agent) HasHooks() bool {
	return a.hooks != nil && len(a.hooks.hooks)+len(a.hooks.holds) > 0
}

func (a *Agent) hookSet() *hookSet {
	if a.hooks == nil {
		a.hooks = &hookSet{mark: make([]uint8, len(a.nodes)), inside: -1}
		a.general, a.special = true, true
	}
	return a.hooks
}

// dropHooksIfEmpty goes back to the paths of an agent without hooks.
func (a *Agent) dropHooksIfEmpty() {
	if s := a.hooks; s != nil && len(s.hooks) == 0 && len(s.holds) == 0 && s.inside < 0 {
		a.hooks = nil
		a.general, a.special = a.obs != nil || a.stored, a.stored
	}
}

func (s *hookSet) find(node int32, pos HookPosition) *hookEntry {
	for _, e := range s.hooks {
		if e.Node == node && e.Position == pos {
			return e
		}
	}
	return nil
}

func (s *hookSet) holdOf(node int32, pos HookPosition) *hold {
	for _, h := range s.holds {
		if h.node == node && h.pos == pos {
			return h
		}
	}
	return nil
}

func (s *hookSet) heldAt(node int32) *hold {
	for _, h := range s.holds {
		if h.node == node {
			return h
		}
	}
	return nil
}

// remark recomputes node's mark.
func (s *hookSet) remark(node int32) {
	var m uint8
	for _, e := range s.hooks {
		if e.Node == node {
			m |= markPre << e.Position
		}
	}
	if s.heldAt(node) != nil {
		m |= markHeld
	}
	s.mark[node] = m
}

// releaseHold marks the hold at node and position released (false when
// there is none): the node goes on at the next tick that reaches it.
func (a *Agent) releaseHold(node int32, pos HookPosition, st Status, why string) bool {
	s := a.hooks
	if s == nil {
		return false
	}
	h := s.holdOf(node, pos)
	if h == nil || h.released {
		return false
	}
	h.released, h.status, h.why = true, st, why
	return true
}

// dropHold forgets h and tells the listener the hold ended.
func (a *Agent) dropHold(h *hold, st Status, why string) {
	s := a.hooks
	for k, x := range s.holds {
		if x == h {
			s.holds = append(s.holds[:k], s.holds[k+1:]...)
			break
		}
	}
	s.remark(h.node)
	a.hookEvent(HookReleased, h.hook, st, 0, why)
}

// hookHalting is called when node i is halted while the agent has hooks:
// a hold on it ends. It reports whether i's behavior is open (its Halt
// is to be called).
func (a *Agent) hookHalting(i int32) bool {
	s := a.hooks
	if s.mark[i]&markHeld == 0 {
		return true
	}
	a.dropHold(s.heldAt(i), Idle, "halted")
	a.dropHooksIfEmpty()
	return false
}

// closeHeld ends the bookkeeping of a hold that kept node i open while
// its behavior was not: closed and IDLE, an observer sees it halted (it
// saw it open when the hold began); the behavior is not called.
func (a *Agent) closeHeld(i int32) {
	a.open[i>>6] &^= 1 << (uint(i) & 63)
	a.state[i] &= stEpoch
	if a.obs != nil {
		a.obs.OnNode(a, i, EventHalt, Idle)
	}
}

// holdNode starts holding node i: RUNNING, open in the bookkeeping and
// reached in this tick. A node that was running (behaviorOpen) is halted
// first, with its descendants: a node that is not ticked must not go on
// acting (a Drive would keep its wheels turning, past the distance it
// checks at every tick), so what it started stops as on a pause.
func (a *Agent) holdNode(i int32, e *hookEntry, saved Status, behaviorOpen bool) Status {
	if behaviorOpen {
		a.haltRange(i, a.nodes[i].End)
	}
	s := a.hooks
	s.holds = append(s.holds, &hold{node: i, pos: e.Position, hook: e.Hook, saved: saved})
	s.mark[i] |= markHeld
	e.hits++
	a.markHeld(i)
	a.hookEvent(HookHit, e.Hook, Running, e.hits, "")
	return Running
}

// markHeld writes node i as RUNNING, open and reached in this tick (an
// observer sees it open, then ticked RUNNING).
func (a *Agent) markHeld(i int32) {
	if a.obs != nil && a.state[i]&stOpen == 0 {
		a.obs.OnNode(a, i, EventOpen, Idle)
	}
	a.state[i] = uint8(Running) | stOpen | a.epoch
	a.open[i>>6] |= 1 << (uint(i) & 63)
	if a.obs != nil {
		a.obs.OnNode(a, i, EventTick, Running)
	}
}

// substitute ends node i with st without ticking it: a node that was
// running (behaviorOpen) is halted first, with its descendants.
func (a *Agent) substitute(i int32, st Status, behaviorOpen bool) Status {
	if behaviorOpen {
		a.haltRange(i, a.nodes[i].End)
	} else {
		if lo, hi := i+1, a.nodes[i].End; hi > lo && a.anyOpen(lo, hi) {
			a.haltRange(lo, hi)
		}
		if a.state[i]&stOpen != 0 {
			a.closeHeld(i)
		}
	}
	a.state[i] = uint8(st) | a.epoch
	if a.stored {
		a.state[i] |= stStored
	}
	if a.obs != nil {
		// The observer sees a node that opened, gave st and closed.
		a.obs.OnNode(a, i, EventOpen, Idle)
		a.obs.OnNode(a, i, EventTick, st)
		a.obs.OnNode(a, i, EventClose, Idle)
	}
	return st
}

// execHooked is execGeneral for a node with a hook or a hold.
func (a *Agent) execHooked(i int32) Status {
	s := a.hooks
	if s.mark[i]&markHeld != 0 {
		h := s.heldAt(i)
		if !h.released {
			a.markHeld(i)
			return Running
		}
		a.dropHold(h, h.status, h.why)
		defer a.dropHooksIfEmpty()
		st := h.status
		if h.pos == HookPost && !completed(st) {
			st = h.saved
		}
		if completed(st) {
			return a.substitute(i, st, false)
		}
		// The node goes on: it opens again now (a node that was running
		// was halted when the hold began), without its PRE hook.
		a.closeHeld(i)
		return a.tickHooked(i, true)
	}
	return a.tickHooked(i, false)
}

// tickHooked runs node i's PRE hook (unless skipPre), the node, and its
// POST hook.
func (a *Agent) tickHooked(i int32, skipPre bool) Status {
	s := a.hooks
	if e := s.find(i, HookPre); e != nil && !skipPre && !e.Disabled {
		if st, done := a.runHook(i, e, Idle, a.state[i]&stOpen != 0); done {
			return st
		}
	}
	outer := s.inside
	s.inside = i
	st := a.execGeneral(i)
	s.inside = outer
	if e := s.find(i, HookPost); e != nil && !e.Disabled {
		if st2, done := a.runHook(i, e, st, st == Running); done {
			st = st2
		}
	}
	if outer < 0 {
		a.dropHooksIfEmpty()
	}
	return st
}

// runHook applies hook e to node i (st: the node's status, for a POST
// hook). done says the hook decided the node's status.
func (a *Agent) runHook(i int32, e *hookEntry, st Status, behaviorOpen bool) (Status, bool) {
	if e.Mode == HookBreakpoint && !e.ready {
		st = a.holdNode(i, e, st, behaviorOpen)
		return st, true
	}
	e.ready = false
	want := e.Status
	if e.Mode == HookReplace {
		e.hits++
		out := st
		if completed(want) {
			out = want
		}
		a.hookEvent(HookHit, e.Hook, out, e.hits, "")
	}
	if e.Once {
		a.removeHook(i, e.Position, "once")
	}
	if !completed(want) {
		return st, false
	}
	return a.substitute(i, want, behaviorOpen), true
}
