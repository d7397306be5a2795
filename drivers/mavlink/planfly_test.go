package mavlink

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/sim/multicopter"
	"github.com/botd-project/botd/internal/mavtest"
	"github.com/botd-project/botd/missions/plan"
)

// fencedPlan is a plan saved by QGroundControl: take-off, two waypoints, return, an inclusion
// polygon, an exclusion circle and a rally point, around the simulator's home.
const fencedPlan = "../../missions/plan/testdata/fenced.plan"

// autopilotPlan reads fencedPlan with botd's "fly": "autopilot" and returns it with the tree
// generated for it.
func autopilotPlan(t *testing.T) (*plan.Plan, *bt.NodeDef) {
	t.Helper()
	data, err := os.ReadFile(fencedPlan)
	if err != nil {
		t.Fatal(err)
	}
	p, ps := plan.Parse([]byte(strings.Replace(string(data), "{", `{"fly": "autopilot",`, 1)), plan.Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	root, ps := p.Generate(plan.Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	return p, root
}

// The tree generated for a plan the autopilot flies, on the simulated multicopter: UploadPlan
// gives it the mission, fence and rally items, RunMission flies AUTO.MISSION to the end (the
// return lands), the progress reaches the blackboard (uav.mission_item) and the events (one
// uav.mission_item_reached per item), and the simulator holds what the plan says.
func TestAutopilotFliesAPlanOnTheSimMulticopter(t *testing.T) {
	sim, g := simCopterRig(t, multicopter.Config{Listen: "127.0.0.1:0", TimeScale: 8, RTLAlt: 15})
	_, root := autopilotPlan(t)
	tree := compileTree(t, g.robot.Config(), root)
	st, s, _ := g.fly(tree)
	if st != bt.Success {
		t.Fatalf("the plan: %s\n%s", st, s)
	}
	ss := sim.State()
	if ss.MissionItems != 4 || ss.MissionCur != 4 || ss.FenceItems != 5 || ss.FenceZones != 2 || ss.RallyPoints != 1 || ss.FenceBreached || ss.InAir {
		t.Fatalf("the simulator after the plan: %+v (want 4 items flown, a fence of 5 items in 2 zones, 1 rally point, landed)", ss)
	}
	if item, _, ok := g.robot.Reading("uav.mission_item"); !ok || item != 3 {
		t.Errorf("uav.mission_item = %v (%v), want 3", item, ok)
	}
	reached := map[string]bool{}
	for len(g.events) > 0 {
		if e := <-g.events; e.Kind == "uav.mission_item_reached" {
			reached[e.Message] = true
		}
	}
	for i := range 4 {
		if !reached[fmt.Sprintf("uav: mission item %d reached", i)] {
			t.Errorf("no event for item %d; got %v", i, reached)
		}
	}
}

// A halt while the autopilot flies the plan holds the vehicle where it is.
func TestAutopilotPlanHaltHolds(t *testing.T) {
	sim, g := simCopterRig(t, multicopter.Config{Listen: "127.0.0.1:0", TimeScale: 4, RTLAlt: 15})
	_, root := autopilotPlan(t)
	tree := compileTree(t, g.robot.Config(), root)
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	a.Env, a.Sink = g.robot, &sink{}
	bind := g.robot.Bind(tree)
	g.waitFor("the mission flown past its take-off", func() bool {
		bind.Snapshot(&a.BB)
		if st := a.Tick(time.Now().UnixNano()); st != bt.Running {
			t.Fatalf("the plan ended %s before the halt", st)
		}
		_ = g.robot.Apply()
		time.Sleep(20 * time.Millisecond)
		s := sim.State()
		return s.Mode == "AUTO.MISSION" && s.MissionCur >= 1
	})
	a.HaltAll()
	_ = g.robot.Apply()
	g.waitFor("hold after the halt", func() bool { return sim.State().Mode == "AUTO.LOITER" })
	if s := sim.State(); !s.InAir {
		t.Fatalf("after the halt: %+v", s)
	}
}

// A refused upload (of any of the three types) or a refused switch to mission mode makes the
// leaf FAILURE, the autopilot's result named.
func TestAutopilotPlanRefusals(t *testing.T) {
	_, root := autopilotPlan(t)
	g := newUAVRig(t, ", retries: 1")
	g.ap.Set(func(f *mavtest.Autopilot) { f.MissionAck = mav.MAV_MISSION_UNSUPPORTED })
	upload := root.Children[1]
	if st, s, _ := g.fly(compileTree(t, g.robot.Config(), upload)); st != bt.Failure ||
		!strings.Contains(s.String(), "the autopilot refused the mission upload: MAV_MISSION_UNSUPPORTED") {
		t.Fatalf("refused upload: %s\n%s", st, s)
	}
	g.ap.Set(func(f *mavtest.Autopilot) { f.MissionAck = mav.MAV_MISSION_ACCEPTED })
	if st, s, _ := g.fly(compileTree(t, g.robot.Config(), upload)); st != bt.Success {
		t.Fatalf("upload: %s\n%s", st, s)
	}
	g.ap.Mu.Lock()
	n := [3]int{len(g.ap.Stored[mav.MAV_MISSION_TYPE_MISSION]), len(g.ap.Stored[mav.MAV_MISSION_TYPE_FENCE]), len(g.ap.Stored[mav.MAV_MISSION_TYPE_RALLY])}
	g.ap.Mu.Unlock()
	if n != [3]int{4, 5, 1} {
		t.Fatalf("stored mission, fence, rally items %v, want [4 5 1]", n)
	}
	g.ap.Set(func(f *mavtest.Autopilot) { f.Answer[mav.MAV_CMD_DO_SET_MODE] = mav.MAV_RESULT_DENIED })
	if st, s, _ := g.fly(compileTree(t, g.robot.Config(), nd("RunMission", "", nil))); st != bt.Failure || !strings.Contains(s.String(), "MAV_RESULT_DENIED") {
		t.Fatalf("mission mode refused: %s\n%s", st, s)
	}
}

// UploadPlan refuses, when the mission is loaded, items it cannot send: an altitude above
// max_altitude, a fence item in the mission, a rally point off the Earth, too many items.
func TestUploadPlanChecksItsItems(t *testing.T) {
	cfg := parse(t, "devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"udpin://:14540\", max_altitude: 50}\n")
	item := func(cmd, frame, x, y, z float64) map[string]any {
		return map[string]any{"command": cmd, "frame": frame, "params": []any{0.0, nil, 0.0, nil}, "x": x, "y": y, "z": z}
	}
	many := make([]any, maxMissionItems+1)
	for i := range many {
		many[i] = item(16, 3, 473977420, 85455940, 10)
	}
	for _, c := range []struct {
		params kv
		want   string
	}{
		{kv{"mission": []any{item(16, 3, 473977420, 85455940, 80)}}, "mission: item 0: MAV_CMD_NAV_WAYPOINT: altitude 80 m is not within 0 and 50 m"},
		{kv{"mission": []any{item(5001, 0, 473977420, 85455940, 0)}}, "is not a mission item"},
		{kv{"mission": []any{item(16, 3, 473977420, 85455940, 10)}, "rally": []any{item(5100, 3, 973977420, 85455940, 10)}}, "rally: item 0: MAV_CMD_NAV_RALLY_POINT: (973977420, 85455940)"},
		{kv{"mission": []any{item(16, 3, 473977420, 85455940, 10)}, "fence": []any{item(16, 0, 473977420, 85455940, 0)}}, "is not a fence item"},
		{kv{"mission": many}, "1001 items: at most 1000"},
		{kv{"mission": []any{}}, "nothing for the autopilot to fly"},
		{kv{"mission": []any{map[string]any{"command": 16.5}}}, "whole numbers"},
	} {
		_, err := registry(cfg).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": nd("UploadPlan", "", c.params)}, Main: "main"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.80v: %v, want %q", c.params, err, c.want)
		}
	}
}

// The items botd uploaded to the simulated multicopter, downloaded by a ground station written
// with node-mavlink (MISSION_REQUEST_LIST and MISSION_REQUEST_INT for each of the three mission
// types), are the plan's: commands, frames, param1 to param4, lat/lon x 1e7 and altitude, as MAVSDK's
// importer makes them of the plan.
func TestUploadPlanAgainstNodeMAVLink(t *testing.T) {
	skipOffLinux(t)
	node, lib := nodeMAVLink(t)
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(lib, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "node_mavlink_download.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "download.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	sim, g := simCopterRig(t, multicopter.Config{Listen: "127.0.0.1:0", TimeScale: 4})
	p, root := autopilotPlan(t)
	if st, s, _ := g.fly(compileTree(t, g.robot.Config(), root.Children[1])); st != bt.Success {
		t.Fatalf("upload: %s\n%s", st, s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd, lines, stderr := startNode(ctx, t, node, work, "download.mjs", fmt.Sprint(sim.Addr().Port))
	got := map[float64][]map[string]any{}
	done := 0
	timeout := time.After(60 * time.Second)
	for done < 3 {
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatalf("node exited after %d downloads; stderr:\n%s", done, stderr.String())
			}
			switch m["got"] {
			case "ITEM":
				got[m["type"].(float64)] = append(got[m["type"].(float64)], m)
			case "DONE":
				done++
			case "GAVE_UP":
				t.Fatalf("node-mavlink gave up: %v", m)
			}
		case <-timeout:
			t.Fatalf("node-mavlink downloaded %d of 3 in 60 s; stderr:\n%s", done, stderr.String())
		}
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	mission, fence, rally := p.AutopilotItems()
	for typ, want := range map[float64][]plan.Item{0: mission, 1: fence, 2: rally} {
		items := got[typ]
		if len(items) != len(want) {
			t.Errorf("type %v: node-mavlink downloaded %d items, want %d: %v", typ, len(items), len(want), items)
			continue
		}
		for i, w := range want {
			m := items[i]
			same := m["seq"] == float64(i) && m["command"] == float64(w.Command) && m["frame"] == float64(w.Frame) &&
				m["x"] == float64(w.X()) && m["y"] == float64(w.Y()) &&
				(m["z"] == w.Params[6] || w.Command == plan.CmdNavReturnHome && m["z"] == 0.0)
			for k := range 4 {
				// JSON has no NaN: node-mavlink's NaN (a null param of the plan) prints as null
				want := any(w.Params[k])
				if math.IsNaN(w.Params[k]) {
					want = nil
				}
				same = same && m[fmt.Sprintf("p%d", k+1)] == want
			}
			if !same {
				t.Errorf("type %v item %d: node-mavlink read %v, the plan has %+v (x %d, y %d)", typ, i, m, w, w.X(), w.Y())
			}
		}
	}
}

// An e-stop while the autopilot flies the plan wins: the vehicle lands (estop: land) and
// RunMission fails.
func TestAutopilotPlanEStopLands(t *testing.T) {
	sim, g := simCopterRig(t, multicopter.Config{Listen: "127.0.0.1:0", TimeScale: 4, RTLAlt: 15})
	_, root := autopilotPlan(t)
	tree := compileTree(t, g.robot.Config(), root)
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	s := &sink{}
	a.Env, a.Sink = g.robot, s
	bind := g.robot.Bind(tree)
	st := bt.Running
	tick := func() {
		bind.Snapshot(&a.BB)
		st = a.Tick(time.Now().UnixNano())
		_ = g.robot.Apply()
		time.Sleep(20 * time.Millisecond)
	}
	g.waitFor("the mission flown past its take-off", func() bool {
		tick()
		if st != bt.Running {
			t.Fatalf("the plan ended %s before the e-stop\n%s", st, s)
		}
		ss := sim.State()
		return ss.Mode == "AUTO.MISSION" && ss.MissionCur >= 1
	})
	_ = g.robot.EStop("test")
	g.waitFor("the landing and the tree's end", func() bool { tick(); return sim.State().Mode == "AUTO.LAND" && st != bt.Running })
	if st != bt.Failure {
		t.Fatalf("the plan during an e-stop: %s\n%s", st, s)
	}
}

// Something else taking the vehicle out of its mission (here a hold from outside the tree, as
// the autopilot's own fence or another ground station would) fails RunMission instead of
// leaving it RUNNING over a vehicle that no longer flies the plan.
func TestAutopilotPlanLeftMissionModeFails(t *testing.T) {
	sim, g := simCopterRig(t, multicopter.Config{Listen: "127.0.0.1:0", TimeScale: 4, RTLAlt: 15})
	_, root := autopilotPlan(t)
	tree := compileTree(t, g.robot.Config(), root)
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	s := &sink{}
	a.Env, a.Sink = g.robot, s
	bind := g.robot.Bind(tree)
	st := bt.Running
	tick := func() {
		bind.Snapshot(&a.BB)
		st = a.Tick(time.Now().UnixNano())
		_ = g.robot.Apply()
		time.Sleep(20 * time.Millisecond)
	}
	g.waitFor("the mission flown past its take-off", func() bool {
		tick()
		if st != bt.Running {
			t.Fatalf("the plan ended %s first\n%s", st, s)
		}
		ss := sim.State()
		return ss.Mode == "AUTO.MISSION" && ss.MissionCur >= 1 && g.state().mode == modeMission
	})
	if err := g.v.Hold(); err != nil {
		t.Fatal(err)
	}
	g.waitFor("the tree's end", func() bool { tick(); return st != bt.Running })
	if st != bt.Failure || !strings.Contains(s.String(), "left mission mode (now hold)") {
		t.Fatalf("after a hold from outside: %s\n%s", st, s)
	}
}

// An autopilot that reports items reached in a flood (here 0, 1, 0, 1, ...) makes at most
// statusTextsPerSecond events a second; the progress still follows it.
func TestMissionItemReachedEventsAreBounded(t *testing.T) {
	g := newUAVRig(t, "")
	const n = 200
	start := time.Now()
	for i := range n {
		g.ap.Send(&mav.MessageMissionItemReached{Seq: uint16(i % 2)})
	}
	// (the link may drop some of a flood: the last report is sent until it arrives)
	g.waitFor("the last item reached", func() bool {
		g.ap.Send(&mav.MessageMissionItemReached{Seq: 7})
		time.Sleep(5 * time.Millisecond)
		_, r := g.v.missionProgress()
		return r == 7
	})
	elapsed := time.Since(start)
	events := 0
	for len(g.events) > 0 {
		if e := <-g.events; e.Kind == "uav.mission_item_reached" {
			events++
		}
	}
	// one budget per second begun while the flood arrived
	if bound := statusTextsPerSecond * (int(elapsed/time.Second) + 2); events == 0 || events > bound {
		t.Fatalf("%d uav.mission_item_reached events for %d reports in %v, want 1 to %d", events, n+1, elapsed, bound)
	}
}
