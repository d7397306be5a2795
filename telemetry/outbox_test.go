package telemetry

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

func TestOutboxBoundsAndReopen(t *testing.T) {
	dir := t.TempDir()
	o, err := OpenOutbox(OutboxConfig{Dir: dir, MaxEvents: 3, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 5; i++ {
		if err := o.Add(i, []byte(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if o.Len() != 3 || o.Dropped() != 2 || o.LastSeq() != 5 {
		t.Errorf("len %d dropped %d last %d", o.Len(), o.Dropped(), o.LastSeq())
	}
	if e, _ := o.next(0); e.seq != 3 {
		t.Errorf("oldest kept is %d, want 3", e.seq)
	}
	if err := o.Add(5, []byte("x")); err == nil {
		t.Error("seq not after the last accepted")
	}
	// A crash mid-write leaves a temporary file: ignored and removed.
	_ = os.WriteFile(filepath.Join(dir, "00000000000000000009.evt.tmp"), []byte("half"), 0o600)

	o2, err := OpenOutbox(OutboxConfig{Dir: dir, MaxEvents: 3})
	if err != nil {
		t.Fatal(err)
	}
	if o2.Len() != 3 || o2.LastSeq() != 5 {
		t.Errorf("reopened: len %d last %d", o2.Len(), o2.LastSeq())
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.evt")); len(files) != 3 {
		t.Errorf("%d event files left", len(files))
	}
	o2.delivered(3)
	o2.Ack(3)
	if e, _ := o2.next(0); e.seq != 4 || o2.Len() != 2 {
		t.Errorf("after ack: head %d len %d", e.seq, o2.Len())
	}

	small, _ := OpenOutbox(OutboxConfig{Dir: t.TempDir(), MaxBytes: 10})
	_ = small.Add(1, []byte("123456"))
	_ = small.Add(2, []byte("123456")) // 12 bytes: the oldest goes
	if small.Len() != 1 || small.Dropped() != 1 || small.Bytes() != 6 {
		t.Errorf("byte bound: len %d dropped %d bytes %d", small.Len(), small.Dropped(), small.Bytes())
	}
}

// eventsIn returns the event numbers (Event.Message) in arrival order
// and the first-arrival order after dedupe by id.
func eventsIn(t *testing.T, msgs []mqtttest.Msg) (firsts []int, dups int) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range msgs {
		e, err := protocol.DecodeEvent(m.Payload)
		if err != nil {
			t.Fatalf("event: %v: %s", err, m.Payload)
		}
		if seen[e.ID] {
			dups++
			continue
		}
		seen[e.ID] = true
		n, _ := strconv.Atoi(e.Message)
		firsts = append(firsts, n)
	}
	return firsts, dups
}

func emit(sink EventSink, from, to int) {
	for i := from; i <= to; i++ {
		sink(protocol.Event{Kind: "log", Level: "INFO", Message: strconv.Itoa(i)})
	}
}

func checkAllInOrder(t *testing.T, firsts []int, n int) {
	t.Helper()
	if len(firsts) != n {
		t.Fatalf("got %d distinct events, want %d: %v", len(firsts), n, firsts)
	}
	for i, v := range firsts {
		if v != i+1 {
			t.Fatalf("event %d arrived in position %d: %v", v, i+1, firsts)
		}
	}
}

// The broker dies with events in flight (it took them but never
// acknowledged), more events come while it is down, and a fresh broker
// comes up on the same port: every event arrives, in order. paho
// completes the in-flight tokens without error on the reconnect; the
// outbox must not count those as acknowledged.
func TestOutboxSurvivesBrokerRestart(t *testing.T) {
	hole := &mqtttest.Blackhole{Topic: "botd/v1/rover-1/events"}
	b := mqtttest.StartBroker(t, "", hole)
	addr := b.Addr()
	h := startDaemon(t, b.URL(), nil)
	tp := h.d.Topics()
	sub := mqtttest.NewRecorder(t, b.URL(), tp.Events(), tp.Discard())
	h.waitUp(t)
	sink := h.d.EventSink()

	emit(sink, 1, 20)
	mqtttest.Eventually(t, "first 20 events", func() bool { return len(sub.On(tp.Events())) >= 20 })

	hole.On.Store(true)
	emit(sink, 21, 40)
	// The broker goes while the outbox may still be publishing 21..40: a
	// publish then waits for paho's writer across the reconnect, the case
	// where paho used to send an old event ahead of the outbox's resend.
	mqtttest.Eventually(t, "21..40 pending", func() bool { return h.d.outbox.Pending() == 20 })
	b.Close()
	swallowed := hole.Swallowed.Load()
	mqtttest.Eventually(t, "link down", func() bool { return !h.d.currentConn().IsUp() })
	emit(sink, 41, 60)
	mqtttest.Eventually(t, "41..60 stored", func() bool { return h.d.outbox.Pending() == 40 })

	h.gate.Set(true)
	b2 := mqtttest.StartBroker(t, addr)
	mqtttest.Eventually(t, "subscriber back", func() bool { return sub.Ready(2) })
	h.gate.Set(false)

	mqtttest.Eventually(t, "60 events", func() bool { f, _ := eventsIn(t, sub.On(tp.Events())); return len(f) >= 60 })
	firsts, dups := eventsIn(t, sub.On(tp.Events()))
	checkAllInOrder(t, firsts, 60)
	mqtttest.Eventually(t, "every event acknowledged", func() bool { return h.d.outbox.Pending() == 0 })
	// paho's own resend of the in-flight events became empty messages on
	// the discard topic; only the outbox resent them.
	discards := sub.On(tp.Discard())
	if len(discards) == 0 && swallowed > 0 {
		t.Error("paho resent nothing after the reconnect: the filter was not exercised")
	}
	for _, m := range discards {
		if len(m.Payload) != 0 || m.Retained {
			t.Errorf("discard message %q retained=%v", m.Payload, m.Retained)
		}
	}
	t.Logf("60 events, %d duplicates, %d acknowledged, %d paho resends discarded", dups, h.d.outbox.Acked(), len(discards))
	_ = b2
}

// A daemon stopped with unacknowledged events leaves them in its state
// directory; the next daemon on that directory sends them first, with
// their ids and numbers, and numbers new events after them.
func TestOutboxSurvivesDaemonRestart(t *testing.T) {
	hole := &mqtttest.Blackhole{Topic: "botd/v1/rover-1/events"}
	hole.On.Store(true)
	b := mqtttest.StartBroker(t, "", hole)
	dir := t.TempDir()
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) { c.StateDir = dir })
	h.waitUp(t)
	emit(h.d.EventSink(), 1, 10)
	mqtttest.Eventually(t, "10 stored", func() bool { return h.d.outbox.Len() == 10 })
	h.stop(t)
	files, _ := filepath.Glob(filepath.Join(dir, "outbox", "*.evt"))
	if len(files) != 10 {
		t.Fatalf("%d files in the outbox after stop", len(files))
	}

	hole.On.Store(false)
	sub := mqtttest.NewRecorder(t, b.URL(), "botd/v1/rover-1/events")
	h2 := startDaemon(t, b.URL(), func(c *DaemonConfig) { c.StateDir = dir })
	emit(h2.d.EventSink(), 11, 11)
	mqtttest.Eventually(t, "11 events", func() bool { f, _ := eventsIn(t, sub.All()); return len(f) >= 11 })
	firsts, _ := eventsIn(t, sub.All())
	checkAllInOrder(t, firsts, 11)
	var seqs []uint64
	for _, m := range sub.All() {
		e, _ := protocol.DecodeEvent(m.Payload)
		seqs = append(seqs, e.Seq)
	}
	if seqs[len(seqs)-1] != 11 {
		t.Errorf("new event numbered %d, want 11 (seqs %v)", seqs[len(seqs)-1], seqs)
	}
	mqtttest.Eventually(t, "every event acknowledged", func() bool { return h2.d.outbox.Pending() == 0 })
}
