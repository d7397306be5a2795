package transport_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/transport"
)

// willSeen records the clients whose last will the broker sent, and those
// it has finished with.
type willSeen struct {
	mqtt.HookBase
	mu           sync.Mutex
	gone, willed map[string]bool
}

func (w *willSeen) ID() string { return "will-seen" }
func (w *willSeen) Provides(b byte) bool {
	return b == mqtt.OnDisconnect || b == mqtt.OnWillSent
}
func (w *willSeen) OnDisconnect(cl *mqtt.Client, _ error, _ bool) {
	w.mu.Lock()
	w.gone[cl.ID] = true
	w.mu.Unlock()
}
func (w *willSeen) OnWillSent(cl *mqtt.Client, _ packets.Packet) {
	w.mu.Lock()
	w.willed[cl.ID] = true
	w.mu.Unlock()
}
func (w *willSeen) state(id string) (gone, willed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gone[id], w.willed[id]
}

// A clean Close while messages keep arriving on the connection's own
// subscriptions (a robot subscribed to its own connection topic hears its
// goodbye echoed; commands may arrive at any time) still ends with a
// DISCONNECT the broker reads: no last will. A broker writing to a socket
// the client has just closed ends that client with an error before it
// reads the DISCONNECT, and sends the will: Close unsubscribes first.
func TestCloseUnderTrafficSendsNoWill(t *testing.T) {
	w := &willSeen{gone: map[string]bool{}, willed: map[string]bool{}}
	b := mqtttest.StartBroker(t, "", w)
	pub := mqtttest.NewPublisher(t, b.URL())
	var stop atomic.Bool
	var flood sync.WaitGroup
	flood.Go(func() {
		for !stop.Load() {
			_, _ = pub.PublishAsync("t/flood", 0, false, make([]byte, 512))
		}
	})
	defer func() { stop.Store(true); flood.Wait() }()
	for i := range 20 {
		o := mqtttest.Options(b.URL())
		o.ClientID = fmt.Sprintf("closer-%d", i)
		o.Will = &transport.Message{Topic: "t/will", QoS: 1, Payload: []byte("broken")}
		o.Goodbye = func() transport.Message {
			return transport.Message{Topic: "t/conn", QoS: 1, Retain: true, Payload: []byte("offline")}
		}
		o.Subscriptions = []transport.Subscription{{Filter: "t/#", QoS: 1, Handler: func(string, []byte) {}}}
		c, err := transport.Dial(o)
		if err != nil {
			t.Fatal(err)
		}
		mqtttest.Eventually(t, "up", c.IsUp)
		if err := c.Close(); err != nil {
			t.Fatalf("run %d: close: %v", i, err)
		}
		mqtttest.Eventually(t, "the disconnect handled", func() bool { gone, _ := w.state(o.ClientID); return gone })
		if _, willed := w.state(o.ClientID); willed {
			t.Fatalf("run %d: the broker sent the last will after a clean Close", i)
		}
	}
}
