package mavlink

import (
	"fmt"
	"math"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
)

// UploadPlan gives the autopilot a whole plan with the mission protocol's three mission types:
// the mission items, the fence items and the rally items, each a MISSION_COUNT answered item by
// item and ended by the autopilot's MISSION_ACK. Its parameters carry the items as
// MISSION_ITEM_INT does (missions/plan writes them for a plan the autopilot flies), so the tree
// shows what the autopilot is sent.

// planItemsDoc is the parameters' format, for the node's documentation.
const planItemsDoc = "a list of items, each {command, frame, params: [param1..param4] (null: NaN), x, y (degrees x 1e7), z (null: NaN)}"

func init() {
	drivers.RegisterFenceTargets("UploadPlan", uploadPlanTargets)
}

func uploadPlanType(l *drivers.LeafKit, mk func(name, doc string, op uavOp, params ...bt.Param) bt.NodeType) bt.NodeType {
	return mk("UploadPlan", "Replaces the autopilot's mission, fence and rally points (the MAVLink mission protocol's three "+
		"mission types, MISSION_ITEM_INT): RUNNING until the autopilot accepted all three (MISSION_ACK), then SUCCESS; a refusal "+
		"names the mission type and the autopilot's MAV_MISSION_RESULT. The fence sent is the config's keep-in polygon (when "+
		"the config has one) and the plan's zones: a plan cannot widen the config's fence. Targets are checked against botd's "+
		"geofence when the mission is loaded; a relative altitude above max_altitude is refused.", uavUploadPlan,
		bt.Param{Name: "mission", Type: bt.TAny, Required: true, Doc: "the mission items: " + planItemsDoc},
		bt.Param{Name: "fence", Type: bt.TAny, Doc: "the fence items (MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION/EXCLUSION, MAV_CMD_NAV_FENCE_CIRCLE_INCLUSION/EXCLUSION): " + planItemsDoc},
		bt.Param{Name: "rally", Type: bt.TAny, Doc: "the rally items (MAV_CMD_NAV_RALLY_POINT): " + planItemsDoc})
}

// A plan's uploads, compiled once.
type planUpload struct {
	mission, fence, rally []mav.MessageMissionItemInt
}

// isGlobalFrame: x and y are latitude and longitude x 1e7.
func isGlobalFrame(f mav.MAV_FRAME) bool {
	switch f {
	case mav.MAV_FRAME_GLOBAL, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT, mav.MAV_FRAME_GLOBAL_INT, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
		mav.MAV_FRAME_GLOBAL_TERRAIN_ALT, mav.MAV_FRAME_GLOBAL_TERRAIN_ALT_INT:
		return true
	}
	return false
}

func isRelativeFrame(f mav.MAV_FRAME) bool {
	return f == mav.MAV_FRAME_GLOBAL_RELATIVE_ALT || f == mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT
}

func isFenceCmd(c mav.MAV_CMD) bool {
	switch c {
	case mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION, mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_EXCLUSION,
		mav.MAV_CMD_NAV_FENCE_CIRCLE_INCLUSION, mav.MAV_CMD_NAV_FENCE_CIRCLE_EXCLUSION:
		return true
	}
	return false
}

// flies: a mission item that sends the vehicle to its x, y, z.
func flies(c mav.MAV_CMD) bool {
	switch c {
	case mav.MAV_CMD_NAV_WAYPOINT, mav.MAV_CMD_NAV_LOITER_UNLIM, mav.MAV_CMD_NAV_LOITER_TURNS, mav.MAV_CMD_NAV_LOITER_TIME,
		mav.MAV_CMD_NAV_LAND, mav.MAV_CMD_NAV_TAKEOFF, mav.MAV_CMD_NAV_LOITER_TO_ALT:
		return true
	}
	return false
}

// readItems reads one parameter's items, reporting what is wrong at the node. The cost is
// bounded by maxMissionItems (checked before the items are read).
func readItems(b *bt.Builder, param string, mtype mav.MAV_MISSION_TYPE, maxAlt float64) []mav.MessageMissionItemInt {
	raw, ok := b.Raw(param)
	if !ok || raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		b.Errorf(param, "want %s", planItemsDoc)
		return nil
	}
	if len(list) > maxMissionItems {
		b.Errorf(param, "%d items: at most %d", len(list), maxMissionItems)
		return nil
	}
	items := make([]mav.MessageMissionItemInt, 0, len(list))
	for i, r := range list {
		it, why := readItem(r, mtype, maxAlt)
		if why != "" {
			b.Errorf(param, "item %d: %s", i, why)
			return nil
		}
		it.Seq = uint16(i)
		items = append(items, it)
	}
	return items
}

func readItem(r any, mtype mav.MAV_MISSION_TYPE, maxAlt float64) (mav.MessageMissionItemInt, string) {
	var it mav.MessageMissionItemInt
	m, ok := r.(map[string]any)
	if !ok {
		return it, "not an object"
	}
	whole := func(k string, lo, hi float64) (float64, bool) {
		v, ok := bt.AsNumber(m[k])
		return v, ok && v == math.Trunc(v) && v >= lo && v <= hi
	}
	c, ok1 := whole("command", 0, math.MaxUint16)
	f, ok2 := whole("frame", 0, math.MaxUint8)
	x, ok3 := whole("x", math.MinInt32, math.MaxInt32)
	y, ok4 := whole("y", math.MinInt32, math.MaxInt32)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return it, "command, frame, x and y are whole numbers (x, y within int32)"
	}
	ps, _ := m["params"].([]any)
	if len(ps) > 4 {
		return it, fmt.Sprintf("%d params: param1 to param4 at most", len(ps))
	}
	var p [4]float32
	for k := range p {
		p[k] = float32(math.NaN())
		if k < len(ps) && ps[k] != nil {
			v, ok := bt.AsNumber(ps[k])
			if !ok || math.IsInf(v, 0) {
				return it, fmt.Sprintf("param%d is not a number", k+1)
			}
			p[k] = float32(v)
		}
	}
	z := math.NaN()
	if m["z"] != nil {
		v, ok := bt.AsNumber(m["z"])
		if !ok || math.IsInf(v, 0) {
			return it, "z is not a number"
		}
		z = v
	}
	it = mav.MessageMissionItemInt{Command: mav.MAV_CMD(c), Frame: mav.MAV_FRAME(f), Param1: p[0], Param2: p[1], Param3: p[2], Param4: p[3],
		X: int32(x), Y: int32(y), Z: float32(z), Autocontinue: 1, MissionType: mtype}
	if isGlobalFrame(it.Frame) && (it.X < -90e7 || it.X > 90e7 || it.Y < -180e7 || it.Y > 180e7) {
		return it, fmt.Sprintf("%s: (%d, %d) x 1e-7 degrees is not a place on Earth", it.Command, it.X, it.Y)
	}
	switch mtype {
	case mav.MAV_MISSION_TYPE_FENCE:
		if !isFenceCmd(it.Command) || !isGlobalFrame(it.Frame) {
			return it, fmt.Sprintf("%s in %s is not a fence item", it.Command, it.Frame)
		}
		if !(p[0] > 0) {
			return it, fmt.Sprintf("%s: param1 (corner count or radius) %v", it.Command, p[0])
		}
	case mav.MAV_MISSION_TYPE_RALLY:
		if it.Command != mav.MAV_CMD_NAV_RALLY_POINT || !isGlobalFrame(it.Frame) {
			return it, fmt.Sprintf("%s in %s is not a rally item", it.Command, it.Frame)
		}
	default:
		if isFenceCmd(it.Command) || it.Command == mav.MAV_CMD_NAV_RALLY_POINT {
			return it, fmt.Sprintf("%s is not a mission item", it.Command)
		}
		if flies(it.Command) && isRelativeFrame(it.Frame) && (z > maxAlt || z < 0 && it.Command != mav.MAV_CMD_NAV_LAND) {
			return it, fmt.Sprintf("%s: altitude %v m is not within 0 and %v m (max_altitude)", it.Command, z, maxAlt)
		}
	}
	return it, ""
}

func compileUploadPlan(b *bt.Builder, l *drivers.LeafKit) *planUpload {
	maxAlt, _ := uavBounds(l)
	pu := &planUpload{
		mission: readItems(b, "mission", mav.MAV_MISSION_TYPE_MISSION, maxAlt),
		fence:   readItems(b, "fence", mav.MAV_MISSION_TYPE_FENCE, maxAlt),
		rally:   readItems(b, "rally", mav.MAV_MISSION_TYPE_RALLY, maxAlt),
	}
	if raw, _ := b.Raw("mission"); raw != nil && len(pu.mission) == 0 {
		if list, ok := raw.([]any); ok && len(list) == 0 {
			b.Errorf("mission", "no items: nothing for the autopilot to fly")
		}
	}
	return pu
}

// uploadPlanTargets are the places UploadPlan's mission items fly to, checked against botd's
// geofence when the mission is loaded (altitudes above home only: an altitude above sea level
// needs a home).
func uploadPlanTargets(p map[string]any) []drivers.FenceTarget {
	list, _ := p["mission"].([]any)
	if len(list) > maxMissionItems {
		return nil // refused by the node anyway
	}
	var out []drivers.FenceTarget
	for _, r := range list {
		it, why := readItem(r, mav.MAV_MISSION_TYPE_MISSION, math.Inf(1))
		if why != "" || !flies(it.Command) || !isGlobalFrame(it.Frame) {
			continue
		}
		t := drivers.FenceTarget{Param: "mission", Global: true}
		if it.X != 0 || it.Y != 0 {
			t.HasXY, t.X, t.Y = true, float64(it.X)/1e7, float64(it.Y)/1e7
		}
		if isRelativeFrame(it.Frame) && finite(float64(it.Z)) && it.Command != mav.MAV_CMD_NAV_LAND {
			t.HasAlt, t.Alt = true, float64(it.Z)
		}
		if t.HasXY || t.HasAlt {
			out = append(out, t)
		}
	}
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// uploadPlanOp sends the three uploads one after the other: the mission, the fence (the
// config's keep-in polygon first, then the plan's zones), the rally points.
func (v *Vehicle) uploadPlanOp(pu *planUpload) *vehicleOp {
	const what = "upload plan"
	v.mu.Lock()
	keepIn := v.keepIn
	v.planFence = pu.fence
	v.mu.Unlock()
	fence, err := combinedFence(keepIn, pu.fence)
	if err != nil {
		return failedOp(what, err)
	}
	op := v.uploadOp(what, mav.MAV_MISSION_TYPE_MISSION, pu.mission)
	if op.upload != nil {
		op.upload.next = &upload{mtype: mav.MAV_MISSION_TYPE_FENCE, items: fence,
			next: &upload{mtype: mav.MAV_MISSION_TYPE_RALLY, items: pu.rally}}
	}
	return op
}

// combinedFence is the keep-in polygon's items followed by a plan's, numbered in order.
func combinedFence(keepIn [][2]float64, plan []mav.MessageMissionItemInt) ([]mav.MessageMissionItemInt, error) {
	var out []mav.MessageMissionItemInt
	if len(keepIn) > 0 {
		items, err := fenceItems(keepIn)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	out = append(out, plan...)
	if len(out) > maxMissionItems {
		return nil, fmt.Errorf("%d fence items: at most %d", len(out), maxMissionItems)
	}
	for i := range out {
		out[i].Seq = uint16(i)
	}
	return out, nil
}
