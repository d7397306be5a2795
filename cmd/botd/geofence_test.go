package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// fenceConfig is a daemon config for the simulated rover (which starts at (0, 0) facing +x)
// with a fence 1.5 m ahead of it.
func fenceConfig(t *testing.T, fence string) string {
	t.Helper()
	hw, err := filepath.Abs(filepath.Join("..", "..", "configs", "sim.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "botd.yaml")
	cfg := "robot: fence-1\nhardware: " + hw + "\ngeofence:\n" + fence
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

const fenceAhead = `  frame: local
  points: [[-1, -1], [1.5, -1], [1.5, 1], [-1, 1]]
  margin: 0.3
  reaction_ms: 500
  action: hold
`

// The simulated rover drives at the fence's edge: the fence trips before the rover reaches the
// edge, the mission is halted (failsafe, then paused once the rover stands), geofence.breach
// goes out over the broker with the position, resume is possible only once stopped inside,
// and a mission whose MoveTo targets lie outside is refused at load with the target's path.
// The factsheet carries the fence.
func TestDaemonGeofenceStopsTheRover(t *testing.T) {
	addr := freeAddr(t)
	startDaemonProc(t, "-config", fenceConfig(t, fenceAhead), "-listen", addr, "-state-dir", t.TempDir())
	waitBroker(t, addr)
	url := "tcp://" + addr
	rec := mqtttest.NewRecorder(t, url, "botd/v1/fence-1/factsheet")
	r := newGround(t, url, "fence-1")
	r.waitFor(t, "idle, with a position", func(r *groundRec) bool {
		s := r.lastState()
		for _, e := range s.Errors {
			if e.Code == "GEOFENCE_NO_POSE" {
				return false
			}
		}
		return s.Mode == protocol.ModeIdle
	})

	// refused at load: a target outside, located
	far := json.RawMessage(`{"format":"botd/mission@1","id":"7c1d6d0e-0b54-4c83-a4c2-2f7a2c7f3f11","name":"far","main":"main",
		"trees":{"main":{"type":"Sequence","children":[{"type":"MoveTo","params":{"x":0.5,"y":0}},{"type":"MoveTo","params":{"x":3,"y":0}}]}}}`)
	rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: far, Start: true})
	if rep.OK || rep.Error.Code != protocol.ErrValidation || rep.Error.Path != "/trees/main/children/1/params/x" ||
		!strings.Contains(rep.Error.Message, "outside the geofence") {
		t.Fatalf("a mission leaving the fence: %+v", rep)
	}

	drive := json.RawMessage(`{"format":"botd/mission@1","id":"5b8e3f2a-9d7c-4e1b-8a6f-3c2d1e0f9a8b","name":"drive","main":"main",
		"trees":{"main":{"type":"Drive","params":{"linear":0.3}}}}`)
	if rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: drive, Start: true}); !rep.OK {
		t.Fatalf("drive: %+v", rep.Error)
	}
	r.waitFor(t, "the breach", func(r *groundRec) bool { return r.hasEvent("geofence.breach") })
	r.mu.Lock()
	var ev protocol.EventMsg
	for _, e := range r.events {
		if e.Kind == "geofence.breach" {
			ev = e
		}
	}
	r.mu.Unlock()
	x, _ := ev.Data["x"].(float64)
	// the fence's edge is at x = 1.5, the margin's at 1.2: at 0.3 m/s with 0.5 s of reaction
	// the fence trips 0.45 m from the edge, before the margin
	if x <= 0.5 || x > 1.2 || ev.Data["action"] != "hold" || ev.Data["outside"] != false {
		t.Fatalf("breach event %+v", ev)
	}
	// stopped inside: the failsafe clears, the mission waits paused for the operator
	r.waitFor(t, "the mission paused", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModePaused && s.Mission != nil && s.Mission.Status == protocol.RunPaused
	})
	r.waitFor(t, "the fence failsafe's events", func(r *groundRec) bool {
		return r.hasEvent("failsafe.entered") && r.hasEvent("failsafe.cleared")
	})
	// the operator resumes: the rover drives at the edge again and the fence stops it again,
	// still inside
	if rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionResume}); !rep.OK {
		t.Fatalf("resume: %+v", rep.Error)
	}
	breaches := func(r *groundRec) (out []protocol.EventMsg) {
		for _, e := range r.events {
			if e.Kind == "geofence.breach" {
				out = append(out, e)
			}
		}
		return out
	}
	r.waitFor(t, "the second breach", func(r *groundRec) bool { return len(breaches(r)) == 2 })
	r.mu.Lock()
	ev = breaches(r)[1]
	r.mu.Unlock()
	x2, _ := ev.Data["x"].(float64)
	if x2 < x || x2 >= 1.5 || ev.Data["outside"] != false {
		t.Fatalf("second breach %+v (first at x=%v)", ev, x)
	}
	t.Logf("tripped at x = %.3f m, again after the resume at x = %.3f m (edge 1.5, margin line 1.2)", x, x2)
	mqtttest.Eventually(t, "the factsheet with the fence", func() bool {
		for _, m := range rec.On("botd/v1/fence-1/factsheet") {
			var f protocol.FactsheetMsg
			if json.Unmarshal(m.Payload, &f) == nil && f.Geofence != nil {
				return f.Geofence.Frame == "local" && len(f.Geofence.Points) == 4 && f.Geofence.Margin == 0.3 && f.Geofence.Action == "hold"
			}
		}
		return false
	})
	if rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionAbort}); !rep.OK {
		t.Fatalf("abort: %+v", rep.Error)
	}
}

// A config's fence is checked where it is read: a self-intersecting polygon is a located
// error, and `botd check -config` refuses a mission whose target leaves the fence.
func TestGeofenceConfigAndCheck(t *testing.T) {
	bad := fenceConfig(t, "  frame: local\n  points: [[0, 0], [2, 2], [2, 0], [0, 2]]\n")
	var out, errb bytes.Buffer
	if code := runCheckConfig([]string{bad}, &out, &errb); code != 1 || !strings.Contains(out.String(), "geofence.points[2]: edge 0") {
		t.Fatalf("check-config of a bowtie fence: %d %q %q", code, out.String(), errb.String())
	}
	good := fenceConfig(t, fenceAhead)
	mission := filepath.Join(t.TempDir(), "m.yaml")
	os.WriteFile(mission, []byte("format: botd/mission@1\nmain: main\ntrees:\n  main: {type: MoveTo, params: {x: 2, y: 0.5}}\n"), 0o600)
	out.Reset()
	if code := runCheck([]string{"-config", good, mission}, &out, &errb); code != 1 ||
		!strings.Contains(out.String(), "/trees/main/params/x: MoveTo: target (2, 0.5) is 0.50 m outside the geofence") {
		t.Fatalf("check: %d %q %q", code, out.String(), errb.String())
	}
	os.WriteFile(mission, []byte("format: botd/mission@1\nmain: main\ntrees:\n  main: {type: MoveTo, params: {x: 0.5, y: 0.5}}\n"), 0o600)
	out.Reset()
	if code := runCheck([]string{"-config", good, mission}, &out, &errb); code != 0 {
		t.Fatalf("check of a mission inside: %d %q %q", code, out.String(), errb.String())
	}
}

// The example Tello hardware file is a valid hardware file, and the Tello mission of
// docs/UAV.md checks against it (and not against the default rover).
func TestTelloExample(t *testing.T) {
	code, out, _ := runCmd(t, "check-config", "-hardware", "../../configs/tello.yaml")
	if code != 0 || !strings.Contains(out, "1 devices: drone (tello)") {
		t.Fatalf("check-config -hardware tello.yaml: %d %s", code, out)
	}
	if code, out, _ := runCmd(t, "check", "-hardware", "../../configs/tello.yaml", "testdata/tello-hop.yaml"); code != 0 {
		t.Fatalf("check the Tello mission: %d %s", code, out)
	}
	if code, out, _ := runCmd(t, "check", "testdata/tello-hop.yaml"); code != 1 || !strings.Contains(out, "children/0: the robot config has no tello device") {
		t.Fatalf("the Tello mission on the rover: %d %s", code, out)
	}
}
