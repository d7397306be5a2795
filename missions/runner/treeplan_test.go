package runner

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
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
		if got := planGeometry(doc.Blackboard); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plan geometry\n%+v\nwant\n%+v", name, got, want)
		}
	}
	// A mission without them has none.
	if g := planGeometry(map[string]any{"speed": 2.0}); g != nil {
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
	g := planGeometry(bb)
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
	g = planGeometry(map[string]any{planFenceKey: map[string]any{"polygons": polys}})
	if len(g.Polygons) != 2 || g.LeftOut == nil || *g.LeftOut != (protocol.PlanLeftOut{Zones: 1, Corners: 5}) {
		t.Errorf("%d polygons, left out %+v", len(g.Polygons), g.LeftOut)
	}
	if raw, _ := json.Marshal(g); len(raw) > 64<<10 {
		t.Errorf("%d bytes of JSON", len(raw))
	}
}
