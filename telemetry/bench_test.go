package telemetry

import (
	"encoding/json"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

// The daemon encodes a status delta up to TelemetryHz times a second.
func BenchmarkStatusDeltaEncode(b *testing.B) {
	m := protocol.StatusMsg{Header: protocol.Header{Robot: "rover-1", Seq: 812, TS: "2026-11-21T12:00:00.120Z"}, Mission: "2f6b", Tick: 1234}
	for i := range 32 {
		m.Changes = append(m.Changes, protocol.NodeStatus{Node: int32(i * 3), Status: "ISFRE"[i%5]})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStatusDecode(b *testing.B) {
	m := protocol.StatusMsg{Header: protocol.Header{Robot: "rover-1", Seq: 812, TS: "2026-11-21T12:00:00.120Z"}, Mission: "2f6b", Tick: 1234}
	for i := range 32 {
		m.Changes = append(m.Changes, protocol.NodeStatus{Node: int32(i * 3), Status: "ISFRE"[i%5]})
	}
	p, _ := json.Marshal(m)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := protocol.DecodeStatus(p); err != nil {
			b.Fatal(err)
		}
	}
}

// An event is durable before the sink's queue lets go of it: two fsyncs
// (the file and its directory) per event.
func BenchmarkOutboxAdd(b *testing.B) {
	o, err := OpenOutbox(OutboxConfig{Dir: b.TempDir(), MaxEvents: 1 << 30, MaxBytes: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"robot":"rover-1","seq":1,"ts":"2026-11-21T12:00:00.120Z","id":"5b1d8e4e-8c1f-4a51-9a0e-2f6b1c2d3e4f","time":"2026-11-21T12:00:00.12Z","kind":"mission.started","level":"INFO","message":"patrol-yard started"}`)
	b.ReportAllocs()
	var seq uint64
	for b.Loop() {
		seq++
		if err := o.Add(seq, payload); err != nil {
			b.Fatal(err)
		}
	}
}
