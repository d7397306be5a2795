package broker_test

import (
	"bytes"
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/broker"
)

// holdWriter holds mochi's writer for one client at its first message,
// as a busy machine does when the writers fall behind the fan-out.
type holdWriter struct {
	mqtt.HookBase
	id      string
	release chan struct{}
}

func (h *holdWriter) ID() string           { return "hold-writer" }
func (h *holdWriter) Provides(b byte) bool { return b == mqtt.OnPacketEncode }
func (h *holdWriter) OnPacketEncode(cl *mqtt.Client, pk packets.Packet) packets.Packet {
	if cl.ID == h.id && pk.FixedHeader.Type == packets.Publish {
		<-h.release
	}
	return pk
}

// A subscriber whose writer falls behind (here: held) is disconnected
// once mochi's queue for it holds more than its bound, not after 1,024
// messages of any size: the live heap grows by about the bound, not by
// the 19 MiB offered; a subscriber that reads gets every message.
func TestMochiQueueIsBoundedInBytes(t *testing.T) {
	const n, size = 300, 64 << 10
	hold := &holdWriter{id: "behind", release: make(chan struct{})}
	defer close(hold.release)
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", MaxPacketBytes: 256 << 10, MaxQueueBytes: 1 << 20,
		Hooks: []mqtt.Hook{hold}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var got atomic.Int64
	clients := map[string]paho.MessageHandler{"behind": func(paho.Client, paho.Message) {}, "reader": func(paho.Client, paho.Message) { got.Add(1) }}
	for id, h := range clients {
		c := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID(id).SetAutoReconnect(false))
		if tok := c.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
			t.Fatalf("%s: %v", id, tok.Error())
		}
		defer c.Disconnect(0)
		if tok := c.Subscribe("x", 0, h); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
			t.Fatalf("subscribe: %v", tok.Error())
		}
	}
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("pub").SetAutoReconnect(false))
	if tok := pub.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("publisher: %v", tok.Error())
	}
	defer pub.Disconnect(0)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	payload := bytes.Repeat([]byte("q"), size)
	within := func(cond func() bool) bool {
		for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				return false
			}
		}
		return true
	}
	for i := range n {
		pub.Publish("x", 1, false, payload).WaitTimeout(mqtttest.WaitLong)
		// Paced by the reader: at most 8 messages (512 KiB) ahead of it,
		// half its bound.
		if i%4 == 3 && !within(func() bool { return got.Load() >= int64(i-4) }) {
			t.Errorf("the reader got %d of %d messages: the broker stalled", got.Load(), i+1)
			break
		}
	}
	if !t.Failed() && !within(func() bool { return got.Load() == n }) {
		t.Errorf("the reader got %d of %d messages", got.Load(), n)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	grew := int64(ms.HeapAlloc) - int64(base)
	t.Logf("bound %d bytes: slow consumers let go %d, %d bytes queued, live heap %+d KiB", b.MaxQueueBytes(), b.SlowConsumers(), b.QueuedBytes(), grew>>10)
	if b.SlowConsumers() != 1 {
		t.Errorf("%d clients let go, want the one behind", b.SlowConsumers())
	}
	if limit := int64(8 << 20); grew > limit {
		t.Errorf("live heap grew by %d MiB while a writer was behind, over %d MiB", grew>>20, limit>>20)
	}
}

// The same for the daemon's own connection, which is never let go:
// while its writer is behind, what would take mochi's queue for it past
// MaxOwnQueueBytes is shed (acknowledged to the sender, delivered to
// nobody) and counted; every message is delivered or shed.
func TestOwnMochiQueueIsBoundedInBytes(t *testing.T) {
	const n, size = 300, 64 << 10
	hold := &holdWriter{id: "botd-r1", release: make(chan struct{})}
	secret := broker.NewSecret()
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", MaxPacketBytes: 256 << 10,
		Identity: &broker.Identity{IDs: []string{"botd-r1"}, Secret: secret}, Hooks: []mqtt.Hook{hold}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var got atomic.Int64
	own := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("botd-r1").SetUsername("botd-r1").SetPassword(secret).
		SetAutoReconnect(false))
	if tok := own.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("own connection: %v", tok.Error())
	}
	defer own.Disconnect(0)
	if tok := own.Subscribe("botd/v1/r1/cmd", 1, func(paho.Client, paho.Message) { got.Add(1) }); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("pub").SetAutoReconnect(false))
	if tok := pub.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("publisher: %v", tok.Error())
	}
	defer pub.Disconnect(0)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	payload := bytes.Repeat([]byte("q"), size)
	for i := range n {
		if tok := pub.Publish("botd/v1/r1/cmd", 1, false, payload); !tok.WaitTimeout(5 * time.Second) {
			t.Errorf("publish %d timed out", i)
			break
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	grew := int64(ms.HeapAlloc) - int64(base)
	t.Logf("own bound %d bytes: %d shed, mochi holds %d messages, live heap %+d KiB", b.MaxOwnQueueBytes(), b.OwnShed(), b.PendingWritesOf("botd-r1"), grew>>10)
	if limit := int64(8 << 20); grew > limit {
		t.Errorf("live heap grew by %d MiB while the own connection's writer was behind, over %d MiB", grew>>20, limit>>20)
	}
	close(hold.release)
	mqtttest.Eventually(t, "every message delivered or shed", func() bool { return got.Load()+b.OwnShed() == n })
	if !own.IsConnectionOpen() {
		t.Fatal("the own connection was let go")
	}
}

// A retained message shed on its way to the daemon's connection is still
// the topic's retained message.
func TestOwnShedKeepsRetained(t *testing.T) {
	hold := &holdWriter{id: "botd-r1", release: make(chan struct{})}
	defer close(hold.release)
	secret := broker.NewSecret()
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", MaxPacketBytes: 256 << 10,
		Identity: &broker.Identity{IDs: []string{"botd-r1"}, Secret: secret}, Hooks: []mqtt.Hook{hold}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	own := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("botd-r1").SetUsername("botd-r1").SetPassword(secret).
		SetAutoReconnect(false))
	if tok := own.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("own connection: %v", tok.Error())
	}
	defer own.Disconnect(0)
	if tok := own.Subscribe("gcs/#", 1, func(paho.Client, paho.Message) {}); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("subscribe: %v", tok.Error())
	}
	pub := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("pub").SetAutoReconnect(false))
	if tok := pub.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("publisher: %v", tok.Error())
	}
	defer pub.Disconnect(0)
	payload := bytes.Repeat([]byte("q"), 64<<10)
	for range 40 { // 2.5 MiB behind a held writer
		pub.Publish("gcs/flood", 1, false, payload).WaitTimeout(mqtttest.WaitLong)
	}
	shed := b.OwnShed()
	pub.Publish("gcs/state", 1, true, payload).WaitTimeout(mqtttest.WaitLong)
	if b.OwnShed() != shed+1 {
		t.Fatalf("the retained message was not shed (%d shed before, %d after)", shed, b.OwnShed())
	}
	got := make(chan int, 1)
	late := paho.NewClient(paho.NewClientOptions().AddBroker(b.URL()).SetClientID("late").SetAutoReconnect(false))
	if tok := late.Connect(); !tok.WaitTimeout(mqtttest.WaitLong) || tok.Error() != nil {
		t.Fatalf("late: %v", tok.Error())
	}
	defer late.Disconnect(0)
	late.Subscribe("gcs/state", 1, func(_ paho.Client, m paho.Message) { got <- len(m.Payload()) })
	select {
	case n := <-got:
		if n != len(payload) {
			t.Fatalf("retained message of %d bytes, want %d", n, len(payload))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the shed message was not retained")
	}
}
