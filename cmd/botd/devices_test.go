package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
)

// TestDaemonMQTTPose: a daemon with an mqtt_pose device subscribes on its own broker, and a
// pose that jumps is reported on the robot's events topic as a pose.rejected event naming
// the device.
func TestDaemonMQTTPose(t *testing.T) {
	skipHWTestOffLinux(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	f := filepath.Join(dir, "botd.yaml")
	os.WriteFile(f, []byte(`robot: r2
hardware:
  adaptors: {board: {kind: sim}}
  devices:
    - {name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"},
       wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.4, max_angular: 2}
    - {name: tracker, kind: mqtt_pose, topic: lab/r2/pose}
`), 0o644)
	startDaemonProc(t, "-config", f, "-listen", addr, "-state-dir", dir)
	waitBroker(t, addr)
	url := "tcp://" + addr
	r := newGround(t, url, "r2")
	pub := mqtttest.NewPublisher(t, url)
	pose := func(x float64) []byte {
		return []byte(fmt.Sprintf(`{"x": %v, "y": 0, "heading": 0, "ts": %.6f}`, x, float64(time.Now().UnixNano())/1e9))
	}
	deadline := time.Now().Add(mqtttest.WaitLong)
	for {
		r.mu.Lock()
		seen := r.hasEvent("pose.rejected")
		r.mu.Unlock()
		if seen {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no pose.rejected event")
		}
		_ = pub.Publish("lab/r2/pose", 0, false, pose(1))
		_ = pub.Publish("lab/r2/pose", 0, false, pose(40))
		time.Sleep(100 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.Kind == "pose.rejected" {
			t.Logf("%s %s: %s %v", e.Level, e.Kind, e.Message, e.Data)
			if e.Data["device"] != "tracker" || !strings.Contains(e.Message, "jumped") {
				t.Errorf("event %+v", e.Event)
			}
		}
	}
}
