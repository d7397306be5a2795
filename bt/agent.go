package bt

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// Event is a node lifecycle event seen by an Observer.
type Event uint8

const (
	EventOpen Event = iota
	EventTick
	EventClose
	EventHalt
)

var eventNames = [...]string{"open", "tick", "close", "halt"}

func (e Event) String() string {
	if int(e) < len(eventNames) {
		return eventNames[e]
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// Observer sees every lifecycle event of an agent's nodes, in the order
// they happen. st is the status returned by a tick (Idle for the other
// events). Observers run on the tick goroutine and must not block.
type Observer interface {
	OnNode(a *Agent, node int32, ev Event, st Status)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(a *Agent, node int32, ev Event, st Status)

// OnNode calls f.
func (f ObserverFunc) OnNode(a *Agent, node int32, ev Event, st Status) { f(a, node, ev, st) }

// Sink receives messages nodes emit (Log nodes, leaf panics, driver
// errors). It runs on the tick goroutine and must not block.
type Sink interface {
	Emit(a *Agent, node int32, level, message string)
}

// Agent is one runner of a shared tree: its node memory, node states,
// blackboard and random stream. An agent is not safe for concurrent
// use; distinct agents of one tree may be ticked from different goroutines.
type Agent struct {
	ID int
	// BB is the agent's blackboard.
	BB Blackboard
	// Env is what the agent acts on (a robot's devices); device leaves read
	// it. The engine never touches it.
	Env any
	// Sink receives emitted messages; nil drops them.
	Sink Sink
	// ExprLimits are the budgets of the agent's expressions and scripts
	// (budget.go); set them before the first tick.
	ExprLimits ExprLimits

	tree  *Tree
	nodes []Node // tree.nodes, one load less on the tick path
	// The tree's hot arrays and the node states, read without bounds
	// checks by the fast path (fast.go).
	hotp, kidsp, checksp, statep unsafe.Pointer
	block                        []uint64
	open                         []uint64 // a bit per open node, for fast range scans
	// state is a byte per node: the last status (low 3 bits), stOpen, and
	// the parity of the last tick that reached it (stEpoch).
	state []uint8
	words []uint64
	obs   Observer
	now   int64
	rng   uint64
	ticks uint64
	epoch uint8 // stEpoch or 0: flips every tick
	// stored is set for stored-state evaluation: completed nodes keep
	// their status (stStored) until the root completes.
	stored bool
	// general is set when Exec takes the general path (an observer is
	// attached, or stored-state evaluation); else it takes the fast path.
	general bool
	// entered is the innermost node being ticked that is not built in, or
	// -1 (see markEntered).
	entered int32
	// ext holds pointers the memory block cannot (DynamicSubTree's child
	// agents, injections); nil until a node needs it.
	ext *agentExt
	// exprs runs the agent's expressions; nil until one runs.
	exprs *exprState
	// hooks are the agent's breakpoints and replacements (hook.go); nil
	// when it has none, and then no tick path looks further.
	hooks  *hookSet
	hookFn HookListener
	// special is stored || hooks != nil: execGeneral's one test for both.
	special bool
	// resuming is set by Pause until the next tick (or halt) consumed
	// the stResume marks.
	resuming bool
	// pausing is set while Pause halts the nodes (Pausing).
	pausing bool
}

const (
	stStatus = 0x07
	stOpen   = 0x08
	stEpoch  = 0x10
	stStored = 0x20 // completed in this evaluation (stored-state mode)
	// stResume marks a closed node that Pause halted and whose type keeps
	// its progress: when the next tick reaches it, it reopens without
	// Open. Any write of the node's state clears it.
	stResume = 0x40
)

// NewAgent makes an agent for t with its memory in one allocation and the
// mission's initial blackboard written at time now (clock nanoseconds).
func NewAgent(t *Tree, id int, now int64) *Agent {
	a := &Agent{ID: id, tree: t, nodes: t.nodes, stored: t.eval == StoredState, general: t.eval == StoredState, special: t.eval == StoredState, entered: -1}
	a.hotp, a.kidsp, a.checksp = unsafe.Pointer(unsafe.SliceData(t.hot)), unsafe.Pointer(unsafe.SliceData(t.kids)), unsafe.Pointer(unsafe.SliceData(t.checks))
	l := t.layout
	a.block = make([]uint64, l.total)
	a.open = a.block[0:l.bitWords:l.bitWords]
	a.words = a.block[l.wordsOff:l.numOff:l.numOff]
	if l.keyCount > 0 {
		a.BB.num = unsafe.Slice((*float64)(unsafe.Pointer(&a.block[l.numOff])), l.keyCount)
		a.BB.ts = unsafe.Slice((*int64)(unsafe.Pointer(&a.block[l.tsOff])), l.keyCount)
	}
	if l.nodeCount+l.keyCount > 0 {
		bytes := unsafe.Slice((*byte)(unsafe.Pointer(&a.block[l.bytesOff])), l.nodeCount+l.keyCount)
		a.state = bytes[:l.nodeCount:l.nodeCount]
		a.statep = unsafe.Pointer(unsafe.SliceData(a.state))
		if l.keyCount > 0 {
			a.BB.kind = unsafe.Slice((*ValueKind)(unsafe.Pointer(&bytes[l.nodeCount])), l.keyCount)
		}
	}
	a.BB.keys = t.keys
	a.rng = t.seed ^ (uint64(id)+1)*0x9E3779B97F4A7C15
	a.initBlackboard(now)
	return a
}

func (a *Agent) initBlackboard(now int64) {
	a.now, a.BB.now = now, now
	for _, iv := range a.tree.init {
		a.BB.SetAt(iv.slot, iv.v, now)
	}
}

// Tree returns the tree the agent runs.
func (a *Agent) Tree() *Tree { return a.tree }

// SetObserver attaches an observer (nil detaches).
func (a *Agent) SetObserver(o Observer) {
	a.obs = o
	a.general = o != nil || a.stored || a.hooks != nil
}

// Observer returns the attached observer.
func (a *Agent) Observer() Observer { return a.obs }

// Now returns the time of the current tick (clock nanoseconds).
func (a *Agent) Now() int64 { return a.now }

// Ticks returns how many times the agent has been ticked.
func (a *Agent) Ticks() uint64 { return a.ticks }

// Mem returns node n's per-agent memory words (reserved with Builder.Words;
// memory reserved with Reserve is read with Mem.Of).
func (a *Agent) Mem(n *Node) []uint64 { return a.words[n.mem : n.mem+n.memN : n.mem+n.memN] }

// IsOpen reports whether node i is open (RUNNING) for this agent.
func (a *Agent) IsOpen(i int32) bool { return a.state[i]&stOpen != 0 }

// Status returns the last status node i returned, or Idle when it has not
// run since it was last halted.
func (a *Agent) Status(i int32) Status { return Status(a.state[i] & stStatus) }

// Rand returns the next number of the agent's random stream (splitmix64,
// seeded from the mission seed and the agent id).
func (a *Agent) Rand() uint64 {
	a.rng += 0x9E3779B97F4A7C15
	z := a.rng
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Emit sends a message to the agent's sink.
func (a *Agent) Emit(node int32, level, msg string) {
	if a.Sink != nil {
		a.Sink.Emit(a, node, level, msg)
	}
}

// Tick runs one tick of the tree at time now (clock nanoseconds) and
// applies the halt rules: when the root returns RUNNING, every node that
// was open before this tick and was not reached is halted, deepest first.
func (a *Agent) Tick(now int64) (st Status) {
	a.now, a.BB.now = now, now
	a.ticks++
	a.epoch ^= stEpoch
	a.entered = -1
	defer func() {
		if r := recover(); r != nil {
			// A node other than a leaf panicked: the tree's state is not
			// trustworthy, so stop everything it had started.
			a.Emit(0, "error", fmt.Sprintf("panic in tick: %v", r))
			a.markEntered()
			a.syncOpenBits()
			a.HaltAll()
			st = Error
		}
	}()
	if a.stored {
		if m := a.runMonitors(); m != Failure {
			// A monitor fired: stop everything and evaluate from the
			// root. A guard that errs is never taken for a FAILURE: the
			// tick ends with ERROR and nothing stays open.
			a.HaltAll()
			a.forget()
			if m == Error {
				return Error
			}
		}
	}
	if a.general {
		st = a.execGeneral(0)
	} else {
		st = a.run(0)
	}
	if st == Running {
		a.haltUnreached()
	} else if a.stored {
		a.forget()
	}
	if a.resuming {
		a.dropResume()
	}
	return st
}

// runMonitors evaluates every registered Monitor's child as a standalone
// guard, in index order, until one succeeds or errs, and returns that
// status (FAILURE when none did).
func (a *Agent) runMonitors() Status {
	for _, m := range a.tree.monitors {
		n := &a.nodes[m.node]
		if !*m.registered.Of(a, n) {
			continue
		}
		child := n.Children[0]
		end := a.nodes[child].End
		a.unstore(child, end)
		st := a.Exec(child)
		if st == Running {
			// A guard is instantaneous: nothing it started stays open.
			a.haltRange(child, end)
		}
		if st == Success || st == Error {
			return st
		}
	}
	return Failure
}

// forget clears stored statuses and monitor registrations (stored-state
// evaluation starts afresh).
func (a *Agent) forget() {
	for j := range a.state {
		a.state[j] &^= stStored
	}
	for _, m := range a.tree.monitors {
		*m.registered.Of(a, &a.nodes[m.node]) = false
	}
}

// unstore clears the stored statuses of [lo, hi) (stored-state
// evaluation): those nodes run again when next reached.
func (a *Agent) unstore(lo, hi int32) {
	for j := lo; j < hi; j++ {
		a.state[j] &^= stStored
	}
}

// Exec ticks node i: opens it if needed, ticks it and, when it completes,
// halts its open descendants (deepest first) and closes it. Composites and
// decorators call Exec on their children.
func (a *Agent) Exec(i int32) Status {
	if a.general {
		return a.execGeneral(i)
	}
	return a.run(i)
}

// execGeneral is Exec with an observer or in stored-state evaluation.
func (a *Agent) execGeneral(i int32) Status {
	if a.special {
		if a.stored && a.state[i]&stStored != 0 {
			return Status(a.state[i] & stStatus)
		}
		if h := a.hooks; h != nil && h.mark[i] != 0 && h.inside != i {
			return a.execHooked(i)
		}
	}
	n := &a.nodes[i]
	// The open bit set (used to find open nodes in a range) changes only
	// when a node stays open past this call or was open before it: a node
	// that opens and completes in one call never touches it.
	s0 := a.state[i]
	opening := s0&stOpen == 0
	if opening {
		a.state[i] = s0 | stOpen // so a panic recovery knows it is open
		if a.obs != nil {
			a.obs.OnNode(a, i, EventOpen, Idle)
		}
	}
	// A node resumed after a pause keeps its memory: no Open.
	fresh := opening && s0&stResume == 0
	var st Status
	if n.guard {
		st = a.tickGuarded(n, fresh)
	} else {
		if fresh && n.open != nil {
			n.open.Open(a, n)
		}
		// The commonest built-ins are called directly: an indirect call
		// per visit is a measurable share of a tick.
		switch n.op {
		case opSequence:
			st = generalSequence(a, n)
		case opPriority:
			st = generalPriority(a, n)
		case opMemSequence:
			st = generalMemSequence(a, n)
		case opCheck:
			st = n.b.(*check).Tick(a, n)
		default:
			st = n.b.Tick(a, n)
		}
	}
	a.state[i] = uint8(st) | stOpen | a.epoch
	if a.obs != nil {
		a.obs.OnNode(a, i, EventTick, st)
	}
	if st == Running {
		if opening {
			a.open[i>>6] |= 1 << (uint(i) & 63)
		}
	} else {
		if lo, hi := i+1, n.End; hi > lo && a.anyOpen(lo, hi) {
			a.haltRange(lo, hi)
		}
		if n.close != nil {
			if n.guard {
				a.endGuarded(n, false)
			} else {
				n.close.Close(a, n)
			}
		}
		if !opening {
			a.open[i>>6] &^= 1 << (uint(i) & 63)
		}
		a.state[i] &^= stOpen
		if a.stored {
			a.state[i] |= stStored
		}
		if a.obs != nil {
			a.obs.OnNode(a, i, EventClose, Idle)
		}
	}
	return st
}

// generalSequence is Sequence's Tick on the general path.
func generalSequence(a *Agent, n *Node) Status {
	for _, c := range n.Children {
		if st := a.execGeneral(c); st != Success {
			return st
		}
	}
	return Success
}

// generalPriority is Priority's Tick on the general path.
func generalPriority(a *Agent, n *Node) Status {
	for _, c := range n.Children {
		if st := a.execGeneral(c); st != Failure {
			return st
		}
	}
	return Failure
}

// generalMemSequence is MemSequence's Tick on the general path.
func generalMemSequence(a *Agent, n *Node) Status {
	resume := &n.b.(memSequence).mem.Of(a, n).resume
	for i := *resume; i < len(n.Children); i++ {
		if st := a.execGeneral(n.Children[i]); st != Success {
			*resume = i
			return st
		}
	}
	return Success
}

// tickGuarded runs a leaf's open (when opening) and tick, turning a
// panic into ERROR.
func (a *Agent) tickGuarded(n *Node, opening bool) (st Status) {
	defer func() {
		if r := recover(); r != nil {
			a.Emit(n.Index, "error", fmt.Sprintf("panic in %s: %v", n.Type.Name, r))
			st = Error
		}
	}()
	if opening && n.open != nil {
		n.open.Open(a, n)
	}
	return n.b.Tick(a, n)
}

// endGuarded closes or halts a leaf, containing a panic.
func (a *Agent) endGuarded(n *Node, halt bool) {
	defer func() {
		if r := recover(); r != nil {
			a.Emit(n.Index, "error", fmt.Sprintf("panic in %s while stopping: %v", n.Type.Name, r))
		}
	}()
	if halt {
		n.halt.Halt(a, n)
	} else {
		n.close.Close(a, n)
	}
}

// halt stops open node i.
func (a *Agent) halt(i int32) {
	n := &a.nodes[i]
	// A node held at a breakpoint is released; its Halt is called only
	// if its behavior was open (hook.go).
	behaviorOpen := a.hooks == nil || a.hookHalting(i)
	if n.halt != nil && behaviorOpen {
		if n.guard {
			a.endGuarded(n, true)
		} else {
			n.halt.Halt(a, n)
		}
	}
	a.open[i>>6] &^= 1 << (uint(i) & 63)
	a.state[i] = a.state[i] & (stEpoch | stResume) // Idle, closed (resumable after a Pause)
	if a.obs != nil {
		a.obs.OnNode(a, i, EventHalt, Idle)
	}
}

// anyOpen reports whether a node in [lo, hi) may be open; exact when the
// range lies in one word of the open set, which is the common case.
func (a *Agent) anyOpen(lo, hi int32) bool {
	if lo>>6 != (hi-1)>>6 {
		return true
	}
	w := a.open[lo>>6] >> (uint(lo) & 63)
	return w&(uint64(1)<<uint(hi-lo)-1) != 0
}

// haltRange halts every open node with index in [lo, hi), highest first.
func (a *Agent) haltRange(lo, hi int32) {
	for i := hi - 1; i >= lo; {
		wi := i >> 6
		w := a.open[wi] & (uint64(2)<<(uint(i)&63) - 1)
		if wi == lo>>6 {
			w &= ^uint64(0) << (uint(lo) & 63)
		}
		if w == 0 {
			i = wi<<6 - 1
			continue
		}
		j := wi<<6 | int32(bits.Len64(w)-1)
		a.halt(j)
		i = j - 1
	}
}

// haltUnreached halts every open node not reached in this tick, highest
// first.
func (a *Agent) haltUnreached() {
	for wi := len(a.open) - 1; wi >= 0; wi-- {
		w := a.open[wi]
		for w != 0 {
			b := bits.Len64(w) - 1
			w &^= 1 << uint(b)
			if i := int32(wi<<6 | b); a.state[i]&stEpoch != a.epoch {
				a.halt(i)
			}
		}
	}
}

// syncOpenBits rebuilds the open bit set from the state bytes (after a
// panic cut a tick short, some nodes may be open without their bit).
func (a *Agent) syncOpenBits() {
	clear(a.open)
	for i, st := range a.state {
		if st&stOpen != 0 {
			a.open[i>>6] |= 1 << (uint(i) & 63)
		}
	}
}

// HaltAll halts every open node, deepest first (abort, the end of a
// mission), and forgets the progress a Pause kept: every node starts
// afresh when next reached.
func (a *Agent) HaltAll() {
	if n := int32(len(a.nodes)); n > 0 {
		a.haltRange(0, n)
	}
	if a.resuming {
		a.dropResume()
	}
}

// Pause halts every open node, deepest first, as HaltAll does (a halt
// stops what the node owns: an action its motors), but keeps the
// progress of the nodes whose type has KeepsProgress: the next tick
// starts at the root as always, and a node of such a type that it
// reaches continues where it was paused (a MemSequence at the child it
// was running, a Repeater with its count) instead of starting afresh.
// Halted leaves start again; so does every node that tick does not
// reach. Child agents (DynamicSubTree) are paused with their parent.
func (a *Agent) Pause() {
	a.pausing = true
	defer func() { a.pausing = false }()
	n := int32(len(a.nodes))
	if n == 0 {
		return
	}
	// Mark before halting: halt keeps the mark, and a node that keeps
	// its progress is exactly one that was open.
	for i := range a.nodes {
		if a.state[i]&stOpen != 0 && a.nodes[i].Type != nil && a.nodes[i].Type.KeepsProgress {
			a.state[i] |= stResume
			a.resuming = true
		}
	}
	a.haltRange(0, n)
}

// Pausing reports whether the agent's nodes are being halted by Pause
// (for a Halter that owns a child agent: it pauses the child rather than
// halting it).
func (a *Agent) Pausing() bool { return a.pausing }

// dropResume clears the marks Pause left on nodes the tick after it did
// not reach: they start afresh when next reached.
func (a *Agent) dropResume() {
	a.resuming = false
	for i := range a.state {
		a.state[i] &^= stResume
	}
}

// Reset halts everything, forgets all node memory and restores the initial
// blackboard, as if the agent were new.
func (a *Agent) Reset(now int64) {
	a.HaltAll()
	a.ext = nil // child agents and the agent's own injections
	refs := a.BB.ref
	clear(a.block)
	clear(refs)
	a.rng = a.tree.seed ^ (uint64(a.ID)+1)*0x9E3779B97F4A7C15
	a.ticks = 0
	a.initBlackboard(now)
}
