package web

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// A MAVLink vehicle's keys (under its own key, here "drone") put it on
// the map: latitude and longitude as its pose, its local NED x/y turned
// to east/north beside it, its yaw (clockwise from north) turned to a
// heading counter-clockwise from east. A mission's own x/y keys are not
// a pose.
func TestFleetVehiclePose(t *testing.T) {
	f := newFleet(func() []ground.RobotInfo { return nil })
	bb := func(full bool, kv ...any) protocol.BlackboardMsg {
		m := protocol.BlackboardMsg{Full: full}
		for i := 0; i < len(kv); i += 2 {
			m.Values = append(m.Values, protocol.BlackboardValue{Key: kv[i].(string), Value: kv[i+1]})
		}
		return m
	}
	f.onBlackboard("uav-1", bb(true, "goal.x", 7.0, "goal.y", 7.0, "drone.lat", 47.3977, "drone.lon", 8.5456,
		"drone.x", 30.0, "drone.y", 5.0, "drone.yaw", math.Pi/2, "drone.in_air", true, "drone.armed", true))
	f.refresh(time.Now(), true)
	var tab fleetTab
	row := decodeFleet(t, f.frame(&tab)).Rows[0]
	if p := row.Pose; p == nil || p.Frame != "global" || p.X != 8.5456 || p.Y != 47.3977 || p.H == nil || *p.H != 0 {
		t.Errorf("pose %+v, want lat/lon heading east (0)", p)
	}
	if l := row.Local; l == nil || l.Frame != "local" || l.X != 5 || l.Y != 30 {
		t.Errorf("local pose %+v, want x 5 (east), y 30 (north)", l)
	}

	// Without latitude and longitude (no GPS fix yet), the local pose.
	f.onBlackboard("uav-2", bb(true, "uav.in_air", false, "uav.x", -4.0, "uav.y", 2.0, "uav.yaw", 0.0))
	f.refresh(time.Now(), true)
	for _, r := range decodeFleet(t, f.frame(&tab)).Rows {
		if r.ID != "uav-2" {
			continue
		}
		if p := r.Pose; p == nil || p.Frame != "local" || p.X != 2 || p.Y != -4 || p.H == nil || math.Abs(*p.H-math.Pi/2) > 0.01 || r.Local != nil {
			t.Errorf("uav-2: pose %+v, local %+v", p, r.Local)
		}
	}

	// A rover with only mission keys named like a pose has none.
	f.onBlackboard("r-1", bb(true, "goal.x", 1.0, "goal.y", 2.0, "wp.lat", 1.0, "wp.lon", 2.0))
	f.refresh(time.Now(), true)
	for _, r := range decodeFleet(t, f.frame(&tab)).Rows {
		if r.ID == "r-1" && r.Pose != nil {
			t.Errorf("r-1 drawn at its mission's keys: %+v", r.Pose)
		}
	}
}

// The pose sources a robot's factsheet names are read under their own
// keys and in their own frames: an odometry source keyed "odom", a
// vehicle keyed "copter" before it writes <key>.in_air, even a local
// source keyed like one of the usual global prefixes. A Full blackboard
// does not forget them, and a factsheet without them goes back to the
// usual keys.
func TestFleetPoseSourcesFromTheFactsheet(t *testing.T) {
	f := newFleet(func() []ground.RobotInfo { return nil })
	bb := func(full bool, kv ...any) protocol.BlackboardMsg {
		m := protocol.BlackboardMsg{Full: full}
		for i := 0; i < len(kv); i += 2 {
			m.Values = append(m.Values, protocol.BlackboardValue{Key: kv[i].(string), Value: kv[i+1]})
		}
		return m
	}
	row := func(id string) fleetRow {
		t.Helper()
		f.refresh(time.Now(), true)
		var tab fleetTab
		for _, r := range decodeFleet(t, f.frame(&tab)).Rows {
			if r.ID == id {
				return r
			}
		}
		t.Fatalf("no row for %s", id)
		return fleetRow{}
	}

	f.onBlackboard("rover-1", bb(true, "odom.x", 3.0, "odom.y", 4.0, "odom.heading", 1.0))
	if p := row("rover-1").Pose; p != nil {
		t.Fatalf("odom.* read as a pose before the factsheet named it: %+v", p)
	}
	f.onFacts("rover-1", ground.FleetFacts{Poses: []protocol.PoseSource{{Device: "odometry", Key: "odom", Frame: protocol.PoseLocal}}})
	f.onBlackboard("rover-1", bb(true, "odom.x", 3.0, "odom.y", 4.0, "odom.heading", 1.0))
	if p := row("rover-1").Pose; p == nil || p.Frame != "local" || p.X != 3 || p.Y != 4 || p.H == nil || *p.H != 1 {
		t.Fatalf("rover-1 with odom named: %+v", p)
	}
	f.onBlackboard("rover-1", bb(false, "odom.x", 5.0))
	if p := row("rover-1").Pose; p == nil || p.X != 5 || p.Y != 4 {
		t.Fatalf("rover-1 after a delta: %+v", p)
	}

	// A vehicle named by the factsheet is read before (without) in_air, NED turned to east/north.
	f.onFacts("uav-1", ground.FleetFacts{Poses: []protocol.PoseSource{{Device: "fc", Key: "copter", Frame: protocol.PoseVehicle}}})
	f.onBlackboard("uav-1", bb(true, "copter.x", 10.0, "copter.y", 2.0))
	if p := row("uav-1").Pose; p == nil || p.Frame != "local" || p.X != 2 || p.Y != 10 {
		t.Fatalf("uav-1's named vehicle: %+v", p)
	}

	// A local source keyed "position" is local, not the usual global "position".
	f.onFacts("r-2", ground.FleetFacts{Poses: []protocol.PoseSource{{Device: "tracker", Key: "position", Frame: protocol.PoseLocal}}})
	f.onBlackboard("r-2", bb(true, "position.x", 1.0, "position.y", 2.0, "position.lat", 47.0, "position.lon", 8.0))
	if p := row("r-2").Pose; p == nil || p.Frame != "local" || p.X != 1 || p.Y != 2 {
		t.Fatalf("r-2's local source keyed position: %+v", p)
	}

	// A factsheet that no longer names it: back to the usual keys.
	f.onFacts("rover-1", ground.FleetFacts{})
	f.onBlackboard("rover-1", bb(true, "odom.x", 3.0, "odom.y", 4.0))
	if p := row("rover-1").Pose; p != nil {
		t.Fatalf("odom.* still read after the factsheet stopped naming it: %+v", p)
	}

	// A hostile factsheet is bounded: only the first maxNamedPoses, no empty or long keys.
	var many []protocol.PoseSource
	for i := range 1000 {
		many = append(many, protocol.PoseSource{Key: fmt.Sprintf("k%d", i), Frame: protocol.PoseVehicle})
	}
	many = append([]protocol.PoseSource{{Key: "", Frame: protocol.PoseLocal}, {Key: strings.Repeat("x", 1000), Frame: protocol.PoseLocal}}, many...)
	f.onFacts("r-3", ground.FleetFacts{Poses: many})
	f.mu.Lock()
	r3 := f.get("r-3")
	n, nveh := len(r3.poses.named), r3.poses.nveh
	f.mu.Unlock()
	if n != maxNamedPoses || nveh != maxVehicles {
		t.Fatalf("r-3 keeps %d named sources and %d vehicles, want %d and %d", n, nveh, maxNamedPoses, maxVehicles)
	}
}
