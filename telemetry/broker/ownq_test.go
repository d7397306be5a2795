package broker_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/broker"
)

// A flood the daemon's own connection cannot keep up with costs the
// broker at most the own connection's bound (MaxOwnQueueBytes), not
// mochi's 1,024 messages of up to the packet limit plus the client queue
// bound: while the connection does not read, the live heap grows by
// little more than that bound, and every message is either delivered or
// shed and counted (at QoS 1 too: a shed message leaves mochi's messages
// in flight, so those after it still flow). A short message (an e-stop)
// still gets through the flood of large ones.
func TestOwnConnectionQueueIsBoundedInBytes(t *testing.T) {
	for _, qos := range []byte{0, 1} {
		t.Run(fmt.Sprintf("qos%d", qos), func(t *testing.T) { floodOwn(t, qos) })
	}
}

func floodOwn(t *testing.T, qos byte) {
	const n, size = 600, 64 << 10 // 38 MiB
	secret := broker.NewSecret()
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", MaxPacketBytes: 256 << 10,
		Identity: &broker.Identity{IDs: []string{"botd-r1"}, Secret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var got, small atomic.Int64
	release := make(chan struct{})
	own := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("botd-r1").SetUsername("botd-r1").SetPassword(secret).
		SetAutoReconnect(false).SetOrderMatters(true))
	if tok := own.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("own connection: %v", tok.Error())
	}
	defer own.Disconnect(0)
	// The handler holds paho's reader back until released: the
	// connection stops reading after its first message.
	if tok := own.Subscribe("botd/v1/r1/cmd", 1, func(_ paho.Client, m paho.Message) {
		<-release
		if len(m.Payload()) < 100 {
			small.Add(1)
		}
		got.Add(1)
	}); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("flood").SetAutoReconnect(false))
	if tok := pub.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("publisher: %v", tok.Error())
	}
	defer pub.Disconnect(0)

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	payload := bytes.Repeat([]byte("c"), size)
	for i := range n {
		if tok := pub.Publish("botd/v1/r1/cmd", qos, false, payload); !tok.WaitTimeout(5 * time.Second) {
			t.Errorf("publish %d timed out: the broker holds the publisher back", i)
			break
		}
		if i == n/2 { // an e-stop amid the flood
			pub.Publish("botd/v1/r1/cmd", qos, false, `{"op":"estop"}`).WaitTimeout(mqtttest.WaitLong)
		}
	}
	// Everything offered is written to the socket, queued within the bound
	// or shed (without the bound, mochi keeps what does not fit in its
	// queue: hundreds of messages). Its writer may still hold a message
	// or two on a slow machine (under emulation): what it holds must fit
	// in the bound, not be nothing.
	held := func() int { return b.PendingWritesOf("botd-r1") }
	within := func() bool { return held()*size <= b.MaxOwnQueueBytes() }
	for deadline := time.Now().Add(mqtttest.WaitLong); !within() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if p := held(); !within() || b.OwnShed() == 0 {
		t.Errorf("mochi holds %d messages (%d bytes) for the own connection, over its bound %d; %d shed", p, p*size, b.MaxOwnQueueBytes(), b.OwnShed())
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	grew := int64(ms.HeapAlloc) - int64(base)
	t.Logf("own bound %d bytes: %d bytes queued, %d messages shed, live heap %+d KiB", b.MaxOwnQueueBytes(), b.QueuedBytes(), b.OwnShed(), grew>>10)
	if q := b.QueuedBytes(); q > int64(b.MaxOwnQueueBytes())+int64(b.MaxOwnQueueBytes())/4 {
		t.Errorf("%d bytes queued for the own connection, over its bound %d", q, b.MaxOwnQueueBytes())
	}
	// The bound (and the append slack of its buffers), the few messages
	// in the hands of mochi (and its pooled buffers), the publisher and
	// the reader: 16 MiB is far above them (2 to 12 MiB measured) and far
	// below the 38 MiB offered.
	if limit := int64(16 << 20); grew > limit {
		t.Errorf("live heap grew by %d MiB while the own connection did not read, over %d MiB", grew>>20, limit>>20)
	}
	if t.Failed() {
		close(release)
		return
	}
	close(release)
	mqtttest.Eventually(t, "every message delivered or shed", func() bool { return got.Load()+b.OwnShed() == n+1 })
	if small.Load() != 1 {
		t.Errorf("the e-stop amid the flood was shed")
	}
	// The connection still gets messages (at QoS 1: its send quota and
	// packet ids were given back for those shed).
	before := got.Load()
	for range 3 {
		pub.Publish("botd/v1/r1/cmd", qos, false, "after").WaitTimeout(mqtttest.WaitLong)
	}
	mqtttest.Eventually(t, "messages after the flood delivered", func() bool { return got.Load() == before+3 })
	if !own.IsConnectionOpen() {
		t.Fatal("the own connection was let go")
	}
}
