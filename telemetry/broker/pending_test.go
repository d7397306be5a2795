package broker

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/internal/testutil"
)

// A client that never reads makes its outbound queue grow: pendingWrites
// sees it (so a mochi upgrade that moves the count fails here), and Close
// still returns once DrainTimeout has passed.
func TestPendingWrites(t *testing.T) {
	b, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", DrainTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	raw, err := net.Dial("tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// CONNECT (MQTT 3.1.1, clean session, client id "stuck"), then
	// SUBSCRIBE to "t" at QoS 0; the connection is never read again.
	raw.Write([]byte("\x10\x11\x00\x04MQTT\x04\x02\x00\x3c\x00\x05stuck"))
	raw.Write([]byte("\x82\x06\x00\x01\x00\x01t\x00"))
	waitFor(t, "the stuck client's subscription", func() bool {
		cl, ok := b.srv.Clients.Get("stuck")
		return ok && cl.State.Subscriptions.Len() == 1
	})

	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("pub"))
	if tok := pub.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publisher: %v", tok.Error())
	}
	defer pub.Disconnect(0)
	payload := bytes.Repeat([]byte("x"), 64<<10)
	cl, _ := b.srv.Clients.Get("stuck")
	for i := 0; i < 400 && pendingWrites(cl) == 0; i++ {
		pub.Publish("t", 0, false, payload).WaitTimeout(10 * time.Second)
	}
	if pendingWrites(cl) == 0 && b.QueuedBytes() == 0 {
		t.Fatal("pendingWrites stayed 0 while the client's socket was full")
	}
	done := make(chan struct{})
	go func() { b.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return although DrainTimeout passed")
	}
}

// Messages queued for a subscriber when the broker closes still reach it:
// the subscriber is stalled (so the broker's queue for it fills), Close
// begins, then the subscriber reads again and gets every message.
func TestCloseDeliversQueued(t *testing.T) {
	// The queue bound (sendq.go) above the 12.8 MB the test queues.
	b, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", DrainTimeout: 20 * time.Second, MaxQueueBytes: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const n = 200
	got := make(chan struct{}, n)
	stall := make(chan struct{})
	o := paho.NewClientOptions().AddBroker(b.URL()).SetClientID("sub").SetOrderMatters(true)
	sub := paho.NewClient(o)
	if tok := sub.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscriber: %v", tok.Error())
	}
	defer sub.Disconnect(0)
	if tok := sub.Subscribe("t", 0, func(paho.Client, paho.Message) { <-stall; got <- struct{}{} }); !tok.WaitTimeout(10 * time.Second) {
		t.Fatal("subscribe timed out")
	}
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("pub"))
	if tok := pub.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publisher: %v", tok.Error())
	}
	payload := bytes.Repeat([]byte("y"), 64<<10)
	for range n {
		// QoS 1: acknowledged once the broker has queued it for "sub".
		pub.Publish("t", 1, false, payload).WaitTimeout(10 * time.Second)
	}
	pub.Disconnect(0)
	cl, _ := b.srv.Clients.Get("sub")
	if pendingWrites(cl) == 0 && b.QueuedBytes() == 0 {
		t.Fatal("nothing queued for the stalled subscriber: the test proves nothing")
	}
	closed := make(chan struct{})
	go func() { b.Close(); close(closed) }()
	waitFor(t, "the listener closed", func() bool {
		c, err := net.DialTimeout("tcp", b.Addr(), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	close(stall)
	for i := range n {
		select {
		case <-got:
		case <-time.After(20 * time.Second):
			t.Fatalf("the subscriber got %d of %d messages queued before Close", i, n)
		}
	}
	<-closed
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 20*time.Second, what, cond)
}

// A packet that announces more than MaxPacketBytes is refused at its fixed
// header: the broker closes the connection without waiting for (or
// buffering) the body.
func TestOversizedPacketRefusedAtHeader(t *testing.T) {
	b, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", MaxPacketBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	raw, err := net.Dial("tcp", b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.Write([]byte("\x10\x10\x00\x04MQTT\x04\x02\x00\x3c\x00\x04huge"))
	// PUBLISH announcing 200 MB (remaining length 200,000,000 as a varint);
	// no body follows.
	raw.Write([]byte{0x30, 0x80, 0x84, 0xaf, 0x5f})
	raw.SetReadDeadline(time.Now().Add(20 * time.Second))
	buf := make([]byte, 64)
	for {
		if _, err := raw.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the broker kept the connection open, waiting for a 200 MB body")
			}
			return // closed by the broker
		}
	}
}
