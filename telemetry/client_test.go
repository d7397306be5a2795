package telemetry

import (
	"testing"
	"time"
)

// The paho pitfall the outbox relies on avoiding: a QoS 1 publish still
// unacknowledged when the connection dies has its token completed without
// error on the reconnect (paho resends from its store and completes the
// old token). Acked must say no; only an acknowledgement on the same
// connection counts.
func TestDeliveryNotAckedAcrossReconnect(t *testing.T) {
	hole := &blackhole{topic: "t/events"}
	hole.on.Store(true)
	b := startTestBroker(t, "", hole)
	gate := &netGate{}
	o := testConn(b.URL())
	o.ClientID, o.wrap = "acks", gate.wrap
	c, err := Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	eventually(t, "up", c.IsUp)

	lost, err := c.PublishAsync("t/events", 1, false, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the broker has it", func() bool { return hole.swallowed.Load() == 1 })
	hole.on.Store(false)
	gate.sever()
	select {
	case <-lost.Done():
	case <-time.After(waitLong):
		t.Fatal("token never completed")
	}
	if lost.Acked() {
		t.Fatal("a token completed by the reconnect counted as acknowledged")
	}
	eventually(t, "up again", c.IsUp)

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
	b := startTestBroker(t, "")
	addr := b.Addr()
	got := make(chan string, 10)
	o := testConn(b.URL())
	o.ClientID = "resub"
	o.Subscriptions = []Subscription{{Filter: "a/+", QoS: 1, Handler: func(topic string, _ []byte) {
		select {
		case got <- topic:
		default:
		}
	}}}
	c, err := Dial(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	eventually(t, "up", c.IsUp)
	b.Close()
	eventually(t, "down", func() bool { return !c.IsUp() })
	b2 := startTestBroker(t, addr)
	eventually(t, "up again", c.IsUp)
	pub := newPublisher(t, b2.URL())
	if err := pub.Publish("a/b", 1, false, []byte("x")); err != nil {
		t.Fatal(err)
	}
	select {
	case topic := <-got:
		if topic != "a/b" {
			t.Errorf("topic %s", topic)
		}
	case <-time.After(waitLong):
		t.Fatal("no message after the reconnect")
	}
	if err := c.Publish("a/c", 1, false, nil); err != nil {
		t.Error(err)
	}
	_ = c.Close()
	if err := c.Publish("a/c", 1, false, nil); err != ErrClosed {
		t.Errorf("publish after close: %v", err)
	}
}
