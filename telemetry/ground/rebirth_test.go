package ground_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

func stateJSON(robot string, ts time.Time) []byte {
	return fmt.Appendf(nil, `{"robot":%q,"seq":1,"ts":%q,"mode":"IDLE","requested_mode":"IDLE","mission":null,"tick":{},"failsafe":{},"estop":false,"link":{},"errors":[]}`,
		robot, protocol.FormatTS(ts))
}

// A robot whose retained connection still says ONLINE but whose telemetry
// is old (its broker node died with its last will) is stale; one heard
// live, or whose retained state is fresh, is not.
func TestRobotStaleFromTelemetryAge(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	pub := mqtttest.NewPublisher(t, b.URL())
	online := []byte(`{"robot":"r","seq":1,"ts":"2026-11-24T00:00:00.000Z","state":"ONLINE"}`)
	now := time.Now()
	for _, r := range []string{"gone", "fresh", "live"} {
		pub.Publish("botd/v1/"+r+"/connection", 1, true, online)
	}
	pub.Publish("botd/v1/gone/state", 1, true, stateJSON("gone", now.Add(-time.Minute)))
	pub.Publish("botd/v1/fresh/state", 1, true, stateJSON("fresh", now))
	g := newClient(t, b.URL())
	// Live: published after the station subscribed, with an old robot
	// clock (the ground's own clock decides).
	// Listed by their connections, which may come before the states: wait
	// for the retained states too (without one a robot is stale).
	mqtttest.Eventually(t, "the retained robots and states listed", func() bool {
		rs := g.Robots()
		states := 0
		for _, r := range rs {
			if r.State != nil {
				states++
			}
		}
		return len(rs) == 3 && states == 2
	})
	pub.Publish("botd/v1/live/state", 1, false, stateJSON("live", now.Add(-time.Hour)))
	mqtttest.Eventually(t, "live heard", func() bool {
		for _, r := range g.Robots() {
			if r.ID == "live" && r.State != nil {
				return true
			}
		}
		return false
	})
	want := map[string]bool{"gone": true, "fresh": false, "live": false}
	at := time.Now()
	for _, r := range g.Robots() {
		if got := r.Stale(at, ground.DefaultStaleAfter); got != want[r.ID] {
			t.Errorf("%s: stale %v, want %v (connection %s)", r.ID, got, want[r.ID], r.Connection)
		}
	}
	for _, r := range g.Robots() {
		if !r.Stale(at.Add(time.Hour), ground.DefaultStaleAfter) {
			t.Errorf("%s not stale an hour later", r.ID)
		}
	}
}

// A ground station asks the robots it watches for their state when it
// connects, and again after every reconnect (a broker node need not hold
// their retained messages).
func TestStateRequestOnEveryConnect(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	rec := mqtttest.NewRecorder(t, b.URL(), "botd/v1/+/cmd")
	gate := &mqtttest.NetGate{}
	o := mqtttest.Options(b.URL())
	o.WrapConn = gate.Wrap
	gate.Set(true) // not connected before the watch is in place
	g, err := ground.New(ground.Config{GCS: "ops", Conn: o})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.Watch("rover-1", ground.RobotHandlers{}); err != nil {
		t.Fatal(err)
	}
	gate.Set(false)
	// Requests are counted by id: a request whose PUBACK the sever cut
	// off is sent again after the reconnect (QoS 1), and the broker
	// passes it on twice.
	requests := func() int {
		ids := map[string]bool{}
		for _, m := range rec.On("botd/v1/rover-1/cmd") {
			var c protocol.Command
			if json.Unmarshal(m.Payload, &c) == nil && c.Op == protocol.OpStateRequest && c.ID != "" {
				ids[c.ID] = true
			}
		}
		return len(ids)
	}
	mqtttest.Eventually(t, "state.request at the first connect", func() bool { return requests() == 1 })
	gate.Sever()
	mqtttest.Eventually(t, "state.request after the reconnect", func() bool { return requests() == 2 })
	if len(rec.On("botd/v1/other/cmd")) != 0 {
		t.Error("a robot neither watched nor heard of was asked")
	}
}
