package ground_test

import (
	"sync"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// WatchAll delivers every robot's messages, decoded, to that robot's
// handlers, through one subscription; a robot whose handlers are nil is
// skipped, and ground-station presence is not a robot.
func TestWatchAll(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	g := newClient(t, b.URL())
	var mu sync.Mutex
	conns := map[string]string{}
	errs := 0
	stop, err := g.WatchAll(func(robot string) *ground.RobotHandlers {
		if robot == "skipped" {
			return nil
		}
		return &ground.RobotHandlers{
			Connection: func(m protocol.ConnectionMsg) { mu.Lock(); conns[robot] = m.State; mu.Unlock() },
			Error:      func(string, error) { mu.Lock(); errs++; mu.Unlock() },
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	pub := mqtttest.NewPublisher(t, b.URL())
	conn := func(robot, state string) []byte {
		return []byte(`{"robot":"` + robot + `","seq":1,"ts":"2026-11-24T00:00:00.000Z","state":"` + state + `"}`)
	}
	pub.Publish("botd/v1/rover-1/connection", 1, false, conn("rover-1", "ONLINE"))
	pub.Publish("botd/v1/rover-2/connection", 1, false, conn("rover-2", "OFFLINE"))
	pub.Publish("botd/v1/skipped/connection", 1, false, conn("skipped", "ONLINE"))
	pub.Publish("botd/v1/rover-3/connection", 1, false, []byte(`{"state":`))
	pub.Publish("botd/v1/gcs/ops/state", 1, false, []byte(`{"online":true}`))
	mqtttest.Eventually(t, "both robots' connections and the bad one reported", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return conns["rover-1"] == protocol.ConnOnline && conns["rover-2"] == protocol.ConnOffline && errs == 1
	})
	mu.Lock()
	if _, ok := conns["skipped"]; ok || len(conns) != 2 {
		t.Errorf("%v", conns)
	}
	mu.Unlock()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
