package ground_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

func TestMain(m *testing.M) { mqtttest.Main(m, "botd/telemetry/ground.") }

func newClient(t *testing.T, url string) *ground.Client {
	t.Helper()
	g, err := ground.New(ground.Config{GCS: "ops", Conn: mqtttest.Options(url), ResendEvery: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), mqtttest.WaitLong)
	defer cancel()
	if err := g.WaitUp(ctx); err != nil {
		t.Fatal(err)
	}
	return g
}

// Send to a robot that never answers ends with ErrNoReply at the
// deadline, having sent the command (resent, with one id) meanwhile.
func TestSendNoReply(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	rec := mqtttest.NewRecorder(t, b.URL(), "botd/v1/nobody/cmd")
	g := newClient(t, b.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := g.Send(ctx, "nobody", protocol.Command{Op: protocol.OpEStop})
	if !errors.Is(err, ground.ErrNoReply) {
		t.Errorf("err %v, want ErrNoReply", err)
	}
	mqtttest.Eventually(t, "the command on the robot's topic", func() bool { return len(rec.On("botd/v1/nobody/cmd")) > 0 })
}

// Robots lists what the retained connection and state topics say, and
// refuses to take a malformed state for a robot's.
func TestRobotsFromRetainedTopics(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	pub := mqtttest.NewPublisher(t, b.URL())
	pub.Publish("botd/v1/rover-7/connection", 1, true, []byte(`{"robot":"rover-7","seq":1,"ts":"2026-11-24T00:00:00.000Z","state":"ONLINE"}`))
	pub.Publish("botd/v1/rover-7/state", 1, true, []byte(`{"robot":"rover-7","seq":1,"ts":"2026-11-24T00:00:00.000Z","mode":"IDLE","requested_mode":"IDLE","mission":null,"tick":{},"failsafe":{},"estop":false,"link":{},"errors":[]}`))
	pub.Publish("botd/v1/rover-8/state", 1, true, []byte(`not json`))
	g := newClient(t, b.URL())
	mqtttest.Eventually(t, "rover-7 listed with its state", func() bool {
		for _, r := range g.Robots() {
			if r.ID == "rover-7" && r.Connection == protocol.ConnOnline && r.State != nil && r.State.Mode == protocol.ModeIdle {
				return true
			}
		}
		return false
	})
	for _, r := range g.Robots() {
		if r.ID == "rover-8" && r.State != nil {
			t.Errorf("a malformed state was taken: %+v", r.State)
		}
	}
}
