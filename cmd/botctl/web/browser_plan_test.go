package web

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// fencedPlan is missions/plan/testdata/fenced.plan as the tree topic
// carries it: an inclusion square around home, an exclusion circle of 30 m
// north-east of home, a rally point east of it.
func fencedPlan() *protocol.PlanGeometry {
	return &protocol.PlanGeometry{
		Home: &[3]float64{47.397742, 8.545594, 488},
		Polygons: []protocol.PlanPolygon{{Name: "geoFence polygon 0 (inclusion)", Inclusion: true,
			Points: [][2]float64{{47.395742, 8.543594}, {47.395742, 8.547594}, {47.399742, 8.547594}, {47.399742, 8.543594}}}},
		Circles: []protocol.PlanCircle{{Name: "geoFence circle 0 (exclusion)", Center: [2]float64{47.399, 8.547}, Radius: 30}},
		Rally:   [][3]float64{{47.3972, 8.547, 15}},
	}
}

// planTree is the tree botd generates for fenced.plan (missions/plan):
// nodes 4 and 5 fly to its two waypoints.
func planTree(mission string, g *protocol.PlanGeometry) protocol.TreeMsg {
	wp := func(lat, lon float64) *protocol.Goal { return &protocol.Goal{Frame: "global", X: lon, Y: lat} }
	nodes := []protocol.TreeNode{
		{Index: 0, Type: "MemSequence", Name: "plan", Parent: -1},
		{Index: 1, Type: "GpsFix", Name: "preflight: GPS fix"},
		{Index: 2, Type: "Arm", Name: "preflight: arm"},
		{Index: 3, Type: "Takeoff", Name: "item 0: NAV_TAKEOFF (22)"},
		{Index: 4, Type: "GoTo", Name: "item 1: NAV_WAYPOINT (16)", Goal: wp(47.3985, 8.546)},
		{Index: 5, Type: "GoTo", Name: "item 2: NAV_WAYPOINT (16)", Goal: wp(47.398, 8.544)},
		{Index: 6, Type: "ReturnHome", Name: "item 3: NAV_RETURN_TO_LAUNCH (20)"},
	}
	return protocol.TreeMsg{Header: hdr("rover-1", 1), TreeInfo: protocol.TreeInfo{Mission: mission, Nodes: nodes, Plan: g}}
}

// The map draws the open robot's flight plan as SVG over the canvas: the
// inclusion polygon, the exclusion circle (its radius in metres at the
// map's scale), the rally point, the home, the waypoints and the path; the
// current waypoint's marker follows the node statuses. A plan over the
// bounds is drawn bounded and says so; the layer takes no clicks.
func TestBrowserPlanLayer(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	f.live = true
	p := fakePage(t, f)
	h := f.h(t, "rover-1")
	h.Tree(planTree("m-1", fencedPlan()))
	h.Status(keyframe("rover-1", "m-1", 1, "RSSSRII"))

	const zones = `document.querySelectorAll('#map-plan-zones > *')`
	p.wait("the plan on the map", zones+`.length === 2 && document.querySelectorAll('#map-plan-waypoints rect').length === 2`)
	if fr := p.eval(`window.BotdMap.frame()`); fr != "global" {
		t.Errorf("frame %q: a plan is drawn in lat/lon", fr)
	}
	got := p.eval(`(() => {
	  const poly = document.querySelector('#map-plan-zones polygon[data-kind="polygon"][data-inclusion="true"]');
	  const circ = document.querySelector('#map-plan-zones circle[data-kind="circle"][data-inclusion="false"]');
	  return [poly && poly.dataset.zone, poly && poly.getAttribute('points').trim().split(/\s+/).length,
	    circ && circ.dataset.zone, document.querySelectorAll('#map-plan-rally polygon.rally').length,
	    document.querySelectorAll('#map-plan-home').length, document.getElementById('map-plan-path').dataset.points].join('|'); })()`)
	if want := "geoFence polygon 0 (inclusion)|4|geoFence circle 0 (exclusion)|1|1|2"; got != want {
		t.Errorf("plan layer %q, want %q", got, want)
	}
	// Where the shapes are: the circle north-east of home inside the
	// square, its radius 30 m of the square's 0.004° (445 m) of latitude;
	// the first waypoint north of home, the rally point east.
	geo := p.eval(`(() => {
	  const num = (e, a) => Number(e.getAttribute(a));
	  const pts = document.querySelector('#map-plan-zones polygon').getAttribute('points').trim().split(/\s+/).map((s) => s.split(',').map(Number));
	  const ys = pts.map((p) => p[1]), xs = pts.map((p) => p[0]);
	  const c = document.querySelector('#map-plan-zones circle'), hm = document.getElementById('map-plan-home');
	  const wp = document.querySelector('#map-plan-waypoints rect[data-n="1"]');
	  const r = document.querySelector('#map-plan-rally polygon').getAttribute('points').trim().split(/\s+/).map((s) => s.split(',').map(Number));
	  return JSON.stringify({x0: Math.min(...xs), x1: Math.max(...xs), y0: Math.min(...ys), y1: Math.max(...ys),
	    cx: num(c, 'cx'), cy: num(c, 'cy'), r: num(c, 'r'), hx: num(hm, 'cx'), hy: num(hm, 'cy'),
	    wy: num(wp, 'y') + 3.5, rx: (r[1][0] + r[3][0]) / 2}); })()`)
	var g struct{ X0, X1, Y0, Y1, Cx, Cy, R, Hx, Hy, Wy, Rx float64 }
	if err := json.Unmarshal([]byte(geo), &g); err != nil {
		t.Fatalf("%v: %s", err, geo)
	}
	if !(g.X0 < g.Hx && g.Hx < g.Cx && g.Cx < g.X1 && g.Y0 < g.Cy && g.Cy < g.Hy && g.Hy < g.Y1) {
		t.Errorf("the circle is not north-east of home inside the square: %s", geo)
	}
	if want := 30 / (0.004 * 111320) * (g.Y1 - g.Y0); math.Abs(g.R-want) > 0.05*want+0.2 {
		t.Errorf("circle radius %.1f px, want %.1f (30 m at the square's scale)", g.R, want)
	}
	if !(g.Wy < g.Hy && g.Rx > g.Hx) {
		t.Errorf("waypoint 1 not north of home, or the rally point not east: %s", geo)
	}

	// The progress follows the statuses: waypoint 1's node runs, then it
	// succeeds and waypoint 2's runs, then the return (no waypoint).
	const cur = `document.getElementById('map-plan-current')`
	p.wait("waypoint 1 current", cur+`.getAttribute('visibility') === 'visible' && `+cur+`.dataset.n === '1' && `+cur+`.dataset.node === '4'`)
	x1 := p.eval(cur + `.getAttribute('cx') + ',' + ` + cur + `.getAttribute('cy')`)
	h.Status(delta("rover-1", "m-1", 2, protocol.NodeStatus{Node: 4, Status: 'S'}, protocol.NodeStatus{Node: 5, Status: 'R'}))
	p.wait("waypoint 2 current, 1 reached", cur+`.dataset.n === '2' && document.getElementById('map-plan').dataset.reached === '1' &&
	  document.querySelector('#map-plan-waypoints rect[data-n="1"]').classList.contains('reached')`)
	if x2 := p.eval(cur + `.getAttribute('cx') + ',' + ` + cur + `.getAttribute('cy')`); x2 == x1 {
		t.Errorf("the current marker stayed at %s", x1)
	}
	if info := p.eval(`document.getElementById('map-plan-info').textContent`); !strings.Contains(info, "plan: 2 zones, 1 rally point") || !strings.Contains(info, "1/2 waypoints reached · now 2: item 2: NAV_WAYPOINT (16)") {
		t.Errorf("info line %q", info)
	}
	// A breach naming a zone of this mission marks it; one of another
	// mission does not.
	breach := func(seq uint64, mission, zone string) {
		h.Event(protocol.EventMsg{Header: hdr("rover-1", seq), ID: fmt.Sprint("b", seq), Event: protocol.Event{Time: time.Now().UTC(), Kind: "geofence.breach", Level: "error",
			Mission: mission, Message: "about to breach zone " + zone, Data: map[string]any{"zone": zone, "action": "return_home"}}})
	}
	breach(1, "m-0", "geoFence polygon 0 (inclusion)")
	breach(2, "m-1", "geoFence circle 0 (exclusion)")
	p.wait("the breached circle marked", `document.querySelector('#map-plan-zones circle').dataset.breached === 'true'`)
	if b := p.eval(`document.querySelector('#map-plan-zones polygon').classList.contains('breached') + ' ' + document.querySelector('#map-plan-zones circle').querySelector('title').textContent`); b != "false geoFence circle 0 (exclusion): 30 m\nbreached: about to breach zone geoFence circle 0 (exclusion)" {
		t.Errorf("breach marks: %q", b)
	}
	if info := p.eval(`document.getElementById('map-plan-info').textContent`); !strings.HasSuffix(info, " · breached: geoFence circle 0 (exclusion)") {
		t.Errorf("info line %q", info)
	}
	p.shot("dashboard-plan.png")
	h.Status(delta("rover-1", "m-1", 3, protocol.NodeStatus{Node: 5, Status: 'S'}, protocol.NodeStatus{Node: 6, Status: 'R'}))
	p.wait("no current waypoint on the return", cur+`.getAttribute('visibility') === 'hidden' && document.getElementById('map-plan').dataset.reached === '2'`)

	// The layer takes no clicks: the map under it does (a click on a robot opens it).
	if id := p.eval(`(() => { const b = document.getElementById('map').getBoundingClientRect();
	  return document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2).id; })()`); id != "map" {
		t.Errorf("the element under the map's centre is %q, want the canvas", id)
	}

	// A plan over the bounds (anyone may publish a tree) is drawn bounded,
	// and the line under the map says what is not shown.
	big := &protocol.PlanGeometry{}
	for i := range 100 {
		pts := make([][2]float64, 30)
		for k := range pts {
			a := 2 * math.Pi * float64(k) / 30
			pts[k] = [2]float64{47.39 + 0.0005*float64(i%10) + 0.0002*math.Sin(a), 8.54 + 0.0005*float64(i/10) + 0.0002*math.Cos(a)}
		}
		big.Polygons = append(big.Polygons, protocol.PlanPolygon{Name: "p" + strconv.Itoa(i), Points: pts})
	}
	for range 300 {
		big.Rally = append(big.Rally, [3]float64{47.39, 8.54, 10})
	}
	h.Tree(planTree("m-2", big))
	p.wait("the bounded plan", zones+`.length === 64 && document.querySelectorAll('#map-plan-rally polygon').length === 100`)
	if info := p.eval(`document.getElementById('map-plan-info').textContent`); !strings.Contains(info, fmt.Sprintf("%d zones (%d corners) and %d rally points not shown", 36, 36*30, 200)) {
		t.Errorf("info line %q", info)
	}

	// A mission of 5,000 waypoints (the robot's bound on nodes) with the
	// fenced plan: how long a draw that rebuilds the layer takes (logged:
	// a measure, not an assertion).
	many := planTree("m-3", fencedPlan())
	many.Nodes = many.Nodes[:4]
	for i := range 5000 {
		a := 2 * math.Pi * float64(i) / 5000
		many.Nodes = append(many.Nodes, protocol.TreeNode{Index: int32(4 + i), Type: "GoTo", Name: fmt.Sprint("item ", i+1), Parent: 0,
			Goal: &protocol.Goal{Frame: "global", X: 8.545594 + 0.0015*math.Cos(a), Y: 47.397742 + 0.0015*math.Sin(a)}})
	}
	h.Tree(many)
	h.Status(keyframe("rover-1", "m-3", 4, "RSSS"+strings.Repeat("S", 2500)+"R"+strings.Repeat("I", 2499)))
	p.wait("5,000 waypoints", `document.querySelectorAll('#map-plan-waypoints rect').length === 5000 && document.getElementById('map-plan-current').dataset.n === '2501'`)
	first := p.eval(`JSON.stringify(window.BotdMap.stats())`)
	p.eval(`(() => { const c = document.getElementById('map'); window.__draws = window.BotdMap.stats().draws;
	  c.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: c.getBoundingClientRect().left + 50, clientY: c.getBoundingClientRect().top + 50, bubbles: true }));
	  return ''; })()`)
	p.wait("the zoomed redraw", `window.BotdMap.stats().draws > window.__draws`)
	t.Logf("5,000 waypoints with the plan: the draw that set the progress %s; one after a zoom %s (ms)", first, p.eval(`JSON.stringify(window.BotdMap.stats())`))
	p.noProblems()
}

// A plan the autopilot flies: the tree's nodes give no waypoints (the
// items are handed over), the plan's mission items do, and the current
// marker follows the vehicle's MISSION_CURRENT on the blackboard
// (uav.mission_item): items before it reached, items without a place
// (a speed change) counted but not drawn.
func TestBrowserPlanLayerAutopilot(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	f.live = true
	p := fakePage(t, f)
	h := f.h(t, "rover-1")
	g := fencedPlan()
	g.Mission = []protocol.PlanItem{{Seq: 0, Lat: 47.397742, Lon: 8.545594}, {Seq: 1, Lat: 47.3985, Lon: 8.546}, {Seq: 3, Lat: 47.398, Lon: 8.544}}
	tree := protocol.TreeMsg{Header: hdr("rover-1", 1), TreeInfo: protocol.TreeInfo{Mission: "m-1", Plan: g, Nodes: []protocol.TreeNode{
		{Index: 0, Type: "MemSequence", Name: "plan (flown by the autopilot)", Parent: -1},
		{Index: 1, Type: "GpsFix", Name: "preflight: GPS fix"},
		{Index: 2, Type: "UploadPlan", Name: "upload: 5 mission, 5 fence, 1 rally items"},
		{Index: 3, Type: "Arm", Name: "preflight: arm"},
		{Index: 4, Type: "RunMission", Name: "the autopilot flies the plan"},
	}}}
	h.Tree(tree)
	h.Status(keyframe("rover-1", "m-1", 1, "RSSSR"))
	item := func(seq uint64, n float64) {
		h.Blackboard(protocol.BlackboardMsg{Header: hdr("rover-1", seq), Mission: "m-1", Full: true,
			Values: []protocol.BlackboardValue{{Key: "uav.mission_item", Value: n}, {Key: "uav.alt", Value: 10.0}}})
	}
	const cur = `document.getElementById('map-plan-current')`
	p.wait("the mission items on the map", `document.querySelectorAll('#map-plan-waypoints rect[data-seq]').length === 3 && document.querySelectorAll('#map-plan-zones > *').length === 2`)
	if v := p.eval(cur + `.getAttribute('visibility')`); v != "hidden" {
		t.Errorf("a current item before the vehicle says one: %s", v)
	}
	item(1, 1)
	p.wait("item 1 current, item 0 reached", cur+`.getAttribute('visibility') === 'visible' && `+cur+`.dataset.seq === '1' && document.getElementById('map-plan').dataset.reached === '1'`)
	item(2, 2) // the speed change: no place, nothing current, items 0 and 1 reached
	p.wait("no place for item 2", cur+`.getAttribute('visibility') === 'hidden' && document.getElementById('map-plan').dataset.reached === '2'`)
	item(3, 3)
	p.wait("item 3 current", cur+`.dataset.seq === '3' && `+cur+`.dataset.n === '3'`)
	if info := p.eval(`document.getElementById('map-plan-info').textContent`); !strings.Contains(info, "flown by the autopilot") || !strings.Contains(info, "2/3 waypoints reached · now 3: mission item 3") {
		t.Errorf("info line %q", info)
	}
	p.noProblems()
}
