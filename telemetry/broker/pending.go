package broker

import (
	"reflect"
	"sync/atomic"
	"unsafe"

	mqtt "github.com/mochi-mqtt/server/v2"
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
