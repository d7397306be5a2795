package broker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/botd-project/botd/telemetry/broker"
)

// A packet limit past MQTT's largest packet is refused, never wrapped
// into mochi's uint32 (5 GiB was 1 GiB) or a 32-bit int.
func TestMaxPacketBytesBounded(t *testing.T) {
	for _, n := range []int{broker.MaxPacketBytes + 1, 1<<31 - 1} {
		if b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", MaxPacketBytes: n}); err == nil {
			b.Close()
			t.Errorf("max packet bytes %d accepted", n)
		} else if !strings.Contains(err.Error(), "at most 268435460") {
			t.Errorf("max packet bytes %d: %v", n, err)
		}
	}
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0", MaxPacketBytes: broker.MaxPacketBytes})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
}
