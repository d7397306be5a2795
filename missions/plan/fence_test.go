package plan

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/drivers/geofence"
)

// withFence is a plan with a take-off at home and the given geoFence
// polygons and circles and rally points (JSON lists).
func withFence(polygons, circles, points string) []byte {
	s := string(qgc(takeoff))
	s = strings.Replace(s, `"polygons": []`, `"polygons": [`+polygons+`]`, 1)
	s = strings.Replace(s, `"circles": []`, `"circles": [`+circles+`]`, 1)
	return []byte(strings.Replace(s, `"points": []`, `"points": [`+points+`]`, 1))
}

const (
	// around home (47.397742, 8.545594), about 220 m north and south, 150 m east and west
	keepIn  = `{"inclusion": true, "polygon": [[47.395742,8.543594],[47.395742,8.547594],[47.399742,8.547594],[47.399742,8.543594]], "version": 1}`
	keepOut = `{"circle": {"center": [47.399, 8.547], "radius": 30}, "inclusion": false, "version": 1}`
)

// A plan's geoFence and rally points are imported: polygons, then circles,
// each named; the rally points with their altitudes above home.
func TestFenceImport(t *testing.T) {
	p := parseFile(t, "testdata/fenced.plan")
	want := []Zone{
		{Name: "geoFence polygon 0 (inclusion)", Path: "/geoFence/polygons/0", Inclusion: true,
			Polygon: [][2]float64{{47.395742, 8.543594}, {47.395742, 8.547594}, {47.399742, 8.547594}, {47.399742, 8.543594}}},
		{Name: "geoFence circle 0 (exclusion)", Path: "/geoFence/circles/0", Center: [2]float64{47.399, 8.547}, Radius: 30},
	}
	if !reflect.DeepEqual(p.Fence, want) {
		t.Errorf("fence %+v, want %+v", p.Fence, want)
	}
	if !reflect.DeepEqual(p.Rally, [][3]float64{{47.3972, 8.547, 15}}) {
		t.Errorf("rally %v", p.Rally)
	}
	bb := p.Blackboard()
	if bb[FenceKey] == nil || bb[RallyKey] == nil || bb[HomeKey] == nil {
		t.Fatalf("blackboard %v", bb)
	}
	zs, rally, err := FenceFrom(bb, p.Home)
	if err != nil || !reflect.DeepEqual(rally, p.Rally) || len(zs) != 2 || zs[0].Name != want[0].Name || zs[1].Radius != 30 {
		t.Errorf("from the blackboard: %+v %v %v", zs, rally, err)
	}
	// On the plane around home: the keep-in square's east edge is 150.6 m
	// from home, the keep-out circle's edge 145.6 m (its centre 140.3 m
	// north and 105.9 m east, 30 m radius).
	local := LocalZones(p.Fence, geofence.LatLon{Lat: p.Home[0], Lon: p.Home[1]})
	d, at := local.Clearance(0, 0, 0)
	if at != 1 || math.Abs(d-145.6) > 0.5 {
		t.Errorf("home: clearance %.2f m at zone %d", d, at)
	}
	cx, cy := (geofence.LatLon{Lat: p.Home[0], Lon: p.Home[1]}).ToLocal(47.399, 8.547)
	if v := local.Check(cx, cy, 10, 0, 0.5, 1); v.State != geofence.Outside || local[v.Zone].Name != "geoFence circle 0 (exclusion)" || math.Abs(v.Clearance+30) > 1e-6 {
		t.Errorf("at the circle's centre: %+v", v)
	}
	// A plan without a fence has none, and its blackboard only the home.
	p = parseFile(t, "testdata/short.plan")
	if p.Fence != nil || p.Rally != nil || len(p.Blackboard()) != 1 {
		t.Errorf("short.plan: %v %v %v", p.Fence, p.Rally, p.Blackboard())
	}
}

// Bad geometry is refused, located at the zone or the corner.
func TestFenceHostile(t *testing.T) {
	many := func(n int, z string) string { return strings.TrimSuffix(strings.Repeat(z+",", n), ",") }
	var ring []string
	for k := range geofence.MaxPoints + 1 {
		a := 2 * math.Pi * float64(k) / float64(geofence.MaxPoints+1)
		ring = append(ring, fmt.Sprintf("[%.7f,%.7f]", 47.397742+0.001*math.Sin(a), 8.545594+0.001*math.Cos(a)))
	}
	for _, tc := range []struct {
		name                      string
		polygons, circles, points string
		want                      string
	}{
		{"nan corner", `{"inclusion": true, "polygon": [[47.39,8.54],[null,8.55],[47.40,8.55]], "version": 1}`, "", "",
			"/geoFence/polygons/0/polygon/1: geoFence polygon 0 (inclusion): corner 1: [null, 8.55] is not a latitude and longitude on Earth"},
		{"off the Earth", `{"inclusion": true, "polygon": [[47.39,8.54],[91,8.55],[47.40,8.55]], "version": 1}`, "", "",
			"/geoFence/polygons/0/polygon/1: geoFence polygon 0 (inclusion): corner 1: [91, 8.55]"},
		{"two corners", `{"inclusion": false, "polygon": [[47.39,8.54],[47.40,8.55]], "version": 1}`, "", "",
			"/geoFence/polygons/0/polygon: geoFence polygon 0 (exclusion): 2 corners: a polygon has at least 3"},
		{"bow tie", `{"inclusion": false, "polygon": [[47.399,8.540],[47.400,8.541],[47.400,8.540],[47.399,8.541]], "version": 1}`, "", "",
			"/geoFence/polygons/0/polygon/2: geoFence polygon 0 (exclusion): edge 0 (corners 0-1) crosses edge 2 (corners 2-3): the polygon intersects itself"},
		{"too many corners", `{"inclusion": true, "polygon": [` + strings.Join(ring, ",") + `], "version": 1}`, "", "",
			"/geoFence/polygons/0/polygon: geoFence polygon 0 (inclusion): 1001 corners, above the limit of 1000"},
		{"zero radius", "", `{"circle": {"center": [47.399, 8.547], "radius": 0}, "inclusion": false, "version": 1}`, "",
			"/geoFence/circles/0/circle/radius: geoFence circle 0 (exclusion): a radius of 0 m: above 0 and at most 100000 m"},
		{"negative radius", "", `{"circle": {"center": [47.399, 8.547], "radius": -5}, "inclusion": false, "version": 1}`, "", "a radius of -5 m"},
		{"nan centre", "", `{"circle": {"center": [null, 8.547], "radius": 5}, "inclusion": false, "version": 1}`, "",
			"/geoFence/circles/0/circle/center: geoFence circle 0 (exclusion): the centre [null, 8.547]"},
		{"no inclusion flag", "", `{"circle": {"center": [47.399, 8.547], "radius": 5}, "version": 1}`, "", "/geoFence/circles/0/inclusion: circle 0: inclusion is missing"},
		{"circle version", "", `{"circle": {"center": [47.399, 8.547], "radius": 5}, "inclusion": false, "version": 7}`, "", "/geoFence/circles/0/version: geoFence circle 0 (exclusion): version 7 is not supported"},
		{"home in a keep-out circle", "", `{"circle": {"center": [47.397742, 8.545594], "radius": 20}, "inclusion": false, "version": 1}`, "",
			"/geoFence/circles/0: geoFence circle 0 (exclusion) leaves the plan's home (47.397742, 8.545594) outside, by 20.0 m"},
		{"home outside a keep-in circle", keepIn, `{"circle": {"center": [47.399, 8.547], "radius": 50}, "inclusion": true, "version": 1}`, "",
			"/geoFence/circles/0: geoFence circle 0 (inclusion) leaves the plan's home"},
		{"too many zones", many(geofence.MaxZones+1, keepIn), "", "", "/geoFence: 65 zones, above the limit of 64"},
		{"nan rally", "", "", `[47.39, null, 10]`, "/rallyPoints/points/0: rally point 0: [47.39, null, 10] is not a latitude, longitude and altitude on Earth"},
		{"rally without altitude", "", "", `[47.39, 8.54]`, "/rallyPoints/points/0: rally point 0: [47.39, 8.54] is not"},
		{"rally below home", "", "", `[47.39, 8.54, -3]`, "/rallyPoints/points/0: rally point 0: the altitude is 3 m below home"},
		{"too many rally points", "", "", many(101, `[47.39, 8.54, 10]`), "/rallyPoints/points: 101 rally points, above the limit of 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := importPlan(withFence(tc.polygons, tc.circles, tc.points), Limits{}); !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	bad := strings.Replace(string(withFence(keepIn, "", "")), `"geoFence": {"circles": [], `, `"geoFence": {"circles": [], "version": 3, `, 1)
	bad = strings.Replace(bad, `"version": 2}, "rallyPoints"`, `"x": 0}, "rallyPoints"`, 1)
	if got := importPlan([]byte(bad), Limits{}); !strings.Contains(got, "/geoFence/version: geoFence version 3 is not supported") {
		t.Errorf("geoFence version 3: %q", got)
	}
	// A good fence and rally point import.
	if got := importPlan(withFence(keepIn, keepOut, `[47.3972, 8.547, 15]`), Limits{}); got != "" {
		t.Errorf("a good fence: %s", got)
	}
}

// The blackboard's fence is checked as the import checks it (a mission
// sent as botd JSON, exported as a plan).
func TestFenceFromBlackboard(t *testing.T) {
	home := &[3]float64{47.397742, 8.545594, 488}
	for _, tc := range []struct {
		bb   map[string]any
		want string
	}{
		{map[string]any{FenceKey: map[string]any{"circles": []any{map[string]any{"inclusion": false, "circle": map[string]any{"center": []any{47.397742, 8.545594}, "radius": 10.0}}}}},
			"/blackboard/plan.fence/circles/0: geoFence circle 0 (exclusion) leaves the plan's home"},
		{map[string]any{FenceKey: "a fence"}, "/blackboard/plan.fence: json: cannot unmarshal"},
		{map[string]any{RallyKey: []any{[]any{1.0}}}, "/blackboard/plan.rally/points/0: rally point 0: [1] is not"},
	} {
		if _, _, err := FenceFrom(tc.bb, home); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.bb, err, tc.want)
		}
	}
}

// An item that flies where the plan's own zones forbid is refused, naming
// the item and the zone.
func TestItemsInZones(t *testing.T) {
	plan := func(items ...string) []byte {
		s := string(qgc(items...))
		s = strings.Replace(s, `"polygons": []`, `"polygons": [`+keepIn+`]`, 1)
		return []byte(strings.Replace(s, `"circles": []`, `"circles": [`+keepOut+`]`, 1))
	}
	if got := importPlan(plan(takeoff, wp), Limits{}); got != "" {
		t.Fatalf("inside: %s", got)
	}
	for _, c := range []struct{ item, want string }{
		{simple(16, 3, "0,0,0,null,47.399,8.547,10"), "/mission/items/1: item 1: MAV_CMD_NAV_WAYPOINT (16): (47.399, 8.547) is outside geoFence circle 0 (exclusion), by 30.0 m"},
		{simple(19, 3, "5,0,0,null,47.3975,8.5500,10"), "/mission/items/1: item 1: MAV_CMD_NAV_LOITER_TIME (19): (47.3975, 8.55) is outside geoFence polygon 0 (inclusion), by 181."},
		{simple(21, 3, "0,0,0,null,47.3900,8.5456,0"), "item 1: MAV_CMD_NAV_LAND (21): (47.39, 8.5456) is outside geoFence polygon 0 (inclusion)"},
	} {
		if got := importPlan(plan(takeoff, c.item), Limits{}); !strings.Contains(got, c.want) {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
