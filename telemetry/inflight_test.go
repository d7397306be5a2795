package telemetry

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
	"github.com/botd-project/botd/telemetry/transport"
)

// unackedConn is a connection that is up, writes every QoS 0 message at
// once and never gets the broker's acknowledgement of a QoS 1 one (a
// broker that stalls, or a long round trip): Publish of one waits until
// the test ends.
type unackedConn struct {
	transport.Conn
	mu      sync.Mutex
	topics  []string
	never   chan struct{} // closed at the end of the test
	pending int           // QoS 1 messages handed over, never acknowledged
}

type pendingDelivery struct{ done <-chan struct{} }

func (p pendingDelivery) Done() <-chan struct{} { return p.done }
func (p pendingDelivery) Acked() bool           { return false }

func (c *unackedConn) record(topic string, qos byte) transport.Delivery {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.topics = append(c.topics, topic)
	if qos == 0 {
		return doneDelivery{}
	}
	c.pending++
	return pendingDelivery{c.never}
}

func (c *unackedConn) Publish(topic string, qos byte, _ bool, _ []byte) error {
	<-c.record(topic, qos).Done()
	return nil
}

func (c *unackedConn) PublishAsync(topic string, qos byte, _ bool, _ []byte) (transport.Delivery, error) {
	return c.record(topic, qos), nil
}

func (c *unackedConn) IsUp() bool                   { return true }
func (c *unackedConn) LinkChanged() <-chan struct{} { return c.never }
func (c *unackedConn) Connects() uint64             { return 1 }

func (c *unackedConn) count(topic string) (n, pending int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.topics {
		if t == topic {
			n++
		}
	}
	return n, c.pending
}

// A state (QoS 1) waiting for the broker's acknowledgement does not hold
// the publish loop: status changes keep going out. The loop keeps at most
// maxInflight publishes unacknowledged; past that it waits for the oldest
// for the publish timeout, then counts it as failed.
func TestPublishLoopDoesNotWaitForAcks(t *testing.T) {
	src := newFakeSource(4)
	d, err := NewDaemon(DaemonConfig{Robot: "rover-1", StateDir: t.TempDir(), Source: src, Commands: &fakeHandler{},
		TelemetryHz: 50, Conn: transport.Options{PublishTimeout: 20 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	conn := &unackedConn{never: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.publishLoop(ctx, conn) }()
	t.Cleanup(func() { cancel(); close(conn.never); <-done })

	tp := d.Topics()
	mqtttest.Eventually(t, "the snapshot's state", func() bool { n, _ := conn.count(tp.State()); return n > 0 })
	for i := range 3 {
		before, _ := conn.count(tp.Status())
		src.setStatus(int32(i), 'R')
		mqtttest.Eventually(t, "a status change while the state waits for its acknowledgement",
			func() bool { n, _ := conn.count(tp.Status()); return n > before })
	}
	// States every stateMinGap on change: past maxInflight unacknowledged
	// ones, the oldest are given up and counted.
	for i := 0; d.publishFailures.Load() == 0; i++ {
		src.setMode([]string{protocol.ModeIdle, protocol.ModePaused}[i%2])
		mqtttest.Eventually(t, "a state for the mode", func() bool { n, _ := conn.count(tp.State()); return n > i+1 })
	}
	if _, pending := conn.count(tp.State()); pending <= maxInflight {
		t.Fatalf("a publish was counted failed with %d unacknowledged, want more than %d", pending, maxInflight)
	}
}
