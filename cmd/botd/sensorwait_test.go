package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/broker"
	"github.com/botd-project/botd/telemetry/protocol"
)

// fakeReadings is a robot whose sensors read when its first channel is closed.
type fakeReadings struct {
	first   chan struct{}
	missing []string
}

func (f *fakeReadings) FirstReadings() <-chan struct{} { return f.first }
func (f *fakeReadings) AwaitingFirstReading() []string {
	select {
	case <-f.first:
		return nil
	default:
		return f.missing
	}
}

// TestAwaitFirstReadings: the wait returns at once when every sensor has read (saying
// nothing), when the last first reading comes, and when the bound fires first, naming the
// sensors still without one.
func TestAwaitFirstReadings(t *testing.T) {
	never := make(chan time.Time)
	ready := &fakeReadings{first: make(chan struct{})}
	close(ready.first)
	if ok, _ := awaitFirstReadings(context.Background(), ready, never, func([]string) { t.Error("waiting said with every sensor read") }); !ok {
		t.Error("not ready with every sensor read")
	}

	late := &fakeReadings{first: make(chan struct{}), missing: []string{"front"}}
	said := make(chan []string, 1)
	done := make(chan bool)
	go func() {
		ok, _ := awaitFirstReadings(context.Background(), late, never, func(s []string) { said <- s })
		done <- ok
	}()
	if s := <-said; !slices.Equal(s, []string{"front"}) {
		t.Errorf("waiting for %v", s)
	}
	close(late.first)
	if !<-done {
		t.Error("not ready after the first reading")
	}

	silent := &fakeReadings{first: make(chan struct{}), missing: []string{"tracker", "gps"}}
	bound := make(chan time.Time, 1)
	bound <- time.Now()
	ok, missing := awaitFirstReadings(context.Background(), silent, bound, func([]string) {})
	if ok || !slices.Equal(missing, []string{"tracker", "gps"}) {
		t.Errorf("after the bound: ok %v, missing %v", ok, missing)
	}
}

// sensorWaitConfig is a daemon whose one sensor, a pose from a tracker over MQTT, gives its
// first reading only when the test publishes one, with a mission that checks that pose.
func sensorWaitConfig(t *testing.T, failsafe string) (dir, file string) {
	dir = t.TempDir()
	mission := `{"format": "botd/mission@1", "name": "needs-pose", "main": "m", "trees": {"m": {"type": "Sequence", "children": [
  {"type": "Check", "params": {"key": "pose.x", "op": ">", "value": -1000}},
  {"type": "Running"}]}}}`
	if err := os.WriteFile(filepath.Join(dir, "needs-pose.json"), []byte(mission), 0o644); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "botd.yaml")
	if err := os.WriteFile(file, []byte(`robot: r3
mission: needs-pose.json
failsafe: {require_gcs: false`+failsafe+`}
hardware:
  adaptors: {board: {kind: sim}}
  devices:
    - {name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"},
       wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.4, max_angular: 2}
    - {name: tracker, kind: mqtt_pose, topic: lab/r3/pose}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// poser publishes a fresh pose of r3 at most every 100 ms, each time it is called: the
// tracker's first pose arrives once its subscription is up, whenever that is.
func poser(t *testing.T, url string) func() {
	pub := mqtttest.NewPublisher(t, url)
	var last time.Time
	return func() {
		if time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		_ = pub.Publish("lab/r3/pose", 0, false, []byte(fmt.Sprintf(`{"x": 1, "y": 0, "heading": 0, "ts": %.6f}`, float64(time.Now().UnixNano())/1e9)))
	}
}

// sensorWaitBroker is a broker in the test's process, so the ground station is there before
// the daemon's first events.
func sensorWaitBroker(t *testing.T) string {
	b, err := broker.Start(context.Background(), broker.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b.URL()
}

func eventOf(r *groundRec, kind string) (protocol.EventMsg, bool) {
	for _, e := range r.events {
		if e.Kind == kind {
			return e, true
		}
	}
	return protocol.EventMsg{}, false
}

// TestDaemonMissionWaitsForFirstReadings: the configured mission does not start before the
// robot's sensor (a tracker's pose, delayed until the test publishes it) has given its first
// reading: the daemon says it waits (mission.waiting, naming the sensor), stays idle, and
// starts the mission once the pose has come.
func TestDaemonMissionWaitsForFirstReadings(t *testing.T) {
	skipHWTestOffLinux(t)
	dir, f := sensorWaitConfig(t, "")
	url := sensorWaitBroker(t)
	r := newGround(t, url, "r3") // before the daemon: its first events are live only
	startDaemonProc(t, "-config", f, "-broker", url, "-state-dir", dir)
	r.waitFor(t, "mission.waiting", func(r *groundRec) bool { return r.hasEvent("mission.waiting") })
	r.mu.Lock()
	e, _ := eventOf(r, "mission.waiting")
	if fmt.Sprint(e.Data["sensors"]) != "[tracker]" || !strings.Contains(e.Message, "tracker") {
		t.Errorf("mission.waiting names %v: %s", e.Data["sensors"], e.Message)
	}
	if r.hasEvent("mission.started") || r.lastState().Mode == protocol.ModeRunning {
		t.Error("the mission started before the tracker's first pose")
	}
	r.mu.Unlock()
	publish := poser(t, url)
	r.waitFor(t, "the mission running after the first pose", func(r *groundRec) bool {
		publish()
		s := r.lastState()
		return r.hasEvent("mission.started") && s.Mode == protocol.ModeRunning && s.Mission != nil && s.Mission.Name == "needs-pose"
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range []string{"mission.finished", "sensors.not_ready", "mission.not_started"} {
		if e, ok := eventOf(r, k); ok {
			t.Errorf("%s: %s", k, e.Message)
		}
	}
}

// TestDaemonMissionRefusedWithoutFirstReadings: when the sensor has not read within
// failsafe.sensor_wait, the configured mission is loaded but not started (sensors.not_ready,
// mission.not_started naming the sensor and what to send).
func TestDaemonMissionRefusedWithoutFirstReadings(t *testing.T) {
	skipHWTestOffLinux(t)
	dir, f := sensorWaitConfig(t, ", sensor_wait: 300ms")
	url := sensorWaitBroker(t)
	r := newGround(t, url, "r3")
	startDaemonProc(t, "-config", f, "-broker", url, "-state-dir", dir)
	r.waitFor(t, "the mission accepted, not started", func(r *groundRec) bool {
		return r.hasEvent("mission.not_started") && r.hasEvent("mission.accepted") && r.lastState().Mode == protocol.ModeIdle
	})
	r.mu.Lock()
	acc, _ := eventOf(r, "mission.accepted")
	id := acc.Mission
	nr, _ := eventOf(r, "sensors.not_ready")
	ns, _ := eventOf(r, "mission.not_started")
	if fmt.Sprint(nr.Data["sensors"]) != "[tracker]" || nr.Level != "error" {
		t.Errorf("sensors.not_ready: %s %v", nr.Level, nr.Data)
	}
	if !strings.Contains(ns.Message, "tracker") || !strings.Contains(ns.Message, "mission.start") || !strings.Contains(ns.Message, id) {
		t.Errorf("mission.not_started does not say which sensor and what to send: %s", ns.Message)
	}
	if r.hasEvent("mission.started") {
		t.Error("the mission started without the tracker's first pose")
	}
	r.mu.Unlock()
}
