package telemetry

import (
	"encoding/json"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
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

// discardConn takes every publish at once and keeps nothing: the
// benchmarks below measure the daemon's side of a publish.
type discardConn struct {
	transport.Conn
	published int
}

type doneDelivery struct{}

var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (doneDelivery) Done() <-chan struct{} { return closedDone }
func (doneDelivery) Acked() bool           { return true }

func (c *discardConn) Publish(string, byte, bool, []byte) error { c.published++; return nil }
func (c *discardConn) PublishAsync(string, byte, bool, []byte) (transport.Delivery, error) {
	c.published++
	return doneDelivery{}, nil
}

// benchDaemon is a daemon on a fake source (not running: the benchmark
// calls its publish steps itself).
func benchDaemon(b *testing.B) (*Daemon, *fakeSource) {
	src := newFakeSource(30)
	d, err := NewDaemon(DaemonConfig{Robot: "rover-0001", StateDir: b.TempDir(), Source: src, Commands: &fakeHandler{}})
	if err != nil {
		b.Fatal(err)
	}
	return d, src
}

// roverBlackboard is a simulated rover's blackboard: a pose, an IMU,
// odometry, ranges and a battery, moving by step each call (a few keys
// past their deadband, most not).
func roverBlackboard(i int) []protocol.BlackboardValue {
	f := float64(i)
	return []protocol.BlackboardValue{
		{Key: "battery.percent", Value: 87 - f*0.001, AgeMs: 12},
		{Key: "battery.voltage", Value: 12.1, AgeMs: 12},
		{Key: "imu.pitch", Value: 0.001, AgeMs: 3},
		{Key: "imu.roll", Value: 0.002, AgeMs: 3},
		{Key: "imu.yaw", Value: 1.2 + f*0.03, AgeMs: 3},
		{Key: "imu.yaw_rate", Value: 0.3, AgeMs: 3},
		{Key: "mission.leg", Value: "north", AgeMs: 400},
		{Key: "odometry.distance", Value: 100 + f*0.05, AgeMs: 8},
		{Key: "odometry.speed", Value: 0.5, AgeMs: 8},
		{Key: "pose.heading", Value: 1.2 + f*0.03, AgeMs: 8},
		{Key: "pose.x", Value: 3 + f*0.04, AgeMs: 8},
		{Key: "pose.y", Value: 4 + f*0.01, AgeMs: 8},
		{Key: "range.front", Value: 1.5, AgeMs: 40},
		{Key: "range.left", Value: 2.5, AgeMs: 40},
		{Key: "range.right", Value: 0.8, AgeMs: 40},
		{Key: "target.reached", Value: false, AgeMs: 400},
	}
}

// The publish loop sends a blackboard delta up to BlackboardHz times a
// second: the values past their deadband since the last one.
func BenchmarkBlackboardDelta(b *testing.B) {
	d, src := benchDaemon(b)
	conn := &discardConn{}
	p := publisher{bbWasEmpty: true, bbFull: true}
	src.setBB(roverBlackboard(0)...)
	d.publishBlackboard(conn, &p)
	bbs := make([][]protocol.BlackboardValue, 64)
	for i := range bbs {
		bbs[i] = roverBlackboard(i + 1)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		src.setBB(bbs[i%len(bbs)]...)
		i++
		d.publishBlackboard(conn, &p)
	}
	if conn.published < 2 {
		b.Fatalf("%d blackboard messages published", conn.published)
	}
}
