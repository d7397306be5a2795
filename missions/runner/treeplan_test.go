package runner

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/plan"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The keys the tree's plan geometry is read from are the plan import's.
func TestPlanKeysAreThePlans(t *testing.T) {
	if planHomeKey != plan.HomeKey || planFenceKey != plan.FenceKey || planRallyKey != plan.RallyKey {
		t.Errorf("keys %q %q %q, the plan import writes %q %q %q", planHomeKey, planFenceKey, planRallyKey, plan.HomeKey, plan.FenceKey, plan.RallyKey)
	}
}

// An imported plan's home, zones (named as the import names them, which is
// what a breach says) and rally points are on its tree, and stay there when
// the mission is sent on as botd JSON or YAML.
func TestPlanGeometryOfAPlan(t *testing.T) {
	data, err := os.ReadFile("../plan/testdata/fenced.plan")
	if err != nil {
		t.Fatal(err)
	}
	p, ps := plan.Parse(data, plan.Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	want := &protocol.PlanGeometry{Home: p.Home, Rally: p.Rally}
	for _, z := range p.Fence {
		if z.Polygon != nil {
			want.Polygons = append(want.Polygons, protocol.PlanPolygon{Name: z.Name, Inclusion: z.Inclusion, Points: z.Polygon})
		} else {
			want.Circles = append(want.Circles, protocol.PlanCircle{Name: z.Name, Inclusion: z.Inclusion, Center: z.Center, Radius: z.Radius})
		}
	}
	if len(want.Polygons) != 1 || len(want.Circles) != 1 || len(want.Rally) != 1 || want.Home == nil {
		t.Fatalf("fenced.plan changed: %+v", want)
	}
	doc, err := missions.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	asJSON, err := doc.JSON()
	if err != nil {
		t.Fatal(err)
	}
	asYAML, err := doc.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string][]byte{"plan": data, "botd JSON": asJSON, "botd YAML": asYAML} {
		doc, err := missions.Decode(d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := planGeometry(doc, nil); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plan geometry\n%+v\nwant\n%+v", name, got, want)
		}
	}
	// A mission without them has none.
	if g := planGeometry(&missions.Document{Blackboard: map[string]any{"speed": 2.0}}, nil); g != nil {
		t.Errorf("a blackboard without a plan: %+v", g)
	}
}

// Whatever a mission's blackboard holds, the geometry is at most about 60
// KB of JSON, and says what it left out; what is not a place on Earth is
// not drawn.
func TestPlanGeometryIsBounded(t *testing.T) {
	square := func(lat float64, n int) []any {
		pts := make([]any, n)
		for i := range pts {
			a := 2 * math.Pi * float64(i) / float64(n)
			pts[i] = []any{lat + 0.001*math.Sin(a), 8.5 + 0.001*math.Cos(a)}
		}
		return pts
	}
	var polys, circles, rally []any
	for i := range 100 {
		polys = append(polys, map[string]any{"inclusion": i == 0, "polygon": square(47+float64(i)*0.01, 30)})
		circles = append(circles, map[string]any{"inclusion": false, "circle": map[string]any{"center": []any{47.0, 8.0}, "radius": 10.0}})
	}
	polys = append(polys,
		map[string]any{"inclusion": true, "polygon": []any{[]any{95.0, 8.0}, []any{47.0, 8.0}, []any{47.0, 8.1}}}, // not on Earth
		map[string]any{"polygon": square(47, 3)}, // no inclusion
		"garbage")
	for range 300 {
		rally = append(rally, []any{47.0, 8.0, 20.0})
	}
	rally = append(rally, []any{47.0, math.NaN(), 20.0})
	bb := map[string]any{
		planHomeKey:  []any{47.0, 8.0, math.Inf(1)},
		planFenceKey: map[string]any{"polygons": polys, "circles": circles},
		planRallyKey: rally,
	}
	g := planGeometry(&missions.Document{Blackboard: bb}, nil)
	corners := 0
	for _, p := range g.Polygons {
		corners += len(p.Points)
	}
	if g.Home != nil || len(g.Polygons)+len(g.Circles) != protocol.MaxPlanZones || corners > protocol.MaxPlanCorners || len(g.Rally) != protocol.MaxPlanRally {
		t.Errorf("home %v, %d polygons (%d corners), %d circles, %d rally points", g.Home, len(g.Polygons), corners, len(g.Circles), len(g.Rally))
	}
	// 64 polygons of 30 corners would be 1,920: all zones are polygons.
	if want := (protocol.PlanLeftOut{Zones: 36 + 100, Corners: 36 * 30, Rally: 200}); g.LeftOut == nil || *g.LeftOut != want {
		t.Errorf("left out %+v, want %+v", g.LeftOut, want)
	}
	if g.Polygons[0].Name != "geoFence polygon 0 (inclusion)" || g.Polygons[1].Name != "geoFence polygon 1 (exclusion)" {
		t.Errorf("names %q %q", g.Polygons[0].Name, g.Polygons[1].Name)
	}
	raw, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 64<<10 {
		t.Errorf("%d bytes of JSON", len(raw))
	}
	// The longest polygons (1,000 corners, the import's bound) leave room
	// for one more: 2 of 3, the third left out whole.
	polys = []any{map[string]any{"inclusion": true, "polygon": square(47, 1000)}, map[string]any{"inclusion": false, "polygon": square(47, 1000)},
		map[string]any{"inclusion": false, "polygon": square(47, 5)}}
	g = planGeometry(&missions.Document{Blackboard: map[string]any{planFenceKey: map[string]any{"polygons": polys}}}, nil)
	if len(g.Polygons) != 2 || g.LeftOut == nil || *g.LeftOut != (protocol.PlanLeftOut{Zones: 1, Corners: 5}) {
		t.Errorf("%d polygons, left out %+v", len(g.Polygons), g.LeftOut)
	}
	if raw, _ := json.Marshal(g); len(raw) > 64<<10 {
		t.Errorf("%d bytes of JSON", len(raw))
	}
}

// A plan the autopilot flies has no waypoints in its nodes (UploadPlan
// hands the items over, RunMission flies them): the items that fly to a
// place are on the tree, each with its number in the mission the vehicle
// gets, which its MISSION_CURRENT counts.
func TestPlanGeometryOfAnAutopilotPlan(t *testing.T) {
	data, err := os.ReadFile("../plan/testdata/fenced.plan")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	raw["fly"] = "autopilot"
	// A mission item without a place between the waypoints: it keeps its number.
	mission := raw["mission"].(map[string]any)
	items := mission["items"].([]any)
	speed := map[string]any{"type": "SimpleItem", "autoContinue": true, "command": 178.0, "doJumpId": 9.0, "frame": 2.0, "params": []any{1.0, 5.0, -1.0, 0.0, 0.0, 0.0, 0.0}}
	mission["items"] = append([]any{items[0], items[1], speed}, items[2:]...)
	data, _ = json.Marshal(raw)
	doc, err := missions.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	nodes := []protocol.TreeNode{{Path: "/trees/main"}}
	for i := range doc.Trees["main"].Children {
		nodes = append(nodes, protocol.TreeNode{Path: "/trees/main/children/" + strconv.Itoa(i)})
	}
	g := planGeometry(doc, nodes)
	want := []protocol.PlanItem{{Seq: 0, Lat: 47.397742, Lon: 8.545594}, {Seq: 1, Lat: 47.3985, Lon: 8.546}, {Seq: 3, Lat: 47.398, Lon: 8.544}}
	if g == nil || !reflect.DeepEqual(g.Mission, want) || len(g.Polygons) != 1 || len(g.Circles) != 1 || len(g.Rally) != 1 {
		t.Fatalf("plan geometry %+v, want the mission %+v and the fence", g, want)
	}
	// Bounded: the first 1,000 items, the rest counted.
	many := make([]any, 3000)
	for i := range many {
		many[i] = map[string]any{"command": 16.0, "frame": 3.0, "x": 473977420.0, "y": 85455940.0, "z": 10.0}
	}
	doc.Trees["main"].Children[1].Params["mission"] = many
	g = planGeometry(doc, nodes)
	if len(g.Mission) != protocol.MaxPlanMission || g.Mission[999].Seq != 999 || g.LeftOut == nil || g.LeftOut.Mission != 2000 {
		t.Errorf("%d items, left out %+v", len(g.Mission), g.LeftOut)
	}
	if raw, _ := json.Marshal(g); len(raw) > 64<<10 {
		t.Errorf("%d bytes of JSON", len(raw))
	}
	// A mission parameter that is not a list of mission items is no plan.
	doc.Trees["main"].Children[1].Params["mission"] = []any{"patrol", 3.0}
	if g = planGeometry(doc, nodes); g == nil || g.Mission != nil {
		t.Errorf("plan geometry %+v", g)
	}
}

// What the tree's plan costs at a mission's start (never per tick): the
// fenced plan's geometry with 5,000 mission items handed to an autopilot.
func BenchmarkPlanGeometry(b *testing.B) {
	data, err := os.ReadFile("../plan/testdata/fenced.plan")
	if err != nil {
		b.Fatal(err)
	}
	doc, err := missions.Decode(data)
	if err != nil {
		b.Fatal(err)
	}
	items := make([]any, 5000)
	for i := range items {
		items[i] = map[string]any{"command": 16.0, "frame": 3.0, "x": 473977420.0 + float64(i), "y": 85455940.0, "z": 10.0}
	}
	doc.Trees["main"].Children[0].Params = map[string]any{"mission": items}
	nodes := []protocol.TreeNode{{Path: "/trees/main"}}
	for i := range doc.Trees["main"].Children {
		nodes = append(nodes, protocol.TreeNode{Path: "/trees/main/children/" + strconv.Itoa(i)})
	}
	b.ReportAllocs()
	for b.Loop() {
		if g := planGeometry(doc, nodes); len(g.Mission) != protocol.MaxPlanMission {
			b.Fatalf("%d items", len(g.Mission))
		}
	}
}
