package groot2

import (
	"fmt"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

// BenchmarkHandleStatus is one STATUS request on the reference tree (11
// nodes): what a Groot2 poll costs the daemon, off the tick.
func BenchmarkHandleStatus(b *testing.B) {
	src := referenceSource(b)
	s := newTestServer(src)
	copy(src.letters, "RRSSRFRSSSS")
	b.ReportAllocs()
	for b.Loop() {
		handle(s, ReqStatus, 1)
	}
}

// BenchmarkHandleBlackboard is one BLACKBOARD request for the main tree
// with ten values.
func BenchmarkHandleBlackboard(b *testing.B) {
	src := referenceSource(b)
	for i := range 10 {
		src.bb = append(src.bb, protocolValue(i))
	}
	s := newTestServer(src)
	names := []byte("MainTree")
	b.ReportAllocs()
	for b.Loop() {
		handle(s, ReqBlackboard, 1, names)
	}
}

func protocolValue(i int) protocol.BlackboardValue {
	return protocol.BlackboardValue{Key: fmt.Sprintf("key%d", i), Value: float64(i) + 0.5}
}
