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
func TestStalledSubscribersAreBounded(t *testing.T) {
	const stalled, n, size = 20, 2000, 16 << 10
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", MaxPacketBytes: 256 << 10, MaxQueueBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	bound := int64(b.MaxQueueBytes())
	if bound != 1<<20 {
		t.Fatalf("bound %d, want the configured 1 MiB", bound)
	}
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
	t.Logf("peak queued and in flight %d bytes (bound %d per client for each), live heap +%d MiB", peakQueued.Load(), bound, (peakHeap.Load()-base)>>20)
	// Each stalled subscriber: its queue and its messages in flight, each
	// within the bound (plus the reader's, a few messages).
	if q := peakQueued.Load(); q > 2*stalled*bound+2<<20 {
		t.Errorf("%d bytes queued and in flight at the peak, over 2 × %d subscribers × %d", q, stalled, bound)
	}
	// The same on the live heap, plus the flood's own working set (the
	// publisher's and the reader's messages in flight: 32 MiB is far above
	// it).
	if grew := int64(peakHeap.Load()) - int64(base); grew > 2*stalled*bound+32<<20 {
		t.Errorf("live heap grew by %d MiB during the flood, over %d MiB", grew>>20, (2*stalled*bound+32<<20)>>20)
	}
	mqtttest.Eventually(t, "nothing queued or in flight", func() bool { return b.QueuedBytes() == 0 && b.InflightBytes() == 0 })
}
