package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/geofence"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// zoneOrigin is where the zones tests place the simulated rover's (0, 0) on the map.
var zoneOrigin = geofence.LatLon{Lat: 47.3977, Lon: 8.5456}

// latLonAt is the latitude and longitude x m east and y m north of zoneOrigin (the tangent
// plane is linear to well under a millimetre over these few metres).
func latLonAt(x, y float64) [2]float64 {
	const d = 1e-3
	ex, _ := zoneOrigin.ToLocal(zoneOrigin.Lat, zoneOrigin.Lon+d)
	_, ny := zoneOrigin.ToLocal(zoneOrigin.Lat+d, zoneOrigin.Lon)
	return [2]float64{zoneOrigin.Lat + y/ny*d, zoneOrigin.Lon + x/ex*d}
}

// zonesFence is a config fence in latitude and longitude around zoneOrigin on the rover's
// pose: 3 m ahead of it (east), 5 m behind and to either side.
func zonesFence() string {
	var pts []string
	for _, p := range [][2]float64{{-5, -5}, {3, -5}, {3, 5}, {-5, 5}} {
		ll := latLonAt(p[0], p[1])
		pts = append(pts, fmt.Sprintf("[%.9f, %.9f]", ll[0], ll[1]))
	}
	return fmt.Sprintf("  frame: global\n  origin: {lat: %v, lon: %v}\n  pose_key: pose\n  points: [%s]\n  margin: 0.3\n  reaction_ms: 500\n  action: hold\n",
		zoneOrigin.Lat, zoneOrigin.Lon, strings.Join(pts, ", "))
}

// planMission is a mission that drives the rover ahead at 0.3 m/s, carrying a plan's
// geoFence on its blackboard (as a .plan's import writes it).
func planMission(id, name, fence string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":%q,"main":"main",
		"blackboard":{"plan.fence":%s},"trees":{"main":{"type":"Drive","params":{"linear":0.3}}}}`, id, name, fence))
}

func circleZone(inclusion bool, x, y, r float64) string {
	c := latLonAt(x, y)
	return fmt.Sprintf(`{"inclusion":%v,"circle":{"center":[%.9f,%.9f],"radius":%v}}`, inclusion, c[0], c[1], r)
}

// The daemon enforces a plan's zones with the config's fence, on the simulated rover: an
// exclusion circle on its path stops it short of the circle, the breach naming the circle
// (event, state.errors, journal); once that mission ended its zone is gone, and a plan whose
// inclusion zone is far wider than the config's fence does not widen it: the config's fence
// stops the rover, named; a plan whose zone leaves the rover where it stands outside is
// refused at load, located at the zone.
func TestDaemonPlanZones(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	addr := freeAddr(t)
	state := t.TempDir()
	startDaemonProc(t, "-config", fenceConfig(t, zonesFence()), "-listen", addr, "-state-dir", state)
	waitBroker(t, addr)
	r := newGround(t, "tcp://"+addr, "fence-1")
	r.waitFor(t, "idle, with a position", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModeIdle && len(s.Errors) == 0
	})
	const margin, reaction, speed = 0.3, 0.5, 0.3 // the fence's and the Drive's
	breaches := func(r *groundRec) (out []protocol.EventMsg) {
		for _, e := range r.events {
			if e.Kind == "geofence.breach" {
				out = append(out, e)
			}
		}
		return out
	}
	lastBreach := func() protocol.EventMsg {
		r.mu.Lock()
		defer r.mu.Unlock()
		b := breaches(r)
		return b[len(b)-1]
	}

	// an exclusion circle of 1 m radius 2.5 m ahead: its rim is 1.5 m ahead
	const circleName = "geoFence circle 0 (exclusion)"
	circle := planMission("8d0f3b4a-2c1e-4f5a-9b6c-7d8e9f0a1b2c", "circle", `{"circles":[`+circleZone(false, 2.5, 0, 1)+`]}`)
	if rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: circle, Start: true}); !rep.OK {
		t.Fatalf("circle: %+v", rep.Error)
	}
	r.waitFor(t, "the circle's breach", func(r *groundRec) bool {
		s := r.lastState()
		return len(breaches(r)) == 1 && len(s.Errors) > 0 && s.Errors[0].Ref == circleName
	})
	ev := lastBreach()
	x, _ := ev.Data["x"].(float64)
	// it trips within margin + speed x reaction of the rim, before the margin
	if ev.Data["zone"] != circleName || !strings.Contains(ev.Message, circleName) || ev.Data["outside"] != false ||
		x < 1.5-margin-speed*reaction-0.5 || x > 1.5-margin {
		t.Fatalf("breach %+v", ev)
	}
	r.waitFor(t, "the circle's mission paused", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModePaused })
	if rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionAbort}); !rep.OK {
		t.Fatalf("abort: %+v", rep.Error)
	}

	// an inclusion circle of 100 m around the rover cannot widen the config's fence 3 m ahead
	wide := planMission("9e1a4c5b-3d2f-4a6b-8c7d-8e9f0a1b2c3d", "wide", `{"circles":[`+circleZone(true, 0, 0, 100)+`]}`)
	if rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: wide, Start: true}); !rep.OK {
		t.Fatalf("wide: %+v", rep.Error)
	}
	r.waitFor(t, "the config fence's breach", func(r *groundRec) bool { return len(breaches(r)) == 2 })
	ev = lastBreach()
	x2, _ := ev.Data["x"].(float64)
	if ev.Data["zone"] != drivers.ConfigZone || ev.Data["outside"] != false || x2 <= x || x2 > 3-margin {
		t.Fatalf("breach in the wide plan %+v (the circle's at x=%v)", ev, x)
	}
	t.Logf("tripped at x = %.3f m by the circle (rim 1.5), at x = %.3f m by the config's fence (edge 3) under a plan 100 m wide", x, x2)
	r.waitFor(t, "the wide mission paused", func(r *groundRec) bool { return r.lastState().Mode == protocol.ModePaused })

	// a zone that leaves the rover where it stands outside: refused at load, located
	here := planMission("af2b5d6c-4e3a-4b7c-9d8e-9fa0b1c2d3e4", "here",
		`{"polygons":[],"circles":[`+circleZone(true, 0, 0, 100)+`,`+circleZone(false, x2, 0, 1)+`]}`)
	rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: here, Start: true, Replace: true})
	if rep.OK || rep.Error.Path != "/blackboard/plan.fence/circles/1" || !strings.Contains(rep.Error.Message, "leaves the robot's position") {
		t.Fatalf("a zone around the rover: %+v", rep)
	}
	if rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionAbort}); !rep.OK {
		t.Fatalf("abort: %+v", rep.Error)
	}
	journal, err := os.ReadFile(filepath.Join(state, "missions", "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, zone := range []string{circleName, drivers.ConfigZone} {
		if !strings.Contains(string(journal), `"event":"geofence_breach"`) || !strings.Contains(string(journal), `"zone":"`+zone+`"`) {
			t.Errorf("the journal has no breach of %q:\n%s", zone, journal)
		}
	}
}

// A plan checks against configs/uav-sim.yaml, whose fence is in metres from the vehicle's
// home: its GoTos' latitudes and longitudes cannot be placed there before the flight, so the
// fence holds the vehicle in flight instead of refusing the plan (a hand-written GoTo in
// metres outside the fence is still refused).
func TestPlanChecksAgainstAVehicleLocalFence(t *testing.T) {
	if code, out, errOut := runCmd(t, "check", "-config", "../../configs/uav-sim.yaml", fencedPlan); code != 0 || !strings.Contains(out, "fenced.plan: ok") {
		t.Errorf("fenced.plan against uav-sim.yaml: exit %d\n%s%s", code, out, errOut)
	}
	far := filepath.Join(t.TempDir(), "far.yaml")
	if err := os.WriteFile(far, []byte("format: botd/mission@1\nmain: main\ntrees:\n  main: {type: GoTo, params: {x: 100, y: 0, alt: 10}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "check", "-config", "../../configs/uav-sim.yaml", far); code != 1 || !strings.Contains(out, "outside the geofence") {
		t.Errorf("a GoTo 100 m north against uav-sim.yaml: exit %d\n%s", code, out)
	}
}

// The geofence's return_home on the simulated rover with a plan's rally points: the breach of
// an exclusion circle on its path sends it, by botd's own return, to the rally point nearest
// to where it stopped (not the farther one, not home), where it stops; the mission then waits
// paused.
func TestDaemonReturnsToTheNearestRallyPoint(t *testing.T) {
	t.Parallel() // its own daemon process, in real time (see startDaemonProc)
	addr := freeAddr(t)
	fence := strings.Replace(zonesFence(), "action: hold", "action: return_home", 1)
	startDaemonProc(t, "-config", fenceConfig(t, fence), "-listen", addr, "-state-dir", t.TempDir())
	waitBroker(t, addr)
	r := newGround(t, "tcp://"+addr, "fence-1")
	r.waitFor(t, "idle, with a position", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModeIdle && len(s.Errors) == 0
	})
	// the rover trips about 1.1 m ahead: rally point 1 (0.5 m ahead, 1.2 m to the right) is
	// nearer than rally point 0 (1.5 m behind, 1.5 m to the left); home (0, 0) is nearer still
	// (the yard's walls are 2 m behind and to either side)
	const nearX, nearY = 0.5, -1.2
	far, near := latLonAt(-1.5, 1.5), latLonAt(nearX, nearY)
	rally := fmt.Sprintf(`[[%.9f,%.9f,0],[%.9f,%.9f,0]]`, far[0], far[1], near[0], near[1])
	m := json.RawMessage(fmt.Sprintf(`{"format":"botd/mission@1","id":"b03c6e7d-5f4b-4c8d-ae9f-a0b1c2d3e4f5","name":"rally","main":"main",
		"blackboard":{"plan.fence":{"circles":[%s]},"plan.rally":%s},"trees":{"main":{"type":"Drive","params":{"linear":0.3}}}}`,
		circleZone(false, 2.5, 0, 1), rally))
	if rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionLoad, Mission: m, Start: true}); !rep.OK {
		t.Fatalf("rally: %+v", rep.Error)
	}
	t.Cleanup(func() {
		if t.Failed() {
			r.mu.Lock()
			for _, e := range r.events {
				t.Logf("event %s: %s %v", e.Kind, e.Message, e.Data)
			}
			t.Logf("state %+v", r.lastState())
			r.mu.Unlock()
		}
	})
	r.waitFor(t, "the return's end", func(r *groundRec) bool { return r.hasEvent("failsafe.returned") })
	r.mu.Lock()
	var start, end protocol.EventMsg
	for _, e := range r.events {
		switch e.Kind {
		case "failsafe.return_home":
			start = e
		case "failsafe.returned":
			end = e
		}
	}
	r.mu.Unlock()
	target, _ := start.Data["target"].(string)
	x, _ := end.Data["x"].(float64)
	y, _ := end.Data["y"].(float64)
	const tolerance = 0.1 // MoveTo's default
	if start.Data["reason"] != "geofence" || !strings.HasPrefix(target, "rally point 1 ") ||
		math.Hypot(x-nearX, y-nearY) > tolerance+0.05 {
		t.Fatalf("return %+v, ended %+v", start, end)
	}
	t.Logf("%s: stopped at (%.3f, %.3f)", start.Message, x, y)
	r.waitFor(t, "the mission paused at the rally point", func(r *groundRec) bool {
		s := r.lastState()
		return s.Mode == protocol.ModePaused && !s.Failsafe.Active
	})
	if rep := r.send(t, "fence-1", protocol.Command{Op: protocol.OpMissionAbort}); !rep.OK {
		t.Fatalf("abort: %+v", rep.Error)
	}
}

// A mission carrying zones is refused at load, located, where the robot's fence has no place
// on the map (a local fence on a pose of unknown origin), and where the robot has no fence
// at all to enforce them with.
func TestMissionZonesNeedAPositionOnTheMap(t *testing.T) {
	m, err := missions.Load(planMission("c14d7e8f-6a5b-4c9d-8eaf-b0c1d2e3f4a5", "zones", `{"circles":[`+circleZone(false, 2.5, 0, 1)+`]}`),
		missions.Options{Keys: []string{"pose.x", "pose.y"}, Substitute: map[string]string{"Drive": "Succeed"}})
	if err != nil {
		t.Fatal(err)
	}
	margin := 0.3
	local, err := drivers.CompileFence(&drivers.GeofenceConfig{Frame: "local", Margin: &margin, Points: [][2]float64{{-1, -1}, {1.5, -1}, {1.5, 1}, {-1, 1}}}, nil, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range map[string]*fenceGuard{"no fence": nil, "a local fence": {fence: local}} {
		err := missionCheck(nil, g)(m)
		var ps bt.Problems
		if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Path != "/blackboard/plan.fence" || !strings.Contains(ps[0].Message, "no position on the map") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
