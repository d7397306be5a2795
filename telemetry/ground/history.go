package ground

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/telemetry/protocol"
)

// History merges what a robot sends again on events.request (its kept
// events) with the live events into one stream, in seq order, each event
// once. Event seq continues across the robot's restarts, so a new boot
// changes nothing here; the event id is what tells a duplicate (QoS 1
// redeliveries, outbox resends, a replay of what came live).
//
// Use: Watch the robot (its Event handler calls Add), then call
// RequestEvents; call it again whenever Add reports a gap. Events that
// come before the history is complete, or after a gap, wait (at most
// HoldFor) for the missing ones; what the robot no longer keeps is
// reported to Gap, and the stream goes on.
type History struct {
	// Emit receives the events in order; Gap, when set, the seq ranges
	// that will never come (the robot no longer keeps them, or they did
	// not come within HoldFor). Both are called with the History's lock
	// held, one at a time: they must not call back into it.
	Emit func(protocol.EventMsg)
	Gap  func(from, to uint64)
	// HoldFor bounds how long events wait for the ones before them [5 s].
	HoldFor time.Duration
	Clock   clockwork.Clock // [the real clock]

	mu        sync.Mutex
	last      uint64 // highest seq emitted
	seen      map[string]bool
	order     []string
	held      map[uint64]protocol.EventMsg
	waiting   bool   // the history was asked for and is not complete yet
	replayTo  uint64 // the last seq the current replay sends
	inflight  bool   // a request is out
	requested bool   // the first request was made
	timer     clockwork.Timer
	closed    bool
}

// seenIDs bounds the ids History remembers.
const seenIDs = 8192

func (h *History) init() {
	if h.seen == nil {
		h.seen = map[string]bool{}
		h.held = map[uint64]protocol.EventMsg{}
		if h.HoldFor <= 0 {
			h.HoldFor = 5 * time.Second
		}
		if h.Clock == nil {
			h.Clock = clockwork.NewRealClock()
		}
	}
}

// Since is the seq to ask events.request for: the last one emitted.
func (h *History) Since() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// Last is the highest seq emitted (0: none yet).
func (h *History) Last() uint64 { return h.Since() }

// Complete reports whether the history asked for has arrived (or was
// given up on) and no gap is waiting.
func (h *History) Complete() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requested && !h.waiting && len(h.held) == 0
}

// Add takes one event from the robot's events topic. It reports whether
// a request should go out (there is a gap before it and none is asked
// for yet): call RequestEvents then.
func (h *History) Add(m protocol.EventMsg) (request bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	if h.closed || h.seen[m.ID] {
		return false
	}
	if _, dup := h.held[m.Seq]; dup && m.Seq != 0 {
		return false
	}
	if m.Seq == 0 || m.Seq <= h.last {
		// No number, or one at or below what came already with an id
		// not seen (a robot whose outbox started over): it is new.
		h.emit(m)
		return false
	}
	h.held[m.Seq] = m
	h.drain()
	if len(h.held) == 0 {
		return false
	}
	// Before the history is complete, or after a gap: it waits.
	h.arm()
	if !h.waiting && !h.inflight {
		h.inflight = true
		return true
	}
	return false
}

// Begin marks a request as sent, so that events wait for it (RequestEvents
// calls it).
func (h *History) Begin() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	h.requested, h.inflight = true, true
	if h.last == 0 && !h.waiting {
		h.waiting = true // the first request: everything waits for the history
	}
	h.arm()
}

// Replied takes the robot's reply to events.request (or the error of
// sending it: the events held are then let go).
func (h *History) Replied(r protocol.Reply, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.init()
	h.inflight = false
	if err != nil || !r.OK {
		h.flush()
		return
	}
	count, first, to := num(r.Result["count"]), num(r.Result["first_seq"]), num(r.Result["to_seq"])
	if count == 0 || to <= h.last {
		// Nothing kept after what we have: what is missing is gone.
		h.flush()
		return
	}
	if first > h.last+1 {
		if h.last > 0 { // before the first event we had, nothing was missed
			h.gap(h.last+1, first-1)
		}
		h.last = first - 1
	}
	h.waiting, h.replayTo = true, to
	h.drain()
}

// Close stops the timer; later calls do nothing.
func (h *History) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.timer != nil {
		h.timer.Stop()
	}
}

func num(v any) uint64 {
	switch x := v.(type) {
	case float64:
		if x > 0 {
			return uint64(x)
		}
	case uint64:
		return x
	case int:
		if x > 0 {
			return uint64(x)
		}
	}
	return 0
}

// emit passes m on (h.mu held).
func (h *History) emit(m protocol.EventMsg) {
	if m.ID != "" {
		h.seen[m.ID] = true
		h.order = append(h.order, m.ID)
		if len(h.order) > seenIDs {
			delete(h.seen, h.order[0])
			h.order = h.order[1:]
		}
	}
	h.last = max(h.last, m.Seq)
	if h.Emit != nil {
		h.Emit(m)
	}
}

func (h *History) gap(from, to uint64) {
	if h.Gap != nil && from <= to {
		h.Gap(from, to)
	}
}

// drain emits the held events that follow on; a replay is complete when
// its last event came.
func (h *History) drain() {
	for {
		m, ok := h.held[h.last+1]
		if !ok {
			break
		}
		delete(h.held, m.Seq)
		if h.seen[m.ID] {
			h.last = m.Seq
			continue
		}
		h.emit(m)
	}
	if h.waiting && h.replayTo != 0 && h.last >= h.replayTo {
		h.waiting, h.replayTo = false, 0
		if len(h.held) > 0 {
			h.flush() // past the replay, something is missing: do not wait twice
		}
	}
	if len(h.held) == 0 && !h.waiting && h.timer != nil {
		h.timer.Stop()
	}
}

// flush emits everything held, in seq order, reporting what is missing
// (h.mu held).
func (h *History) flush() {
	seqs := make([]uint64, 0, len(h.held))
	for s := range h.held {
		seqs = append(seqs, s)
	}
	slices.Sort(seqs)
	for _, s := range seqs {
		m := h.held[s]
		delete(h.held, s)
		if s <= h.last {
			if !h.seen[m.ID] {
				h.emit(m)
			}
			continue
		}
		if s > h.last+1 && h.last > 0 {
			h.gap(h.last+1, s-1)
		}
		h.emit(m)
	}
	h.waiting, h.replayTo = false, 0
	if h.timer != nil {
		h.timer.Stop()
	}
}

// arm starts the hold timer unless it runs.
func (h *History) arm() {
	if h.closed {
		return
	}
	if h.timer == nil {
		h.timer = h.Clock.AfterFunc(h.HoldFor, h.expire)
		return
	}
	h.timer.Reset(h.HoldFor)
}

func (h *History) expire() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.flush()
	}
}

// RequestEvents sends events.request for what comes after h's last event
// and hands the reply to h. It returns the reply (its Result has count,
// first_seq, to_seq, last_seq and boot) or why none came.
func (g *Client) RequestEvents(ctx context.Context, robot string, h *History) (protocol.Reply, error) {
	h.Begin()
	rep, err := g.Send(ctx, robot, protocol.Command{Op: protocol.OpEventsRequest, SinceSeq: h.Since()})
	if err == nil && !rep.OK && rep.Error != nil {
		err = fmt.Errorf("%s refused events.request: %s: %s", robot, rep.Error.Code, rep.Error.Message)
	}
	h.Replied(rep, err)
	return rep, err
}
