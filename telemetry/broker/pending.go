package broker

import (
	"reflect"
	"sync/atomic"
	"unsafe"

	mqtt "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
)

// pendingWrites is how many packets wait in cl's outbound queue. mochi
// v2.7.9 keeps that count in an unexported field, updated atomically, and
// offers no accessor; this finds the field by reflection and loads it
// atomically, as mochi does. TestPendingWrites fails if a
// mochi upgrade moves it, and then this reports 0 (Close stops waiting,
// as it did before draining existed).
func pendingWrites(cl *mqtt.Client) int {
	f := reflect.ValueOf(cl).Elem().FieldByName("State").FieldByName("outboundQty")
	if !f.IsValid() || f.Kind() != reflect.Int32 || !f.CanAddr() {
		return 0
	}
	return int(atomic.LoadInt32((*int32)(unsafe.Pointer(f.UnsafeAddr()))))
}

// fanoutHook counts the publishes mochi is handing to subscribers. mochi
// acknowledges a QoS 1 publish (PUBACK) before it queues the message for
// the subscribers, so a publisher's acknowledged last message (a
// daemon's OFFLINE) may not be queued yet when Close starts; Close waits
// for this count to reach zero as well as the queues.
type fanoutHook struct {
	mqtt.HookBase
	inbound atomic.Int64
}

func (h *fanoutHook) ID() string { return "botd-fanout" }

func (h *fanoutHook) Provides(b byte) bool { return b == mqtt.OnPublish || b == mqtt.OnPublished }

func (h *fanoutHook) OnPublish(_ *mqtt.Client, pk packets.Packet) (packets.Packet, error) {
	h.inbound.Add(1)
	return pk, nil
}

func (h *fanoutHook) OnPublished(*mqtt.Client, packets.Packet) { h.inbound.Add(-1) }
