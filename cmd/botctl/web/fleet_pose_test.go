package web

import (
	"math"
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
