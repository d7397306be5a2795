package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/drivers/mavlink"
	"github.com/botd-project/botd/internal/mavtest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// startUAVDaemon runs botd (its own process) flying the scripted autopilot, with the UAV
// failsafes, and a ground station watching it.
func startUAVDaemon(t *testing.T) (*mavtest.Autopilot, *groundRec, *daemonProc) {
	t.Helper()
	ap := mavtest.New(t)
	dir := t.TempDir()
	hw := fmt.Sprintf(`devices:
  - {name: uav, kind: mavlink_vehicle, connection: %q, heartbeat_hz: 10, heartbeat_timeout_ms: 1000, ack_timeout_ms: 500}
`, ap.Addr())
	cfg := `robot: uav-1
hardware: hw.yaml
failsafe:
  require_gcs: false
  battery_key: uav.battery_percent
  battery_low: 30
  battery_low_action: return_home
  battery_critical: 15
  battery_action: land
  required_sensors: [uav]
  sensor_action: land
`
	for name, body := range map[string]string{"hw.yaml": hw, "botd.yaml": cfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	p := startDaemonProc(t, "-config", filepath.Join(dir, "botd.yaml"), "-listen", addr, "-state-dir", filepath.Join(dir, "state"))
	waitBroker(t, addr)
	r := newGround(t, "tcp://"+addr, "uav-1")
	r.waitFor(t, "the daemon idle", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeIdle })
	return ap, r, p
}

// flyAway loads a mission that arms, takes off and flies far away, and waits until the
// vehicle flies it.
func flyAway(t *testing.T, ap *mavtest.Autopilot, r *groundRec) {
	t.Helper()
	mission := json.RawMessage(`{"format":"botd/mission@1","id":"00000000-0000-4000-8000-0000000000a1","name":"away","main":"m","trees":{"m":
	  {"type":"SequenceWithMemory","children":[
	    {"type":"Arm"},
	    {"type":"Takeoff","params":{"alt":10}},
	    {"type":"GoTo","params":{"x":5000,"y":0,"alt":10}}]}}}`)
	if rep := r.send(t, "uav-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: mission, Start: true}); !rep.OK {
		t.Fatalf("load: %+v", rep.Error)
	}
	r.waitFor(t, "the vehicle flying the GoTo", func(*groundRec) bool {
		ap.Mu.Lock()
		defer ap.Mu.Unlock()
		return ap.Main == 6 && ap.X > 5 // OFFBOARD, on its way
	})
}

// Through the daemon: low battery brings the vehicle home, critical battery lands it, and the
// ground station sees why.
func TestDaemonUAVBatteryFailsafes(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	ap, r, p := startUAVDaemon(t)
	flyAway(t, ap, r)
	ap.Set(func(f *mavtest.Autopilot) { f.Battery = 25 })
	r.waitFor(t, "the return home", func(*groundRec) bool {
		ap.Mu.Lock()
		defer ap.Mu.Unlock()
		return ap.Main == 4 && ap.Sub == 5 // AUTO.RTL
	})
	r.waitFor(t, "failsafe battery_low", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModeFailsafe && s.Failsafe.Reason == "battery_low" && s.Failsafe.Action == "return_home"
	})
	ap.Set(func(f *mavtest.Autopilot) { f.Battery = 10 })
	r.waitFor(t, "the landing", func(*groundRec) bool {
		ap.Mu.Lock()
		defer ap.Mu.Unlock()
		return ap.Main == 4 && ap.Sub == 6 // AUTO.LAND
	})
	r.waitFor(t, "failsafe battery_critical and the vehicle's events", func(r *groundRec) bool {
		s := r.lastState()
		return s.Failsafe.Reason == "battery_critical" && r.hasEvent("failsafe.entered") && r.hasEvent("uav.mode") && r.hasEvent("uav.armed")
	})
	p.stop(t)
}

// Through the daemon: an e-stop from the ground lands a flying vehicle, and the mission cannot
// fly it again until the e-stop is reset.
func TestDaemonUAVEStopLands(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	ap, r, p := startUAVDaemon(t)
	flyAway(t, ap, r)
	if rep := r.send(t, "uav-1", protocol.Command{Op: protocol.OpEStop}); !rep.OK {
		t.Fatalf("estop: %+v", rep.Error)
	}
	r.waitFor(t, "the landing", func(*groundRec) bool {
		ap.Mu.Lock()
		defer ap.Mu.Unlock()
		return ap.Main == 4 && ap.Sub == 6
	})
	r.waitFor(t, "on the ground, disarmed", func(*groundRec) bool {
		ap.Mu.Lock()
		defer ap.Mu.Unlock()
		return ap.Z == 0 && !ap.Armed
	})
	r.waitFor(t, "ESTOP", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModeEStop })
	p.stop(t)
}

// Through the daemon: the vehicle's link lost mid-flight stops the mission (a failsafe, not a
// hang) and, once its heartbeat is back, the vehicle is told to land; the safe state that
// follows the failsafe does not turn the landing into a hold.
func TestDaemonUAVVehicleLinkLoss(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	ap, r, p := startUAVDaemon(t)
	flyAway(t, ap, r)
	ap.Set(func(f *mavtest.Autopilot) { f.Heartbeat = false })
	r.waitFor(t, "the failsafe on the lost vehicle", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModeFailsafe && s.Failsafe.Reason == "sensor_stale" && r.hasEvent("uav.link_lost")
	})
	ap.Set(func(f *mavtest.Autopilot) { f.Heartbeat = true })
	r.waitFor(t, "the landing", func(*groundRec) bool {
		ap.Mu.Lock()
		defer ap.Mu.Unlock()
		return ap.Main == 4 && ap.Sub == 6
	})
	r.waitFor(t, "on the ground, the mission paused", func(r *groundRec) bool {
		ap.Mu.Lock()
		landed := ap.Z == 0 && !ap.Armed
		ap.Mu.Unlock()
		return landed && r.lastState().Mode == protocol.ModePaused && r.hasEvent("uav.link_restored")
	})
	p.stop(t)
}

// docs/SENSORS.md names the vehicle's kind, and docs/UAV.md every key it writes.
func TestUAVDocsNameTheVehicleAndItsKeys(t *testing.T) {
	sensors, err := os.ReadFile("../../docs/SENSORS.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sensors), "`"+mavlink.Kind+"`") {
		t.Errorf("docs/SENSORS.md does not name the device kind %q", mavlink.Kind)
	}
	uav, err := os.ReadFile("../../docs/UAV.md")
	if err != nil {
		t.Fatal(err)
	}
	hw, err := deviceKinds.ParseConfig([]byte("devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"udpin://:14540\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range hw.SensorKeys() {
		if !strings.Contains(string(uav), "`"+k+"`") {
			t.Errorf("docs/UAV.md does not name the vehicle's key %q", k)
		}
	}
}
