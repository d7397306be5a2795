package ground_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// WatchFleet delivers every robot's factsheet labels and fence and its
// blackboard messages, and what cannot be decoded as an error; stop ends
// it.
func TestWatchFleet(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	pub := mqtttest.NewPublisher(t, b.URL())
	pub.Publish("botd/v1/rover-1/factsheet", 1, true, []byte(`{"robot":"rover-1","seq":1,"ts":"2026-11-24T00:00:00.000Z","version":"v1",
		"node_types":[],"devices":[],"limits":{},"labels":{"site":"north"},"geofence":{"frame":"local","points":[[0,0],[1,0],[1,1]]}}`))
	pub.Publish("botd/v1/rover-2/factsheet", 1, true, []byte(`not json`))
	g := newClient(t, b.URL())
	var mu sync.Mutex
	facts := map[string]ground.FleetFacts{}
	var poses []protocol.BlackboardMsg
	var errs []string
	stop, err := g.WatchFleet(ground.FleetHandlers{
		Factsheet:  func(r string, f ground.FleetFacts) { mu.Lock(); facts[r] = f; mu.Unlock() },
		Blackboard: func(r string, m protocol.BlackboardMsg) { mu.Lock(); poses = append(poses, m); mu.Unlock() },
		Error:      func(r, topic string, err error) { mu.Lock(); errs = append(errs, r); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "rover-1's labels and rover-2's error", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return facts["rover-1"].Labels["site"] == "north" && len(errs) == 1 && errs[0] == "rover-2"
	})
	mu.Lock()
	if f := facts["rover-1"]; f.Version != "v1" || f.Geofence == nil || len(f.Geofence.Points) != 3 {
		t.Errorf("facts %+v", f)
	}
	mu.Unlock()
	pub.Publish("botd/v1/rover-3/blackboard", 0, false, []byte(`{"robot":"rover-3","seq":1,"ts":"2026-11-24T00:00:00.000Z","full":true,
		"values":[{"key":"pose.x","value":1.5,"age_ms":3}]}`))
	mqtttest.Eventually(t, "rover-3's blackboard", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(poses) == 1 && poses[0].Robot == "rover-3" && poses[0].Values[0].Value == 1.5
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// SendEStop publishes on the robot's estop topic and returns its reply.
func TestSendEStopOnTheEStopTopic(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	robot := mqtttest.NewPublisher(t, b.URL())
	var mu sync.Mutex
	var topics []string
	answer := func(topic string, payload []byte) {
		var c protocol.Command
		_ = json.Unmarshal(payload, &c)
		mu.Lock()
		topics = append(topics, topic)
		mu.Unlock()
		rep, _ := json.Marshal(protocol.ReplyMsg{Header: protocol.Header{Robot: "rover-1", Seq: 1, TS: "2026-11-24T00:00:00.000Z"},
			Reply: protocol.Reply{ID: c.ID, OK: true}})
		go robot.Publish("botd/v1/rover-1/reply", 1, false, rep)
	}
	for _, f := range []string{"botd/v1/rover-1/estop", "botd/v1/rover-1/cmd"} {
		if err := robot.Subscribe(f, 1, answer); err != nil {
			t.Fatal(err)
		}
	}
	g := newClient(t, b.URL())
	ctx, cancel := context.WithTimeout(context.Background(), mqtttest.WaitLong)
	defer cancel()
	rep, err := g.SendEStop(ctx, "rover-1", protocol.Command{Op: protocol.OpEStop})
	if err != nil || !rep.OK {
		t.Fatalf("reply %+v, %v", rep, err)
	}
	mu.Lock()
	if len(topics) == 0 || topics[0] != "botd/v1/rover-1/estop" {
		t.Errorf("sent on %v, want the estop topic", topics)
	}
	mu.Unlock()
	if _, err := g.SendEStop(ctx, "rover-1", protocol.Command{Op: protocol.OpMissionPause}); err == nil {
		t.Error("SendEStop took a pause")
	}
}
