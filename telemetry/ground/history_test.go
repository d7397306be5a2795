package ground_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

type collected struct {
	mu   sync.Mutex
	seqs []uint64
	gaps [][2]uint64
}

func (c *collected) history(clock clockwork.Clock) *ground.History {
	return &ground.History{
		Emit:  func(m protocol.EventMsg) { c.mu.Lock(); c.seqs = append(c.seqs, m.Seq); c.mu.Unlock() },
		Gap:   func(from, to uint64) { c.mu.Lock(); c.gaps = append(c.gaps, [2]uint64{from, to}); c.mu.Unlock() },
		Clock: clock,
	}
}

func (c *collected) got() ([]uint64, [][2]uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.seqs), slices.Clone(c.gaps)
}

func ev(seq uint64, boot uint64) protocol.EventMsg {
	return protocol.EventMsg{Header: protocol.Header{Robot: "r", Seq: seq, Boot: boot}, ID: fmt.Sprint("id-", seq)}
}

func reply(count, first, to uint64) protocol.Reply {
	return protocol.Reply{OK: true, Result: map[string]any{"count": float64(count), "first_seq": float64(first), "to_seq": float64(to)}}
}

func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// Live events that come before the history wait for it; the replay's
// copies of them are dropped; the stream is in order, each event once.
func TestHistoryMergesReplayAndLive(t *testing.T) {
	var c collected
	h := c.history(clockwork.NewFakeClock())
	defer h.Close()
	h.Begin()
	if h.Add(ev(7, 2)) || h.Add(ev(8, 2)) {
		t.Fatal("a gap request while the history is asked for")
	}
	h.Replied(reply(5, 3, 8), nil)
	for s := uint64(3); s <= 8; s++ {
		h.Add(ev(s, 1)) // the replay, with the boot each event was sent in
	}
	h.Add(ev(8, 2)) // a QoS 1 redelivery
	h.Add(ev(9, 2))
	seqs, gaps := c.got()
	if !slices.Equal(seqs, seqRange(3, 9)) || len(gaps) != 0 {
		t.Fatalf("seqs %v gaps %v", seqs, gaps)
	}
	if !h.Complete() {
		t.Error("not complete after the replay")
	}
}

// A gap in the live stream asks for the missing events; what the robot no
// longer keeps is reported, and a new boot (seq continues) is no gap.
func TestHistoryGapAndBoot(t *testing.T) {
	var c collected
	h := c.history(clockwork.NewFakeClock())
	defer h.Close()
	h.Begin()
	h.Replied(reply(2, 1, 2), nil)
	h.Add(ev(1, 1))
	h.Add(ev(2, 1))
	h.Add(ev(3, 2)) // the robot restarted: boot 2, seq goes on
	if !h.Add(ev(6, 2)) {
		t.Fatal("no request asked for after a gap")
	}
	if h.Add(ev(7, 2)) {
		t.Fatal("a second request while one is out")
	}
	h.Begin()
	h.Replied(reply(3, 5, 7), nil) // 4 is no longer kept
	h.Add(ev(5, 2))
	h.Add(ev(6, 2))
	seqs, gaps := c.got()
	if !slices.Equal(seqs, []uint64{1, 2, 3, 5, 6, 7}) || !slices.Equal(gaps, [][2]uint64{{4, 4}}) {
		t.Fatalf("seqs %v gaps %v", seqs, gaps)
	}
}

// Held events do not wait for ever: past HoldFor they go out in order.
func TestHistoryHoldExpires(t *testing.T) {
	clock := clockwork.NewFakeClock()
	var c collected
	h := c.history(clock)
	defer h.Close()
	h.Begin()
	h.Replied(reply(1, 1, 1), nil)
	h.Add(ev(1, 1))
	h.Add(ev(3, 1))
	if err := clock.BlockUntilContext(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(6 * time.Second)
	deadline := time.Now().Add(20 * time.Second)
	for {
		seqs, gaps := c.got()
		if slices.Equal(seqs, []uint64{1, 3}) && slices.Equal(gaps, [][2]uint64{{2, 2}}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("seqs %v gaps %v", seqs, gaps)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Without an answer to the request, what is held goes out.
func TestHistoryNoReply(t *testing.T) {
	var c collected
	h := c.history(clockwork.NewFakeClock())
	defer h.Close()
	h.Begin()
	h.Add(ev(10, 1))
	h.Replied(protocol.Reply{}, fmt.Errorf("no reply"))
	h.Add(ev(11, 1))
	if seqs, gaps := c.got(); !slices.Equal(seqs, []uint64{10, 11}) || len(gaps) != 0 {
		t.Fatalf("seqs %v gaps %v", seqs, gaps)
	}
}
