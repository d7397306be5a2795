package telemetry

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Damaged files are moved to corrupt/, counted and never loaded: a
// truncated event, garbage, a file whose name disagrees with its header,
// and garbage named with the largest seq (which used to make every later
// event fail). Events after them are numbered and stored as usual.
func TestOutboxMovesDamagedFilesAside(t *testing.T) {
	dir := t.TempDir()
	o, err := OpenOutbox(OutboxConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 3; i++ {
		if err := o.Add(i, []byte(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	whole, _ := os.ReadFile(o.file(2))
	os.WriteFile(o.file(2), whole[:len(whole)-3], 0o600)                             // truncated
	os.WriteFile(o.file(4), []byte("not an event at all"), 0o600)                    // garbage
	os.WriteFile(o.file(5), encodeRecord(6, []byte(`{"n":6}`)), 0o600)               // renamed
	os.WriteFile(filepath.Join(dir, "18446744073709551615.evt"), []byte("x"), 0o600) // garbage, huge seq

	o2, err := OpenOutbox(OutboxConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if o2.Corrupt() != 4 || o2.Len() != 2 {
		t.Fatalf("corrupt %d len %d, want 4 and 2 (events 1 and 3)", o2.Corrupt(), o2.Len())
	}
	if e, _ := o2.next(1); e.seq != 3 || string(e.payload) != `{"n":3}` {
		t.Fatalf("event after 1: %d %s", e.seq, e.payload)
	}
	aside, _ := filepath.Glob(filepath.Join(dir, corruptDir, "*.evt"))
	if len(aside) != 4 {
		t.Fatalf("%d files in corrupt/, want 4", len(aside))
	}
	next := o2.LastSeq() + 1
	if next > 10 {
		t.Fatalf("numbering continues at %d: a damaged file moved it", next)
	}
	if err := o2.Add(next, []byte(`{"n":7}`)); err != nil {
		t.Fatalf("an event after the damaged files: %v", err)
	}
}

// Sequence numbers never go back: not after every event was delivered and
// acknowledged and the files are gone, not across restarts; the boot
// counter grows at every open.
func TestOutboxSeqAndBootSurviveRestarts(t *testing.T) {
	dir := t.TempDir()
	o, err := OpenOutbox(OutboxConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 3; i++ {
		o.Add(i, []byte("{}"))
		o.delivered(i)
	}
	if n := o.Ack(3); n != 3 || o.Len() != 0 {
		t.Fatalf("ack dropped %d, %d left", n, o.Len())
	}
	o2, err := OpenOutbox(OutboxConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if o2.LastSeq() != 3 || o2.Boot() != o.Boot()+1 || o.Boot() != 1 {
		t.Fatalf("after a restart: last seq %d boot %d (first boot %d)", o2.LastSeq(), o2.Boot(), o.Boot())
	}
	// A damaged state file does not stop a start: it is put aside and
	// reported, and numbering starts a boot above every count of starts,
	// so (boot, seq) never repeats.
	o2.Add(4, []byte("{}"))
	os.WriteFile(filepath.Join(dir, stateFile), []byte("{broken"), 0o600)
	o3, err := OpenOutbox(OutboxConfig{Dir: dir})
	if err != nil {
		t.Fatalf("a damaged state file stopped the outbox from opening: %v", err)
	}
	if o3.StateCorrupt() == "" || o3.Boot() <= o2.Boot()+1 || o3.LastSeq() < 4 {
		t.Fatalf("after a damaged state: reported %q, boot %d (before %d), last seq %d", o3.StateCorrupt(), o3.Boot(), o2.Boot(), o3.LastSeq())
	}
	if b, err := os.ReadFile(filepath.Join(dir, stateFile+".corrupt")); err != nil || string(b) != "{broken" {
		t.Fatalf("the damaged state was not kept aside: %q %v", b, err)
	}
	o4, err := OpenOutbox(OutboxConfig{Dir: dir})
	if err != nil || o4.StateCorrupt() != "" || o4.Boot() != o3.Boot()+1 {
		t.Fatalf("the next start: err %v, reported %q, boot %d after %d", err, o4.StateCorrupt(), o4.Boot(), o3.Boot())
	}
}

// A daemon whose outbox state is damaged starts, and says so in an event.
func TestDaemonStartsWithADamagedOutboxState(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "outbox"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "outbox", stateFile), []byte("\x00\x00garbage"), 0o600)
	d, err := NewDaemon(DaemonConfig{Robot: "rover-1", StateDir: dir, Source: newFakeSource(0), Commands: &fakeHandler{}})
	if err != nil {
		t.Fatalf("the daemon did not start: %v", err)
	}
	if e, ok := d.events.take(); !ok {
		t.Fatal("the damaged state was not reported")
	} else if e.Kind != "events.state_corrupt" || e.Level != "warning" {
		t.Fatalf("event %+v", e)
	}
}

// An event larger than a message may be is refused by the outbox, and one
// a previous run left (before events were bounded) is moved aside at
// open: it would be refused by the broker and resent after every
// reconnect.
func TestOutboxRefusesOversizedEvents(t *testing.T) {
	dir := t.TempDir()
	o, err := OpenOutbox(OutboxConfig{Dir: dir, MaxEvent: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	big := []byte(`{"m":"` + strings.Repeat("x", 3<<20) + `"}`)
	if err := o.Add(1, big); err != nil {
		t.Fatal(err) // allowed by this outbox: a run with a larger limit
	}
	o.Add(2, []byte("{}"))
	o2, err := OpenOutbox(OutboxConfig{Dir: dir, MaxEvent: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if o2.Len() != 1 || o2.Corrupt() != 1 {
		t.Fatalf("after open with a smaller limit: %d kept, %d moved aside", o2.Len(), o2.Corrupt())
	}
	if err := o2.Add(3, big); err == nil {
		t.Fatal("an oversized event was stored")
	}
}

// A delivered event stays until a ground station acknowledges it or its
// retention passes; an undelivered one is never dropped by either.
func TestOutboxAckAndRetention(t *testing.T) {
	clock := clockwork.NewFakeClock()
	o, err := OpenOutbox(OutboxConfig{Dir: t.TempDir(), Retention: time.Minute, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 4; i++ {
		o.Add(i, []byte("{}"))
	}
	o.delivered(1)
	o.delivered(2)
	if n := o.Ack(4); n != 2 || o.Len() != 2 {
		t.Fatalf("ack of 4 with 2 delivered dropped %d, left %d", n, o.Len())
	}
	o.delivered(3)
	clock.Advance(59 * time.Second)
	o.mu.Lock()
	o.evictLocked()
	o.mu.Unlock()
	if o.Len() != 2 {
		t.Fatalf("dropped before its retention: %d left", o.Len())
	}
	clock.Advance(time.Second)
	o.mu.Lock()
	o.evictLocked()
	o.mu.Unlock()
	if o.Len() != 1 || o.Pending() != 1 {
		t.Fatalf("after retention: %d left, %d pending; want event 4 only", o.Len(), o.Pending())
	}
}

// A ground station that missed events (its broker session was lost) asks
// for them with events.request and gets every kept one again, with the
// same ids and numbers; events.ack lets the robot drop them.
func TestEventHistoryRequestAndAck(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	tp := h.d.Topics()
	emit(h.d.EventSink(), 1, 5)
	mqtttest.Eventually(t, "5 events delivered", func() bool { return h.d.outbox.Len() == 5 && h.d.outbox.Pending() == 0 })

	late := mqtttest.NewRecorder(t, b.URL(), tp.Events(), tp.Reply())
	pub := mqtttest.NewPublisher(t, b.URL())
	pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"h1","op":"events.request","since_seq":2}`))
	mqtttest.Eventually(t, "events 3..5 again", func() bool { f, _ := eventsIn(t, late.On(tp.Events())); return len(f) >= 3 })
	firsts, _ := eventsIn(t, late.On(tp.Events()))
	if fmt.Sprint(firsts) != "[3 4 5]" {
		t.Fatalf("history %v, want [3 4 5]", firsts)
	}
	// The reply may come after the events it announced.
	mqtttest.Eventually(t, "the events.request reply", func() bool { return len(replies(t, late, tp.Reply())) > 0 })
	rep := replies(t, late, tp.Reply())
	if len(rep) != 1 || !rep[0].OK || rep[0].Result["count"] != float64(3) {
		t.Fatalf("events.request reply %+v", rep)
	}
	pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"a1","op":"events.ack","seq":4}`))
	mqtttest.Eventually(t, "events up to 4 dropped", func() bool { return h.d.outbox.Len() == 1 })
	pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"a2","op":"events.ack","seq":99}`))
	mqtttest.Eventually(t, "a refusal for a seq never sent", func() bool {
		for _, r := range replies(t, late, tp.Reply()) {
			if r.ID == "a2" {
				return !r.OK && r.Error.Code == protocol.ErrValidation
			}
		}
		return false
	})
}

// An event that cannot be stored (here the outbox folder is gone and a
// file stands in its place) is sent live all the same, counted as dropped
// from the outbox, and raised as STORAGE_FAILED until storing works again.
func TestEventStorageFailureIsSentLiveAndRaised(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	dir := t.TempDir()
	var mu sync.Mutex
	faults := map[string]*protocol.StateError{}
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.StateDir = dir
		c.Fault = func(key string, e *protocol.StateError) { mu.Lock(); faults[key] = e; mu.Unlock() }
	})
	h.waitUp(t)
	tp := h.d.Topics()
	sub := mqtttest.NewRecorder(t, b.URL(), tp.Events())
	outbox := filepath.Join(dir, "outbox")
	os.RemoveAll(outbox)
	os.WriteFile(outbox, nil, 0o600)
	emit(h.d.EventSink(), 1, 1)
	mqtttest.Eventually(t, "the event live", func() bool { f, _ := eventsIn(t, sub.On(tp.Events())); return len(f) == 1 })
	mqtttest.Eventually(t, "STORAGE_FAILED raised", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return faults["events.storage"] != nil && faults["events.storage"].Code == protocol.ErrStorageFailed
	})
	if m := h.d.Metrics(); m.Dropped.Outbox == 0 {
		t.Fatalf("the lost event is not counted: %+v", m.Dropped)
	}
	os.Remove(outbox)
	os.MkdirAll(outbox, 0o700)
	emit(h.d.EventSink(), 2, 2)
	mqtttest.Eventually(t, "STORAGE_FAILED cleared", func() bool {
		mu.Lock()
		defer mu.Unlock()
		e, seen := faults["events.storage"]
		return seen && e == nil
	})
}
