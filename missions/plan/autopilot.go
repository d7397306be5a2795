package plan

import (
	"fmt"
	"math"

	"github.com/botd-project/botd/bt"
)

// Who flies an imported plan (Plan.Fly): botd, one leaf per item (the
// default), or the vehicle's autopilot, which is given the plan's items
// and flies them in its mission mode.
const (
	FlyBotd      = "botd"
	FlyAutopilot = "autopilot"
)

// Fence and rally MAV_CMD numbers (MAVLink common.xml): the items a plan's
// geoFence and rallyPoints are uploaded to an autopilot as.
const (
	CmdFencePolygonInclusion = 5001
	CmdFencePolygonExclusion = 5002
	CmdFenceCircleInclusion  = 5003
	CmdFenceCircleExclusion  = 5004
	CmdRallyPoint            = 5100
)

// The node types of a tree the autopilot flies: they are the UAV leaves of
// the mavlink_vehicle device.
const (
	UploadPlanLeaf = "UploadPlan"
	RunMissionLeaf = "RunMission"
)

// AutopilotItems are the plan as an autopilot is sent it with the MAVLink
// mission protocol: the mission items as they are; the geoFence as fence
// items (a polygon's corners one item each, param1 the corner count; a
// circle one item, param1 its radius; frame MAV_FRAME_GLOBAL); the rally
// points as MAV_CMD_NAV_RALLY_POINT items (frame
// MAV_FRAME_GLOBAL_RELATIVE_ALT), as QGroundControl and MAVSDK send them.
func (p *Plan) AutopilotItems() (mission, fence, rally []Item) {
	mission = append([]Item(nil), p.Items...)
	for _, z := range p.Fence {
		if z.Polygon == nil {
			c := CmdFenceCircleExclusion
			if z.Inclusion {
				c = CmdFenceCircleInclusion
			}
			fence = append(fence, Item{Seq: len(fence), Path: z.Path, Command: c, Frame: FrameGlobal, AutoContinue: true,
				Params: [7]float64{z.Radius, 0, 0, 0, z.Center[0], z.Center[1], 0}})
			continue
		}
		c := CmdFencePolygonExclusion
		if z.Inclusion {
			c = CmdFencePolygonInclusion
		}
		for _, v := range z.Polygon {
			fence = append(fence, Item{Seq: len(fence), Path: z.Path, Command: c, Frame: FrameGlobal, AutoContinue: true,
				Params: [7]float64{float64(len(z.Polygon)), 0, 0, 0, v[0], v[1], 0}})
		}
	}
	for i, r := range p.Rally {
		rally = append(rally, Item{Seq: i, Path: fmt.Sprintf("/rallyPoints/points/%d", i), Command: CmdRallyPoint,
			Frame: FrameGlobalRelative, AutoContinue: true, Params: [7]float64{0, 0, 0, 0, r[0], r[1], r[2]}})
	}
	return mission, fence, rally
}

// ItemsValue is how a tree carries items (UploadPlan's mission, fence and
// rally parameters): one object per item with MISSION_ITEM_INT's fields,
// command, frame, param1 to param4 (null for NaN), x and y (degrees x 1e7,
// or the value itself in MAV_FRAME_MISSION) and z (null for NaN).
func ItemsValue(items []Item) []any {
	out := make([]any, len(items))
	num := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	for i, it := range items {
		out[i] = map[string]any{
			"command": float64(it.Command),
			"frame":   float64(it.Frame),
			"params":  []any{num(it.Params[0]), num(it.Params[1]), num(it.Params[2]), num(it.Params[3])},
			"x":       float64(it.X()),
			"y":       float64(it.Y()),
			"z":       num(it.Params[6]),
		}
	}
	return out
}

// AutopilotTree returns the tree that has the autopilot fly the plan: a
// MemSequence of a GPS check, UploadPlan (the mission, fence and rally
// items, RUNNING until the autopilot accepted all three), arming, and
// RunMission (the autopilot's mission mode, RUNNING until it reports the
// last item reached). The plan is checked as Tree checks it: a plan is
// flown either way or not at all.
func (p *Plan) AutopilotTree(lim Limits) (*bt.NodeDef, bt.Problems) {
	lim = lim.withDefaults()
	b := &builder{p: p, lim: lim, ps: &problems{}, jumps: map[int]jump{}}
	for _, it := range p.Items {
		b.check(it)
	}
	b.findJumps()
	if len(b.ps.list) > 0 {
		return nil, b.ps.list
	}
	mission, fence, rally := p.AutopilotItems()
	return &bt.NodeDef{Type: "MemSequence", Name: "plan (flown by the autopilot)", Children: []*bt.NodeDef{
		{Type: "GpsFix", Name: "preflight: GPS fix"},
		{Type: UploadPlanLeaf, Name: fmt.Sprintf("upload: %d mission, %d fence, %d rally items", len(mission), len(fence), len(rally)),
			Params: map[string]any{"mission": ItemsValue(mission), "fence": ItemsValue(fence), "rally": ItemsValue(rally)}},
		{Type: "Arm", Name: "preflight: arm"},
		{Type: RunMissionLeaf, Name: "the autopilot flies the plan"},
	}}, nil
}

// Generate returns the tree that flies the plan the way p.Fly says.
func (p *Plan) Generate(lim Limits) (*bt.NodeDef, bt.Problems) {
	if p.Fly == FlyAutopilot {
		return p.AutopilotTree(lim)
	}
	return p.Tree(lim)
}

// itemsFrom reads items back from their tree value (ItemsValue): a
// mission's items for Export.
func itemsFrom(v any, path string) ([]Item, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: not a list of items", path)
	}
	out := make([]Item, 0, len(list))
	for i, raw := range list {
		m, _ := raw.(map[string]any)
		c, ok1 := m["command"].(float64)
		f, ok2 := m["frame"].(float64)
		x, ok3 := m["x"].(float64)
		y, ok4 := m["y"].(float64)
		ps, ok5 := m["params"].([]any)
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || len(ps) != 4 || !whole(c) || !whole(f) {
			return nil, fmt.Errorf("%s/%d: want command, frame, params (4), x, y and z", path, i)
		}
		it := Item{Command: int(c), Frame: int(f)}
		for k := range it.Params {
			it.Params[k] = math.NaN()
		}
		for k, p := range ps {
			if n, ok := p.(float64); ok {
				it.Params[k] = n
			}
		}
		if z, ok := m["z"].(float64); ok {
			it.Params[6] = z
		}
		it.Params[4], it.Params[5] = x/1e7, y/1e7
		if it.Frame == FrameMission {
			it.Params[4], it.Params[5] = x, y
		}
		out = append(out, it)
	}
	return out, nil
}
