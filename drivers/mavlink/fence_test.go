package mavlink

import (
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
)

// A MAVLink vehicle's position is NED from its home: a local fence reads its y as east and x as
// north, a global one its latitude and longitude; a UAV GoTo's x/y (north/east of home) is
// checked against a local fence, its lat/lon against a global one, a Takeoff's altitude
// against the band; and the vehicle is the pose source when nothing else is.
func TestFenceOnAVehicle(t *testing.T) {
	hw := parse(t, "devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"udpin://:14540\"}\n")
	hi := 40.0
	// Local: 10 m east (x) by 40 m north (y) of home.
	local, err := drivers.CompileFence(&drivers.GeofenceConfig{Frame: "local", MaxAlt: &hi, AltKey: "uav.alt",
		Points: [][2]float64{{0, 0}, {10, 0}, {10, 40}, {0, 40}}}, hw, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	if local.PoseKey() != "uav" {
		t.Fatalf("pose key %q, want the vehicle's", local.PoseKey())
	}
	vals := map[string]float64{"uav.alt": 10}
	now := time.Unix(1000, 0)
	read := func(k string) (float64, time.Time, bool) { v, ok := vals[k]; return v, now, ok }
	m := drivers.NewFenceMonitor(local, read)
	vals["uav.x"], vals["uav.y"] = 30, 5 // 30 m north, 5 m east: inside
	if c := m.Check(now); c.State != drivers.FenceInside {
		t.Fatalf("30 m north, 5 m east: %+v", c)
	}
	vals["uav.x"], vals["uav.y"] = 5, 30 // 5 m north, 30 m east: outside (read as x, y it is inside)
	now = now.Add(time.Hour)
	if c := m.Check(now); c.State != drivers.FenceOutside {
		t.Fatalf("5 m north, 30 m east: %+v", c)
	}
	ps := local.CheckTrees(map[string]*bt.NodeDef{"main": {Type: "Sequence", Children: []*bt.NodeDef{
		{Type: "Takeoff", Params: map[string]any{"alt": 45.0}},
		{Type: "GoTo", Params: map[string]any{"x": 30.0, "y": 5.0, "alt": 10.0}},
		{Type: "GoTo", Params: map[string]any{"x": 5.0, "y": 30.0, "alt": 10.0}},
	}}})
	if len(ps) != 2 || ps[0].Path != "/trees/main/children/0/params/alt" || ps[1].Path != "/trees/main/children/2/params/x" ||
		!strings.Contains(ps[1].Message, "5.0 m north and 30.0 m east of home") {
		t.Fatalf("local fence, problems %v", ps)
	}

	// Global: the vehicle's latitude and longitude, placed around the fence's origin.
	o := drivers.GeoPoint{Lat: 47, Lon: 8}
	global, err := drivers.CompileFence(&drivers.GeofenceConfig{Frame: "global", Origin: &o,
		Points: [][2]float64{{46.999, 7.999}, {46.999, 8.001}, {47.001, 8.001}, {47.001, 7.999}}}, hw, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	m = drivers.NewFenceMonitor(global, read)
	vals["uav.lat"], vals["uav.lon"] = 47.0005, 8.0
	vals["uav.x"], vals["uav.y"] = 5000, 5000 // NED from a home elsewhere: not what a global fence reads
	now = now.Add(time.Hour)
	if c := m.Check(now); c.State != drivers.FenceInside {
		t.Fatalf("inside by lat/lon: %+v", c)
	}
	vals["uav.lat"] = 47.002
	now = now.Add(time.Hour)
	if c := m.Check(now); c.State != drivers.FenceOutside {
		t.Fatalf("outside by lat/lon: %+v", c)
	}
	ps = global.CheckTrees(map[string]*bt.NodeDef{"main": {Type: "Sequence", Children: []*bt.NodeDef{
		{Type: "GoTo", Params: map[string]any{"x": 5000.0, "y": 0.0, "alt": 10.0}}, // from home: known in flight only
		{Type: "GoTo", Params: map[string]any{"lat": 47.002, "lon": 8.0, "alt": 10.0}},
	}}})
	if len(ps) != 1 || ps[0].Path != "/trees/main/children/1/params/lat" {
		t.Fatalf("global fence, problems %v", ps)
	}
}

// The UAV leaves on an agent without a robot return ERROR and say why.
func TestLeavesSayWhy(t *testing.T) {
	cfg := parse(t, "devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"udpin://:14540\"}\n")
	params := map[string]kv{
		"Takeoff": {"alt": 5.0}, "GoTo": {"x": 1.0, "y": 1.0, "alt": 5.0}, "SetMode": {"mode": "hold"},
		"Yaw": {"heading_deg": 90.0}, "UploadMission": {"waypoints": []any{47.0, 8.0, 10.0}},
		"UploadPlan": {"mission": []any{map[string]any{"command": 16.0, "frame": 3.0, "x": 470000000.0, "y": 80000000.0, "z": 10.0}}},
	}
	leaves := kinds().Leaves(Kind)
	if len(leaves) < 10 {
		t.Fatalf("only %d UAV leaves: %v", len(leaves), leaves)
	}
	for _, leaf := range leaves {
		a := bt.NewAgent(compileTree(t, cfg, nd(leaf, "it", params[leaf])), 0, 0)
		s := &sink{}
		a.Sink = s // and no robot
		if st := a.Tick(1e6); st != bt.Error || !strings.Contains(s.String(), "the agent has no robot") {
			t.Errorf("%s without a robot: %v: %s", leaf, st, s)
		}
	}
}
