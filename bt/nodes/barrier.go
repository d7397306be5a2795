package nodes

import (
	"fmt"
	"github.com/botd-project/botd/bt"
	"math"
	"sync"
	"sync/atomic"
)

var barrierType = bt.NodeType{
	Name: "Barrier", Kind: bt.Leaf, Category: "action",
	Doc: "Synchronizes agents running this tree: an agent waits here (RUNNING) until `count` agents are waiting, " +
		"then all of them return SUCCESS, each with its arrival order (0 .. count-1) written to `role_key`. " +
		"The agent whose arrival completes the group succeeds in that tick; the others on their next tick. " +
		"Later arrivals form the next group. An agent halted while waiting withdraws: the group shrinks and " +
		"the agents that arrived after it move up one place. The first agent of a group fixes its size; an agent " +
		"arriving with another `count` returns ERROR.",
	Params: []bt.Param{
		{Name: "count", Type: bt.TNumber, Required: true, Min: bt.Float(1), Doc: "agents that meet (a whole number; \"{key}\" is read when the node opens)"},
		{Name: "role_key", Type: bt.TKey, Doc: "key that receives the agent's arrival order in its group"},
	},
	New: newBarrier,
}

// A Barrier's memory is this agent's place, written only under the
// barrier's lock but read without it (atomically):
//
//	0            not waiting (closed, withdrawn, or refused)
//	barWaiting   waiting for the group to fill
//	barReleased+r released with role r, not yet collected by a tick
//	barBadCount  count could not be read or disagrees with the group: ERROR
//
// The agent that completes a group writes every member's place: the
// waiters are kept as pointers to their places (the agents' blocks are
// noscan, but an interior pointer into one keeps it alive). As with Gate,
// an agent must be halted (which withdraws it) before it is dropped.
const (
	barWaiting  = 1
	barBadCount = 2
	barReleased = 3
)

type barrier struct {
	count  bt.Num
	role   bt.Slot // NoSlot: no role_key
	shared *barrierState
	place  bt.Mem[atomic.Uint64]
}

var (
	_ bt.Opener = (*barrier)(nil)
	_ bt.Closer = (*barrier)(nil) // also on halt: a halted waiter withdraws
)

// barrierState is the tree-wide group being formed at one Barrier node.
type barrierState struct {
	mu      sync.Mutex
	count   int32            // size of the group being formed (set by its first arrival)
	waiters []*atomic.Uint64 // places of the waiting agents, in arrival order
	groups  atomic.Uint64
}

// Waiting returns how many agents wait in the group being formed.
func (s *barrierState) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiters)
}

// Groups returns how many groups have been released.
func (s *barrierState) Groups() uint64 { return s.groups.Load() }

func newBarrier(b *bt.Builder) bt.Behavior {
	br := &barrier{count: b.Number("count"), role: b.KeyParam("role_key"), shared: &barrierState{}, place: bt.Reserve[atomic.Uint64](b)}
	if br.count.Slot == bt.NoSlot && br.count.V != math.Trunc(br.count.V) {
		b.Errorf("count", "want a whole number, got %v", br.count.V)
	}
	b.SetShared(br.shared)
	return br
}

// Open arrives at the barrier: the agent joins the group being formed and,
// when it is the count-th, releases the whole group.
func (br *barrier) Open(a *bt.Agent, n *bt.Node) {
	w := br.place.Of(a, n)
	f, ok := br.count.Get(a)
	if !ok || f < 1 || f != math.Trunc(f) || f > math.MaxInt32 {
		a.Emit(n.Index, "error", "Barrier: count: "+a.NumProblem(br.count, "a whole number from 1"))
		w.Store(barBadCount)
		return
	}
	count := int32(f)
	s := br.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiters) == 0 {
		s.count = count
	} else if count != s.count {
		// Agents that meet must agree on the group size.
		a.Emit(n.Index, "error", fmt.Sprintf("Barrier: count is %d here, but the group waiting has count %d", count, s.count))
		w.Store(barBadCount)
		return
	}
	w.Store(barWaiting)
	s.waiters = append(s.waiters, w)
	if int32(len(s.waiters)) == s.count {
		for r, ww := range s.waiters {
			ww.Store(barReleased + uint64(r))
		}
		clear(s.waiters) // drop the pointers: the blocks may be freed
		s.waiters = s.waiters[:0]
		s.groups.Add(1)
	}
}

func (br *barrier) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	switch v := br.place.Of(a, n).Load(); {
	case v == barWaiting:
		return bt.Running
	case v >= barReleased:
		if br.role != bt.NoSlot {
			a.BB.SetNumber(br.role, float64(v-barReleased))
		}
		return bt.Success
	}
	return bt.Error
}

// Close leaves the barrier; for a halted waiter that is a withdrawal. (A
// halt after the group was released but before this agent's next tick
// does not undo the release: the other members still succeed.)
func (br *barrier) Close(a *bt.Agent, n *bt.Node) {
	w := br.place.Of(a, n)
	if w.Load() != barWaiting {
		w.Store(0)
		return
	}
	s := br.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	// Released between the load and the lock?
	if w.Load() == barWaiting {
		for i, ww := range s.waiters {
			if ww == w {
				copy(s.waiters[i:], s.waiters[i+1:])
				s.waiters[len(s.waiters)-1] = nil
				s.waiters = s.waiters[:len(s.waiters)-1]
				break
			}
		}
	}
	w.Store(0)
}
