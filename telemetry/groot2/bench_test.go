package groot2

import (
	"fmt"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"

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

// BenchmarkRecordedTick ticks the reference tree with the daemon's
// recorder as its observer, writing to a file: the tick path allocates
// nothing, the disk is written by the run's own goroutine.
func BenchmarkRecordedTick(b *testing.B) {
	src := referenceSource(b)
	rec, err := NewRecorder(RecorderConfig{Dir: b.TempDir(), MaxFileBytes: 1 << 30, MaxTotalBytes: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	obs, end := rec.StartRun(src.m, nil, start)
	if end == nil {
		b.Fatal("not recorded")
	}
	a := bt.NewAgent(src.m.Tree, 0, start.UnixNano())
	a.SetObserver(obs)
	now := start.UnixNano()
	b.ReportAllocs()
	for b.Loop() {
		now += 10e6
		a.Tick(now)
	}
	b.StopTimer()
	end(protocol.RunAborted)
	rec.Wait()
	fis, err := rec.Recordings()
	if err != nil || len(fis) != 1 {
		b.Fatalf("recordings %v %v", fis, err)
	}
	b.ReportMetric(float64(fis[0].Size())/float64(b.N), "file-bytes/tick")
}
