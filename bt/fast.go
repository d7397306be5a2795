package bt

import (
	"fmt"
	"unsafe"
)

// The fast path: what a tick does for the common case, an agent in
// reactive evaluation with no observer. It gives the same statuses, node
// states, halts, lifecycle calls, messages and blackboard writes as
// Exec's general path (every harness test, and TestFastPathRandomTrees,
// compares the two tick by tick: fastshadow_test.go), with less work per
// visit:
//
//   - the hot data of a node (opcode, flags, end of its subtree, where its
//     children are, its parameters) is a 16-byte hotNode in one array, the
//     children of every node in another, and the parameters of the common
//     leaves in arrays of their own; the Node struct, with its strings and
//     interfaces, is only read for nodes that are not built in;
//   - Sequence, Priority, MemSequence, numeric Check, Set and Wait run
//     without an interface call;
//   - a built-in node's state byte is written once per visit (the general
//     path marks a node open before it ticks, so that a panic recovery can
//     halt it; the fast path finds those nodes from the innermost node
//     that is not built in instead, see Agent.markEntered);
//   - a leaf that is not built in still runs under its own recover, as on
//     the general path: its panic becomes its ERROR and the tick goes on.

// hotNode is the part of a node the fast path reads on every visit.
type hotNode struct {
	op    op
	flags uint8
	nkids uint16 // children: tree.kids[kids : kids+nkids]
	end   int32  // one past the last descendant
	kids  int32
	arg   int32 // opCheckNum, opSet, opWait: index in the leaf's array; opMemSequence: memory word
}

// hotNode flags.
const (
	hfOpen      uint8 = 1 << iota // the behavior has Open
	hfClose                       // the behavior has Close
	hfGuard                       // a leaf whose calls are guarded against panics
	hfOnFailure                   // a composite that goes on to the next child on FAILURE (Priority)
)

// fastCheck is a Check comparing a key with a numeric constant, with no
// max_age_ms: the Check of nearly every guard.
type fastCheck struct {
	key Slot
	// mask has bit r set when the comparison holds for outcome r of
	// comparing the value with v: r = 1 (less), 2 (equal), 3 (greater),
	// 0 (unordered: a NaN).
	mask uint8
	v    float64
}

// cmpMasks are fastCheck masks by cmpOp, as compareNum decides.
var cmpMasks = [...]uint8{
	opLT: 1 << 1,
	opLE: 1<<1 | 1<<2,
	opGT: 1 << 3,
	opGE: 1<<2 | 1<<3,
	opEQ: 1 << 2,
	opNE: 1<<0 | 1<<1 | 1<<3,
}

// fastWait is a Wait's parameters and the word of its per-agent memory.
type fastWait struct {
	ms  Num
	mem int32 // word offset of its timerMem in the agent's words
}

// buildHot lays out the hot arrays from the nodes (after compilation).
func (t *Tree) buildHot() {
	// A Sequence, Priority or MemSequence with a child that may return
	// SKIPPED counts its skipped children (its Tick does, BT.CPP's
	// skipped_count_): it goes through its Tick on both paths.
	may := t.maySkip()
	for i := range t.nodes {
		n := &t.nodes[i]
		switch n.op {
		case opSequence, opPriority, opMemSequence:
			for _, c := range n.Children {
				if may[c] {
					n.op = opGeneric
					break
				}
			}
		}
	}
	t.hot = make([]hotNode, len(t.nodes))
	t.kids = t.kids[:0]
	t.checks, t.sets, t.waits = nil, nil, nil
	for i := range t.nodes {
		n := &t.nodes[i]
		h := &t.hot[i]
		h.op, h.end = n.op, n.End
		if n.open != nil {
			h.flags |= hfOpen
		}
		if n.close != nil {
			h.flags |= hfClose
		}
		if n.guard {
			h.flags |= hfGuard
		}
		if n.op == opPriority {
			h.flags |= hfOnFailure
		}
		h.kids = int32(len(t.kids))
		if len(n.Children) > 0xffff {
			// Too many children for the fast composites' count: the
			// behavior's own Tick walks them.
			h.op = opGeneric
		} else {
			h.nkids = uint16(len(n.Children))
			t.kids = append(t.kids, n.Children...)
		}
		switch b := n.b.(type) {
		case memSequence:
			if h.op == opMemSequence {
				h.arg = n.mem + b.mem.off // memMem.resume, its first word
			}
		case *check:
			if b.other == NoSlot && !b.hasAge && b.value.k == KindNumber && !n.guard {
				h.op, h.arg = opCheckNum, int32(len(t.checks))
				t.checks = append(t.checks, fastCheck{key: b.key, mask: cmpMasks[b.op], v: b.value.n})
			}
		case *set:
			if h.op == opSet {
				h.arg = int32(len(t.sets))
				t.sets = append(t.sets, *b)
			}
		case *wait:
			if h.op == opWait {
				h.arg = int32(len(t.waits))
				t.waits = append(t.waits, fastWait{ms: b.ms, mem: n.mem + b.mem.off})
			}
		}
		if n.guard && h.op != opGeneric {
			h.op = opGeneric // a user's type with a built-in's behavior: keep its guard
		}
	}
	t.checkHot()
}

// The fast path reads the hot arrays without bounds checks: the indexes
// it uses come from the compiled tree (a node's children, its entry in a
// leaf's array), which buildHot lays out and checks (checkHot), never from
// input at run time.

func (a *Agent) hotAt(i int32) *hotNode {
	return (*hotNode)(unsafe.Add(a.hotp, uintptr(i)*unsafe.Sizeof(hotNode{})))
}

func (a *Agent) stateAt(i int32) *uint8 { return (*uint8)(unsafe.Add(a.statep, uintptr(i))) }

func (a *Agent) kidAt(k int32) int32 { return *(*int32)(unsafe.Add(a.kidsp, uintptr(k)*4)) }

func (a *Agent) checkAt(k int32) *fastCheck {
	return (*fastCheck)(unsafe.Add(a.checksp, uintptr(k)*unsafe.Sizeof(fastCheck{})))
}

// checkHot panics unless every index the fast path follows is in range (a
// bug in buildHot; never the mission's doing).
func (t *Tree) checkHot() {
	n := int32(len(t.nodes))
	for i, h := range t.hot {
		bad := h.end <= int32(i) || h.end > n || int(h.kids)+int(h.nkids) > len(t.kids)
		for _, c := range t.kids[h.kids : int(h.kids)+int(h.nkids)] {
			bad = bad || c <= int32(i) || c >= h.end
		}
		switch h.op {
		case opCheckNum:
			bad = bad || int(h.arg) >= len(t.checks) || int(t.checks[h.arg].key) >= len(t.keys) || t.checks[h.arg].key < 0
		case opSet:
			bad = bad || int(h.arg) >= len(t.sets)
		case opWait:
			bad = bad || int(h.arg) >= len(t.waits) || int(t.waits[h.arg].mem) >= t.words
		case opMemSequence:
			bad = bad || int(h.arg) >= t.words
		}
		if bad {
			panic(fmt.Sprintf("bt: the fast path's layout of node %d is inconsistent", i))
		}
	}
}

// run is Exec's fast path (see the top of this file).
func (a *Agent) run(i int32) Status {
	h := a.hotAt(i)
	sp := a.stateAt(i)
	s0 := *sp
	opening := s0&stOpen == 0
	var st Status
	switch h.op {
	case opCheckNum:
		if opening {
			// A leaf with no lifecycle that completes at once: the only
			// write is its state byte.
			st = a.checkNum(i, h.arg)
			*sp = uint8(st) | a.epoch
			return st
		}
		st = a.checkNum(i, h.arg)
	case opSequence, opPriority, opMemSequence:
		// One loop for the three: a Sequence goes on while its children
		// succeed, a Priority while they fail; a MemSequence starts at
		// the child it stopped at.
		cont, j := Success, 0
		if h.flags&hfOnFailure != 0 {
			cont = Failure
		}
		var resume *int
		if h.op == opMemSequence {
			resume = (*int)(unsafe.Pointer(&a.words[h.arg]))
			if opening && s0&stResume == 0 { // not resumed after a Pause
				*resume = 0
			}
			j = *resume
		}
		st = cont
		for n := int(h.nkids); j < n; j++ {
			c := a.kidAt(h.kids + int32(j))
			if hc, sc := a.hotAt(c), a.stateAt(c); hc.op == opCheckNum && *sc&stOpen == 0 {
				// A closed numeric Check, the commonest child, in line.
				ck := a.checkAt(hc.arg)
				if a.BB.kind[ck.key] == KindNumber {
					l := a.BB.num[ck.key]
					var lt, eq, gt uint8
					if l < ck.v {
						lt = 1
					}
					if l == ck.v {
						eq = 2
					}
					if l > ck.v {
						gt = 3
					}
					st = Success + Status((ck.mask>>(lt|eq|gt))&1^1)
				} else {
					st = a.checkOther(c)
				}
				*sc = uint8(st) | a.epoch
			} else {
				st = a.run(c)
			}
			if st != cont {
				if resume != nil {
					*resume = j
				}
				break
			}
		}
	case opSet:
		st = a.tree.sets[h.arg].Tick(a, nil)
	case opWait:
		w := &a.tree.waits[h.arg]
		m := (*timerMem)(unsafe.Pointer(&a.words[w.mem]))
		if opening {
			m.start = a.now
			if d, ok := readMs(a, i, w.ms); ok {
				m.dur = uint64(d)
			} else {
				m.dur = badDuration
			}
		}
		switch {
		case m.dur == badDuration:
			st = Error
		case a.now-m.start >= int64(m.dur):
			st = Success
		default:
			st = Running
		}
	default:
		return a.runGeneric(i, h, s0, opening)
	}
	if st == Running {
		*sp = uint8(st) | stOpen | a.epoch
		if opening {
			a.open[i>>6] |= 1 << (uint(i) & 63)
		}
		return st
	}
	if !opening {
		// A node that was closed when this call began had no open
		// descendant, and a built-in one that completes leaves none open
		// (every child it ran completed): only a node that was open can
		// have descendants to halt (a Priority child preempted).
		if lo, hi := i+1, h.end; hi > lo && a.anyOpen(lo, hi) {
			*sp = uint8(st) | stOpen | a.epoch // as the general path has it while descendants halt
			a.haltRange(lo, hi)
		}
		a.open[i>>6] &^= 1 << (uint(i) & 63)
	}
	*sp = uint8(st) | a.epoch
	return st
}

// runGeneric runs a node that is not built in (or not in the fast form)
// exactly as the general path does, less its observer and stored-state
// checks.
func (a *Agent) runGeneric(i int32, h *hotNode, s0 uint8, opening bool) Status {
	n := &a.nodes[i]
	outer := a.entered
	a.entered = i // restored when it returns: after a panic, the innermost
	if opening {
		a.state[i] = s0 | stOpen // so a panic recovery knows it is open
	}
	fresh := opening && s0&stResume == 0 // a node resumed after a Pause keeps its memory
	var st Status
	if h.flags&hfGuard != 0 {
		st = a.tickGuarded(n, fresh)
	} else {
		if fresh && h.flags&hfOpen != 0 {
			n.open.Open(a, n)
		}
		switch h.op {
		case opCheck:
			st = n.b.(*check).Tick(a, n)
		default:
			st = n.b.Tick(a, n)
		}
	}
	a.state[i] = uint8(st) | stOpen | a.epoch
	a.entered = outer
	if st == Running {
		if opening {
			a.open[i>>6] |= 1 << (uint(i) & 63)
		}
		return st
	}
	if lo, hi := i+1, h.end; hi > lo && a.anyOpen(lo, hi) {
		a.haltRange(lo, hi)
	}
	if h.flags&hfClose != 0 {
		if h.flags&hfGuard != 0 {
			a.endGuarded(n, false)
		} else {
			n.close.Close(a, n)
		}
	}
	if !opening {
		a.open[i>>6] &^= 1 << (uint(i) & 63)
	}
	a.state[i] &^= stOpen
	return st
}

// checkNum is Check with a numeric constant (see check.Tick), without a
// branch on the comparison.
func (a *Agent) checkNum(i, arg int32) Status {
	c := a.checkAt(arg)
	if a.BB.kind[c.key] != KindNumber {
		return a.checkOther(i)
	}
	l := a.BB.num[c.key]
	var lt, eq, gt uint8
	if l < c.v {
		lt = 1
	}
	if l == c.v {
		eq = 2
	}
	if l > c.v {
		gt = 3
	}
	return Success + Status((c.mask>>(lt|eq|gt))&1^1)
}

// checkOther is Check on a missing or non-numeric value.
//
//go:noinline
func (a *Agent) checkOther(i int32) Status {
	n := &a.nodes[i]
	return n.b.(*check).Tick(a, n)
}

// markEntered marks open, after a panic cut a tick short, the nodes that
// were being ticked. The fast path writes a built-in node's state only
// when it returns; a node that is not built in is marked open as it is
// entered and is the innermost such node (Agent.entered) until it returns,
// so the nodes on the stack are that node and its ancestors. The general
// path marks every node as it enters it; this gives the same state, so
// the recovery halts the same nodes.
func (a *Agent) markEntered() {
	for p := a.entered; p >= 0 && int(p) < len(a.state); p = a.nodes[p].Parent {
		a.state[p] |= stOpen
	}
}
