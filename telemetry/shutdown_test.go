package telemetry

import (
	"sync"
	"testing"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// willWatch is a broker hook that records the clients that disconnected
// and those whose last will the broker sent.
type willWatch struct {
	mqtt.HookBase
	mu     sync.Mutex
	gone   map[string]bool
	willed map[string]bool
}

func (w *willWatch) ID() string { return "will-watch" }
func (w *willWatch) Provides(b byte) bool {
	return b == mqtt.OnDisconnect || b == mqtt.OnWillSent
}
func (w *willWatch) OnDisconnect(cl *mqtt.Client, _ error, _ bool) {
	w.mu.Lock()
	w.gone[cl.ID] = true
	w.mu.Unlock()
}
func (w *willWatch) OnWillSent(cl *mqtt.Client, _ packets.Packet) {
	w.mu.Lock()
	w.willed[cl.ID] = true
	w.mu.Unlock()
}
func (w *willWatch) state(id string) (gone, willed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gone[id], w.willed[id]
}

// A clean stop publishes OFFLINE last: the broker discards the daemon's
// last will (it saw a clean disconnect), so no stale CONNECTION_BROKEN
// follows, and the retained connection state is OFFLINE. Twenty times in
// a row, the broker closed right after the daemon as botd does with its
// embedded one.
func TestCleanStopPublishesOfflineLast(t *testing.T) {
	for i := range 20 {
		w := &willWatch{gone: map[string]bool{}, willed: map[string]bool{}}
		b := mqtttest.StartBroker(t, "", w)
		h := startDaemon(t, b.URL(), nil)
		h.waitUp(t)
		tp := h.d.Topics()
		rec := mqtttest.NewRecorder(t, b.URL(), tp.Connection())
		mqtttest.Eventually(t, "ONLINE", hasTopic(rec, tp.Connection(), func(m mqtttest.Msg) bool { return state(m) == protocol.ConnOnline }))
		id := h.d.cfg.Conn.ClientID
		h.stop(t)
		// The broker has handled the daemon's disconnect (and sent its
		// will, if it was to) before it calls OnDisconnect.
		mqtttest.Eventually(t, "the daemon's disconnect handled", func() bool { gone, _ := w.state(id); return gone })
		if _, willed := w.state(id); willed {
			t.Fatalf("run %d: the broker sent the daemon's last will after a clean stop", i)
		}
		mqtttest.Eventually(t, "OFFLINE", hasTopic(rec, tp.Connection(), func(m mqtttest.Msg) bool { return state(m) == protocol.ConnOffline }))
		msgs := rec.On(tp.Connection())
		if last := state(msgs[len(msgs)-1]); last != protocol.ConnOffline {
			t.Fatalf("run %d: the last connection message is %s, want OFFLINE", i, last)
		}
		late := mqtttest.NewRecorder(t, b.URL(), tp.Connection())
		mqtttest.Eventually(t, "retained OFFLINE", hasTopic(late, tp.Connection(), func(m mqtttest.Msg) bool { return m.Retained && state(m) == protocol.ConnOffline }))
		_ = b.Close()
	}
}
