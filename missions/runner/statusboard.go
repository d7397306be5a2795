package runner

import (
	"slices"
	"sync"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/telemetry/protocol"
)

// statusBoard keeps the telemetry view of one agent's node statuses: the
// latest letter per node and which nodes changed since telemetry last
// looked. The tick goroutine writes it after every tick; telemetry reads
// it at its own rate, so changes while the link is down coalesce to the
// latest status per node.
type statusBoard struct {
	// touched is filled during a tick by the agent's observer (tick
	// goroutine only).
	touched []int32
	mark    []bool

	mu      sync.Mutex
	mission string
	tick    uint64
	at      time.Time
	cur     []byte
	dirty   []bool
	ndirty  int
	// reasons say why nodes failed, while their letter is F or E;
	// fresh lists the nodes whose reason telemetry has not taken yet.
	reasons map[int32]protocol.NodeReason
	fresh   []int32
}

func newStatusBoard(t *bt.Tree, mission string) *statusBoard {
	n := t.Len()
	b := &statusBoard{mark: make([]bool, n), touched: make([]int32, 0, n),
		mission: mission, cur: make([]byte, n), dirty: make([]bool, n), reasons: map[int32]protocol.NodeReason{}}
	for i := range b.cur {
		b.cur[i] = bt.Idle.Letter()
	}
	return b
}

// OnNode marks nodes whose status may have changed (bt.Observer).
func (b *statusBoard) OnNode(_ *bt.Agent, node int32, ev bt.Event, _ bt.Status) {
	if (ev == bt.EventTick || ev == bt.EventHalt) && !b.mark[node] {
		b.mark[node] = true
		b.touched = append(b.touched, node)
	}
}

// commit publishes the statuses of the nodes touched in this tick and
// reports whether there are changes telemetry has not taken yet.
func (b *statusBoard) commit(a *bt.Agent, tick uint64, now time.Time) bool {
	b.mu.Lock()
	b.tick, b.at = tick, now
	for _, i := range b.touched {
		b.mark[i] = false
		l := a.Status(i).Letter()
		if b.cur[i] != l {
			b.cur[i] = l
			if !b.dirty[i] {
				b.dirty[i] = true
				b.ndirty++
			}
		}
		if !failed(l) && len(b.reasons) > 0 {
			delete(b.reasons, i)
		}
	}
	pending := b.ndirty > 0 || len(b.fresh) > 0
	b.mu.Unlock()
	b.touched = b.touched[:0]
	return pending
}

func failed(letter byte) bool { return letter == 'F' || letter == 'E' }

// setReason records why node failed (tick goroutine, during the tick,
// before commit); it lasts while the node's status stays F or E.
func (b *statusBoard) setReason(r protocol.NodeReason) {
	if r.Node < 0 || int(r.Node) >= len(b.mark) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, had := b.reasons[r.Node]; !had || !slices.Contains(b.fresh, r.Node) {
		b.fresh = append(b.fresh, r.Node)
	}
	b.reasons[r.Node] = r
}

// reason returns node's reason, if it has one.
func (b *statusBoard) reason(node int32) (protocol.NodeReason, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.reasons[node]
	return r, ok
}

// takeReasons returns every reason (all) or the fresh ones, by node
// (b.mu held).
func (b *statusBoard) takeReasons(all bool) []protocol.NodeReason {
	var out []protocol.NodeReason
	if all {
		for _, r := range b.reasons {
			out = append(out, r)
		}
	} else {
		for _, n := range b.fresh {
			if r, ok := b.reasons[n]; ok {
				out = append(out, r)
			}
		}
	}
	b.fresh = b.fresh[:0]
	slices.SortFunc(out, func(x, y protocol.NodeReason) int { return int(x.Node) - int(y.Node) })
	return out
}

// take returns the changes since the last call, or a keyframe.
func (b *statusBoard) take(keyframe bool) protocol.StatusUpdate {
	b.mu.Lock()
	defer b.mu.Unlock()
	u := protocol.StatusUpdate{Mission: b.mission, Tick: b.tick, Time: b.at}
	if keyframe {
		u.Keyframe = string(b.cur)
		u.Reasons = b.takeReasons(true)
		clear(b.dirty)
		b.ndirty = 0
		return u
	}
	u.Reasons = b.takeReasons(false)
	if b.ndirty == 0 {
		return u
	}
	changes := make([]protocol.StatusChange, 0, b.ndirty)
	for i, d := range b.dirty {
		if d {
			changes = append(changes, protocol.StatusChange{Node: int32(i), Status: b.cur[i]})
			b.dirty[i] = false
		}
	}
	b.ndirty = 0
	u.Changes = changes
	return u
}
