package telemetry

import (
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// TestStateHeartbeat: with nothing changing, the state still goes out
// stateMaxGap after the last one (the daemon's clock is a fake one that
// only this test moves: the state comes when the clock reaches the last
// state's time plus stateMaxGap, not later).
func TestStateHeartbeat(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	clock := clockwork.NewFakeClockAt(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) { c.Clock = clock })
	tp := h.d.Topics()
	rec := mqtttest.NewRecorder(t, b.URL(), tp.State())
	h.waitUp(t)
	states := func() []time.Time {
		var out []time.Time
		for _, m := range rec.On(tp.State()) {
			s, err := protocol.DecodeState(m.Payload)
			if err != nil {
				t.Fatalf("state: %v", err)
			}
			ts, err := s.Header.Time()
			if err != nil {
				t.Fatalf("state ts: %v", err)
			}
			out = append(out, ts)
		}
		return out
	}
	mqtttest.Eventually(t, "the first state", func() bool { return len(states()) > 0 })
	for range 4 {
		s := states()
		last := s[len(s)-1]
		clock.Advance(last.Add(stateMaxGap).Sub(clock.Now()))
		mqtttest.Eventually(t, "a state stateMaxGap after the last", func() bool { return len(states()) > len(s) })
		if next := states()[len(s)]; next.Sub(last) > stateMaxGap {
			t.Fatalf("a state %v after the last, want at most %v", next.Sub(last), stateMaxGap)
		}
	}
}
