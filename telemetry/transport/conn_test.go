package transport_test

import (
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/transport"
)

// The paho pitfall the outbox relies on avoiding: a QoS 1 publish still
// unacknowledged when the connection dies has its token completed without
// error on the reconnect (paho resends from its store and completes the
// old token). Acked must say no; only an acknowledgement on the same
// connection counts.
func TestDeliveryNotAckedAcrossReconnect(t *testing.T) {
	hole := &mqtttest.Blackhole{Topic: "t/events"}
	hole.On.Store(true)
	b := mqtttest.StartBroker(t, "", hole)
	gate := &mqtttest.NetGate{}
	o := mqtttest.Options(b.URL())
	o.ClientID, o.WrapConn = "acks", gate.Wrap
	c, err := transport.Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mqtttest.Eventually(t, "up", c.IsUp)

	lost, err := c.PublishAsync("t/events", 1, false, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "the broker has it", func() bool { return hole.Swallowed.Load() == 1 })
	hole.On.Store(false)
	gate.Sever()
	select {
	case <-lost.Done():
	case <-time.After(mqtttest.WaitLong):
		t.Fatal("token never completed")
	}
	if lost.Acked() {
		t.Fatal("a token completed by the reconnect counted as acknowledged")
	}
	mqtttest.Eventually(t, "up again", c.IsUp)

	ok, err := c.PublishAsync("t/events", 1, false, []byte("y"))
	if err != nil {
		t.Fatal(err)
	}
	<-ok.Done()
	if !ok.Acked() {
		t.Error("a real acknowledgement did not count")
	}
	if c.Connects() != 2 {
		t.Errorf("connects %d", c.Connects())
	}
}

// Subscriptions come back after a reconnect (CleanSession: the broker
// forgot them) before IsUp turns true.
func TestResubscribeOnReconnect(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	addr := b.Addr()
	got := make(chan string, 10)
	o := mqtttest.Options(b.URL())
	o.ClientID = "resub"
	o.Subscriptions = []transport.Subscription{{Filter: "a/+", QoS: 1, Handler: func(topic string, _ []byte) {
		select {
		case got <- topic:
		default:
		}
	}}}
	c, err := transport.Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mqtttest.Eventually(t, "up", c.IsUp)
	b.Close()
	mqtttest.Eventually(t, "down", func() bool { return !c.IsUp() })
	b2 := mqtttest.StartBroker(t, addr)
	mqtttest.Eventually(t, "up again", c.IsUp)
	pub := mqtttest.NewPublisher(t, b2.URL())
	if err := pub.Publish("a/b", 1, false, []byte("x")); err != nil {
		t.Fatal(err)
	}
	select {
	case topic := <-got:
		if topic != "a/b" {
			t.Errorf("topic %s", topic)
		}
	case <-time.After(mqtttest.WaitLong):
		t.Fatal("no message after the reconnect")
	}
	if err := c.Publish("a/c", 1, false, nil); err != nil {
		t.Error(err)
	}
	_ = c.Close()
	if err := c.Publish("a/c", 1, false, nil); err != transport.ErrClosed {
		t.Errorf("publish after close: %v", err)
	}
}

// A subscription whose packet id the broker sees in use by one of its own
// unacknowledged messages (the retained messages of an earlier
// subscription: mochi v2.7.9 then refuses it with 0x91, which paho does
// not report as an error) is retried, and works.
func TestSubscribeRetriesAPacketIDInUse(t *testing.T) {
	hook := &inUseHook{filter: "s/1"}
	b := mqtttest.StartBroker(t, "", hook)
	o := mqtttest.Options(b.URL())
	o.ClientID = "inuse"
	c, err := transport.Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mqtttest.Eventually(t, "up", c.IsUp)
	got := make(chan string, 4)
	if err := c.Subscribe("s/1", 1, func(topic string, _ []byte) { got <- topic }); err != nil {
		t.Fatal(err)
	}
	if n := hook.refusals.Load(); n != 1 {
		t.Fatalf("the broker refused %d subscriptions, want 1", n)
	}
	pub := mqtttest.NewPublisher(t, b.URL())
	if err := pub.Publish("s/1", 1, false, []byte("y")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(mqtttest.WaitLong):
		t.Fatal("nothing received: the subscription was not retried")
	}
}

// inUseHook makes the broker see the packet id of the first SUBSCRIBE to
// filter as in use by a message of its own, as mochi v2.7.9 does while
// retained messages it sent are not yet acknowledged.
type inUseHook struct {
	mqtt.HookBase
	filter   string
	refusals atomic.Int64
	mu       sync.Mutex
	fake     uint16 // the id made to look in use; 0 when none
}

func (h *inUseHook) ID() string { return "in-use" }
func (h *inUseHook) Provides(b byte) bool {
	return b == mqtt.OnSubscribe
}
func (h *inUseHook) OnSubscribe(cl *mqtt.Client, pk packets.Packet) packets.Packet {
	if len(pk.Filters) != 1 || pk.Filters[0].Filter != h.filter {
		return pk
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fake != 0 { // the retry: the broker's message has been acknowledged meanwhile
		cl.State.Inflight.Delete(h.fake)
		return pk
	}
	h.fake = pk.PacketID
	h.refusals.Add(1)
	cl.State.Inflight.Set(packets.Packet{FixedHeader: packets.FixedHeader{Type: packets.Publish, Qos: 1}, PacketID: pk.PacketID, TopicName: "r/1"})
	return pk
}

// SubscribeAtMostOnce subscribes at QoS 0 whatever the subscription asks,
// the ones given in Options and the ones added later, after a reconnect
// too (RabbitMQ strands a QoS 1 subscription on a dead node).
func TestSubscribeAtMostOnce(t *testing.T) {
	for _, once := range []bool{false, true} {
		hook := &qosHook{}
		b := mqtttest.StartBroker(t, "", hook)
		o := mqtttest.Options(b.URL())
		o.ClientID = fmt.Sprint("once-", once)
		o.SubscribeAtMostOnce = once
		o.Subscriptions = []transport.Subscription{{Filter: "a/1", QoS: 1, Handler: func(string, []byte) {}}}
		c, err := transport.Dial(o)
		if err != nil {
			t.Fatal(err)
		}
		mqtttest.Eventually(t, "up", c.IsUp)
		if err := c.Subscribe("b/1", 1, func(string, []byte) {}); err != nil {
			t.Fatal(err)
		}
		c.Close()
		want := byte(1)
		if once {
			want = 0
		}
		for f, q := range hook.got() {
			if q != want {
				t.Errorf("SubscribeAtMostOnce %v: %s subscribed at QoS %d, want %d", once, f, q, want)
			}
		}
		if len(hook.got()) != 2 {
			t.Errorf("SubscribeAtMostOnce %v: subscriptions %v", once, hook.got())
		}
	}
}

// qosHook records the QoS each filter was subscribed at.
type qosHook struct {
	mqtt.HookBase
	mu  sync.Mutex
	qos map[string]byte
}

func (h *qosHook) ID() string           { return "qos" }
func (h *qosHook) Provides(b byte) bool { return b == mqtt.OnSubscribe }
func (h *qosHook) OnSubscribe(_ *mqtt.Client, pk packets.Packet) packets.Packet {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.qos == nil {
		h.qos = map[string]byte{}
	}
	for _, f := range pk.Filters {
		h.qos[f.Filter] = f.Qos
	}
	return pk
}

func (h *qosHook) got() map[string]byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.qos)
}
