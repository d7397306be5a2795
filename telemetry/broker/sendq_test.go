package broker_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/broker"
)

// rawSubscriber connects over plain TCP, subscribes to # at QoS 1 and
// never reads a byte (not even the CONNACK), with a small receive buffer
// so the kernel holds little for it.
func rawSubscriber(t *testing.T, addr, id string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.(*net.TCPConn).SetReadBuffer(4096)
	t.Cleanup(func() { c.Close() })
	str := func(s string) []byte { return append([]byte{byte(len(s) >> 8), byte(len(s))}, s...) }
	connect := append(append(str("MQTT"), 4, 0x02, 0, 60), str(id)...)
	subscribe := append(append([]byte{0, 1}, str("#")...), 1)
	for _, pk := range [][]byte{append([]byte{0x10, byte(len(connect))}, connect...), append([]byte{0x82, byte(len(subscribe))}, subscribe...)} {
		if _, err := c.Write(pk); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// Twenty subscribers to # that never read, and a flood of 2,000 16 KiB
// publishes (paced by a subscriber that reads): the bytes the broker holds for them stay under twenty times
// the per-client bound from the configuration, the heap grows by no more
// than that (plus what the flood itself needs), every stalled subscriber
// is disconnected, and a subscriber that reads gets every message.
//
// Twice: with the bound per client binding (1 MiB each, 20 MiB in all),
// and with the bound for all the clients binding (4 MiB each, 6 MiB in
// all: the client with most waiting goes first).
func TestStalledSubscribersAreBounded(t *testing.T) {
	for _, cfg := range []broker.Config{
		{MaxQueueBytes: 1 << 20},
		{MaxQueueBytes: 4 << 20, MaxTotalQueueBytes: 6 << 20},
	} {
		t.Run(fmt.Sprintf("%d-%d", cfg.MaxQueueBytes, cfg.MaxTotalQueueBytes), func(t *testing.T) { floodStalled(t, cfg) })
	}
}

func floodStalled(t *testing.T, cfg broker.Config) {
	const stalled, n, size = 20, 2000, 16 << 10
	cfg.Addr, cfg.MaxPacketBytes = "127.0.0.1:0", 256<<10
	b, err := broker.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	perClient := int64(b.MaxQueueBytes())
	if perClient != int64(cfg.MaxQueueBytes) {
		t.Fatalf("bound %d, want the configured %d", perClient, cfg.MaxQueueBytes)
	}
	// What may wait, to be sent and (separately) to be acknowledged.
	bound := min(stalled*perClient, b.MaxTotalQueueBytes())
	for i := range stalled {
		rawSubscriber(t, b.Addr(), fmt.Sprintf("stalled-%d", i))
	}
	var got atomic.Int64
	reader := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("reader").SetAutoReconnect(false))
	if tok := reader.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("reader: %v", tok.Error())
	}
	defer reader.Disconnect(0)
	if tok := reader.Subscribe("flood/#", 1, func(paho.Client, paho.Message) { got.Add(1) }); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	mqtttest.Eventually(t, "every client connected", func() bool { return len(b.Clients()) == stalled+1 })

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peakQueued atomic.Int64
	var peakHeap atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			// What is live, not what the collector has yet to free.
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peakHeap.Load() {
				peakHeap.Store(ms.HeapInuse)
			}
			if q := b.QueuedBytes() + b.InflightBytes(); q > peakQueued.Load() {
				peakQueued.Store(q)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("flood").SetAutoReconnect(false))
	if tok := pub.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("publisher: %v", tok.Error())
	}
	defer pub.Disconnect(0)
	payload := bytes.Repeat([]byte("x"), size)
	// As fast as the reader reads: never more than 40 messages (640 KiB)
	// ahead of it. The stalled subscribers are offered all 32 MB.
	for i := range n {
		if tok := pub.Publish(fmt.Sprintf("flood/%d", i%50), 1, false, payload); !tok.WaitTimeout(mqtttest.WaitLong) {
			t.Fatal("publish timed out")
		}
		if i%20 == 19 {
			mqtttest.Eventually(t, "the reader keeping up", func() bool { return got.Load() >= int64(i-20) })
		}
	}
	mqtttest.Eventually(t, "every stalled subscriber disconnected", func() bool { return b.SlowConsumers() == stalled })
	mqtttest.Eventually(t, "the reader got every message", func() bool { return got.Load() == n })
	close(stop)
	<-sampled
	t.Logf("peak queued and in flight %d bytes (bound %d for each), live heap +%d MiB", peakQueued.Load(), bound, (peakHeap.Load()-base)>>20)
	// The queues and the messages in flight, each within the bound (plus
	// the reader's few messages, and the messages that pass the bound
	// together before one client is let go: 2 MiB).
	if q := peakQueued.Load(); q > 2*bound+2<<20 {
		t.Errorf("%d bytes queued and in flight at the peak, over 2 × %d", q, bound)
	}
	// The same on the live heap, plus the flood's own working set (the
	// publisher's and the reader's messages in flight: 32 MiB is far above
	// it).
	if grew := int64(peakHeap.Load()) - int64(base); grew > 2*bound+32<<20 {
		t.Errorf("live heap grew by %d MiB during the flood, over %d MiB", grew>>20, (2*bound+32<<20)>>20)
	}
	mqtttest.Eventually(t, "nothing queued or in flight", func() bool { return b.QueuedBytes() == 0 && b.InflightBytes() == 0 })
}

// The daemon's own connection (its client id, its secret) is never let go
// as a slow consumer: while it does not read, a flood it cannot keep up
// with waits for it, within the bound (mochi drops what it cannot queue,
// as it did for a full socket); once it reads again it is still
// connected. A stranger that
// does not read meanwhile is let go.
func TestOwnConnectionIsNeverLetGo(t *testing.T) {
	secret := broker.NewSecret()
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", MaxPacketBytes: 256 << 10, MaxQueueBytes: 1 << 20,
		Identity: &broker.Identity{IDs: []string{"botd-r1"}, Secret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	rawSubscriber(t, b.Addr(), "stranger")
	var lost, got atomic.Int64
	release := make(chan struct{})
	own := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("botd-r1").SetUsername("botd-r1").SetPassword(secret).
		SetAutoReconnect(false).SetOrderMatters(true).SetConnectionLostHandler(func(paho.Client, error) { lost.Add(1) }))
	if tok := own.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("own connection: %v", tok.Error())
	}
	defer own.Disconnect(0)
	// The handler holds paho's reader back until released: the
	// connection stops reading.
	if tok := own.Subscribe("botd/v1/r1/cmd", 1, func(paho.Client, paho.Message) { <-release; got.Add(1) }); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("flood").SetAutoReconnect(false))
	if tok := pub.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("publisher: %v", tok.Error())
	}
	defer pub.Disconnect(0)
	payload := bytes.Repeat([]byte("c"), 16<<10)
	var last paho.Token
	const n = 2000
	for range n { // 32 MB, 32 times the bound
		last = pub.Publish("botd/v1/r1/cmd", 0, false, payload)
	}
	if !last.WaitTimeout(mqtttest.WaitLong) {
		t.Fatal("publish timed out")
	}
	mqtttest.Eventually(t, "the stranger let go", func() bool { return b.SlowConsumers() == 1 })
	mqtttest.Eventually(t, "the own connection's queue full", func() bool { return b.QueuedBytes() > int64(b.MaxQueueBytes())/2 })
	if q := b.QueuedBytes(); q > int64(b.MaxQueueBytes()) {
		t.Errorf("%d bytes queued for the own connection, over its bound %d", q, b.MaxQueueBytes())
	}
	close(release)
	mqtttest.Eventually(t, "the own connection reading again", func() bool { return got.Load() > 0 && b.QueuedBytes() == 0 })
	if lost.Load() != 0 || !own.IsConnectionOpen() || b.SlowConsumers() != 1 {
		t.Fatalf("the own connection was let go (lost %d, slow consumers %d)", lost.Load(), b.SlowConsumers())
	}
	mqtttest.Eventually(t, "the own connection done reading", func() bool { return got.Load() > 0 && b.QueuedBytes() == 0 })
	t.Logf("the own connection got %d of %d messages; mochi dropped the rest while it did not read", got.Load(), n)
}
