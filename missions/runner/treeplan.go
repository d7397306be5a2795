package runner

import (
	"math"
	"strconv"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The blackboard keys an imported flight plan keeps its home, geoFence and
// rally points under, in the plan's own layout (missions/plan's HomeKey,
// FenceKey and RallyKey; treeplan_test.go keeps them equal).
const (
	planHomeKey  = "plan.home"
	planFenceKey = "plan.fence"
	planRallyKey = "plan.rally"
)

// planGeometry is what the tree topic carries of a mission's flight plan
// for a ground station's map: the home, zones and rally points the
// document's initial blackboard holds (a QGroundControl plan's, or a
// mission that kept them when it was sent on as botd JSON), and the items
// that fly to a place of the first of its nodes that hands a mission to
// an autopilot; nil when there are none. What is not a place on Earth is
// left out: the map draws, it does not check (the plan's import and the
// fence do). The work is bounded by the document's limits, the result by
// PlanGeometry.Bound.
func planGeometry(doc *missions.Document, nodes []protocol.TreeNode) *protocol.PlanGeometry {
	g := planFromBlackboard(doc.Blackboard)
	for _, n := range nodes {
		def := missions.DefAt(doc, n.Path)
		if def == nil {
			continue
		}
		if items, ok := def.Params["mission"].([]any); ok {
			var more int
			if g.Mission, more = autopilotItems(items); g.Mission != nil {
				if more > 0 {
					g.LeftOut = &protocol.PlanLeftOut{Mission: more}
				}
				break
			}
		}
	}
	if g.Home == nil && len(g.Polygons) == 0 && len(g.Circles) == 0 && len(g.Rally) == 0 && len(g.Mission) == 0 {
		return nil
	}
	g.Bound()
	return g
}

// Mission items as a node's `mission` parameter holds them (MAVLink's
// MISSION_ITEM_INT: command, frame, x and y in degrees x 1e7): the
// commands that fly to a place, and the frame whose x and y are not one.
var placeCommands = map[float64]bool{
	16: true, // MAV_CMD_NAV_WAYPOINT
	17: true, // MAV_CMD_NAV_LOITER_UNLIM
	18: true, // MAV_CMD_NAV_LOITER_TURNS
	19: true, // MAV_CMD_NAV_LOITER_TIME
	21: true, // MAV_CMD_NAV_LAND (at a place when it gives one)
	22: true, // MAV_CMD_NAV_TAKEOFF
}

const frameMission = 2 // MAV_FRAME_MISSION: x and y are not a place

// autopilotItems are the first MaxPlanMission items of a mission for an
// autopilot that fly to a place, each with its number in the list, and how
// many more there are; nil when the list is not one of mission items.
func autopilotItems(items []any) ([]protocol.PlanItem, int) {
	var out []protocol.PlanItem
	more := 0
	for seq, raw := range items {
		it, ok := raw.(map[string]any)
		if !ok {
			return nil, 0
		}
		cmd, okC := number(it["command"])
		frame, okF := number(it["frame"])
		x, okX := number(it["x"])
		y, okY := number(it["y"])
		if !okC || !okF || !okX || !okY {
			return nil, 0
		}
		switch {
		case !placeCommands[cmd] || frame == frameMission || x == 0 && y == 0 || !onEarth(x/1e7, y/1e7):
		case len(out) >= protocol.MaxPlanMission:
			more++
		default:
			out = append(out, protocol.PlanItem{Seq: seq, Lat: x / 1e7, Lon: y / 1e7})
		}
	}
	if out == nil {
		out = []protocol.PlanItem{}
	}
	return out, more
}

// planFromBlackboard reads the plan's home, zones and rally points.
func planFromBlackboard(bb map[string]any) *protocol.PlanGeometry {
	g := &protocol.PlanGeometry{}
	if h, ok := bb[planHomeKey].([]any); ok && len(h) == 3 {
		lat, okLat := number(h[0])
		lon, okLon := number(h[1])
		alt, okAlt := number(h[2])
		if okLat && okLon && okAlt && onEarth(lat, lon) {
			g.Home = &[3]float64{lat, lon, alt}
		}
	}
	if f, ok := bb[planFenceKey].(map[string]any); ok {
		polys, _ := f["polygons"].([]any)
		for i, p := range polys {
			m, _ := p.(map[string]any)
			incl, ok := m["inclusion"].(bool)
			pts, _ := m["polygon"].([]any)
			if !ok || len(pts) < 3 {
				continue
			}
			poly := protocol.PlanPolygon{Name: zoneName("polygon", i, incl), Inclusion: incl, Points: make([][2]float64, 0, len(pts))}
			for _, c := range pts {
				if ll, ok := latLon(c, 2); ok {
					poly.Points = append(poly.Points, [2]float64{ll[0], ll[1]})
				}
			}
			if len(poly.Points) == len(pts) {
				g.Polygons = append(g.Polygons, poly)
			}
		}
		circles, _ := f["circles"].([]any)
		for i, c := range circles {
			m, _ := c.(map[string]any)
			incl, ok := m["inclusion"].(bool)
			circle, _ := m["circle"].(map[string]any)
			center, okC := latLon(circle["center"], 2)
			r, okR := number(circle["radius"])
			if ok && okC && okR && r > 0 {
				g.Circles = append(g.Circles, protocol.PlanCircle{Name: zoneName("circle", i, incl), Inclusion: incl,
					Center: [2]float64{center[0], center[1]}, Radius: r})
			}
		}
	}
	if pts, ok := bb[planRallyKey].([]any); ok {
		for _, p := range pts {
			if ll, ok := latLon(p, 3); ok {
				g.Rally = append(g.Rally, ll)
			}
		}
	}
	return g
}

// zoneName is the name a plan's zone is known by (missions/plan names
// them so, and a breach says it): "geoFence polygon 0 (inclusion)".
func zoneName(kind string, i int, inclusion bool) string {
	way := "exclusion"
	if inclusion {
		way = "inclusion"
	}
	return "geoFence " + kind + " " + strconv.Itoa(i) + " (" + way + ")"
}

// latLon reads [lat, lon] (n 2) or [lat, lon, alt] (n 3) of a place on Earth.
func latLon(v any, n int) ([3]float64, bool) {
	var out [3]float64
	a, ok := v.([]any)
	if !ok || len(a) != n {
		return out, false
	}
	for i, x := range a {
		if out[i], ok = number(x); !ok {
			return out, false
		}
	}
	// 1e-7 degrees (1 cm, what MAVLink carries) keeps the JSON short.
	out[0], out[1] = math.Round(out[0]*1e7)/1e7, math.Round(out[1]*1e7)/1e7
	return out, onEarth(out[0], out[1])
}

func onEarth(lat, lon float64) bool { return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 }

// number is a finite number of a decoded document (JSON gives float64,
// YAML may give int).
func number(v any) (float64, bool) {
	var x float64
	switch n := v.(type) {
	case float64:
		x = n
	case int:
		x = float64(n)
	case int64:
		x = float64(n)
	default:
		return 0, false
	}
	return x, !math.IsNaN(x) && !math.IsInf(x, 0)
}
