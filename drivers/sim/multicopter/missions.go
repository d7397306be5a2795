package multicopter

import (
	"math"

	"github.com/bluenviron/gomavlib/v3"
	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
)

// The mission protocol, as PX4 speaks it, for the three mission types: a ground station
// uploads (MISSION_COUNT, then each MISSION_ITEM_INT the vehicle asks for with
// MISSION_REQUEST_INT, then the vehicle's MISSION_ACK) and downloads (MISSION_REQUEST_LIST,
// MISSION_COUNT, MISSION_REQUEST_INT for each item, MISSION_ITEM_INT) missions, fences
// (inclusion and exclusion polygons and circles, which the vehicle keeps to: PX4's GF_ACTION
// hold) and rally points. What it stores is what it was sent, item for item.

// MaxRallyItems bounds the rally points the vehicle holds.
const MaxRallyItems = 16

// zone is one fence zone, in metres north and east of home.
type zone struct {
	inclusion bool
	poly      [][2]float64 // nil for a circle
	center    [2]float64
	radius    float64
}

// contains: the point is inside the zone.
func (z *zone) contains(n, e float64) bool {
	if z.poly == nil {
		return math.Hypot(n-z.center[0], e-z.center[1]) <= z.radius
	}
	return inside(z.poly, n, e)
}

// breached: outside an inclusion zone or inside an exclusion zone.
func breached(zs []zone, n, e float64) bool {
	for i := range zs {
		if zs[i].contains(n, e) != zs[i].inclusion {
			return true
		}
	}
	return false
}

func (v *Vehicle) missionCount(fr *gomavlib.EventFrame, m *mav.MessageMissionCount) {
	s := &v.s
	limit := MaxMissionItems
	switch m.MissionType {
	case mav.MAV_MISSION_TYPE_MISSION:
	case mav.MAV_MISSION_TYPE_FENCE:
		limit = MaxFenceItems
	case mav.MAV_MISSION_TYPE_RALLY:
		limit = MaxRallyItems
	default:
		v.send(&mav.MessageMissionAck{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(),
			Type: mav.MAV_MISSION_UNSUPPORTED, MissionType: m.MissionType})
		return
	}
	if int(m.Count) > limit {
		v.send(&mav.MessageMissionAck{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(),
			Type: mav.MAV_MISSION_NO_SPACE, MissionType: m.MissionType})
		return
	}
	if m.Count == 0 {
		v.store(m.MissionType, nil)
		v.send(&mav.MessageMissionAck{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(),
			Type: mav.MAV_MISSION_ACCEPTED, MissionType: m.MissionType})
		return
	}
	s.loading, s.loadType, s.want, s.got = true, m.MissionType, int(m.Count), s.got[:0]
	v.send(&mav.MessageMissionRequestInt{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(), Seq: 0, MissionType: m.MissionType})
}

func (v *Vehicle) missionItem(fr *gomavlib.EventFrame, m *mav.MessageMissionItemInt) {
	s := &v.s
	if !s.loading || m.MissionType != s.loadType || int(m.Seq) != len(s.got) {
		return // a repeat, or nothing asked for
	}
	s.got = append(s.got, *m)
	if len(s.got) < s.want {
		v.send(&mav.MessageMissionRequestInt{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(), Seq: m.Seq + 1, MissionType: m.MissionType})
		return
	}
	s.loading = false
	res := v.store(s.loadType, s.got)
	v.send(&mav.MessageMissionAck{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(), Type: res, MissionType: s.loadType})
}

// requestList answers a download's MISSION_REQUEST_LIST with the count of what is stored.
func (v *Vehicle) requestList(fr *gomavlib.EventFrame, typ mav.MAV_MISSION_TYPE) {
	switch typ {
	case mav.MAV_MISSION_TYPE_MISSION, mav.MAV_MISSION_TYPE_FENCE, mav.MAV_MISSION_TYPE_RALLY:
	default:
		v.send(&mav.MessageMissionAck{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(),
			Type: mav.MAV_MISSION_UNSUPPORTED, MissionType: typ})
		return
	}
	v.send(&mav.MessageMissionCount{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(),
		Count: uint16(len(v.s.stored[typ])), MissionType: typ})
}

// requestItem answers a download's MISSION_REQUEST_INT (or MISSION_REQUEST) for item seq.
func (v *Vehicle) requestItem(fr *gomavlib.EventFrame, seq uint16, typ mav.MAV_MISSION_TYPE) {
	items := v.s.stored[typ]
	if int(seq) >= len(items) {
		v.send(&mav.MessageMissionAck{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(),
			Type: mav.MAV_MISSION_INVALID_SEQUENCE, MissionType: typ})
		return
	}
	it := items[seq]
	it.TargetSystem, it.TargetComponent = fr.SystemID(), fr.ComponentID()
	v.send(&it)
}

// store checks and keeps an uploaded mission, fence or rally points.
func (v *Vehicle) store(typ mav.MAV_MISSION_TYPE, items []mav.MessageMissionItemInt) mav.MAV_MISSION_RESULT {
	s := &v.s
	var res mav.MAV_MISSION_RESULT
	switch typ {
	case mav.MAV_MISSION_TYPE_FENCE:
		res = v.storeFence(items)
	case mav.MAV_MISSION_TYPE_RALLY:
		res = v.storeRally(items)
	default:
		res = v.storeMission(items)
	}
	if res == mav.MAV_MISSION_ACCEPTED {
		if s.stored == nil {
			s.stored = map[mav.MAV_MISSION_TYPE][]mav.MessageMissionItemInt{}
		}
		s.stored[typ] = append([]mav.MessageMissionItemInt(nil), items...)
	}
	return res
}

func (v *Vehicle) storeFence(items []mav.MessageMissionItemInt) mav.MAV_MISSION_RESULT {
	s := &v.s
	var zs []zone
	for i := 0; i < len(items); {
		it := items[i]
		lat, lon := float64(it.X)/1e7, float64(it.Y)/1e7
		if math.Abs(lat) > 90 || math.Abs(lon) > 180 {
			return mav.MAV_MISSION_INVALID_PARAM5_X
		}
		switch it.Command {
		case mav.MAV_CMD_NAV_FENCE_CIRCLE_INCLUSION, mav.MAV_CMD_NAV_FENCE_CIRCLE_EXCLUSION:
			if !(it.Param1 > 0) {
				return mav.MAV_MISSION_INVALID_PARAM1
			}
			n, e := v.toNE(lat, lon)
			zs = append(zs, zone{inclusion: it.Command == mav.MAV_CMD_NAV_FENCE_CIRCLE_INCLUSION, center: [2]float64{n, e}, radius: float64(it.Param1)})
			i++
		case mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION, mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_EXCLUSION:
			// param1 is the polygon's corner count, the same on each of its corners
			k := int(it.Param1)
			if float32(k) != it.Param1 || k < 3 || i+k > len(items) {
				return mav.MAV_MISSION_INVALID_PARAM1
			}
			z := zone{inclusion: it.Command == mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION}
			for _, c := range items[i : i+k] {
				if c.Command != it.Command || c.Param1 != it.Param1 {
					return mav.MAV_MISSION_INVALID_PARAM1
				}
				clat, clon := float64(c.X)/1e7, float64(c.Y)/1e7
				if math.Abs(clat) > 90 || math.Abs(clon) > 180 {
					return mav.MAV_MISSION_INVALID_PARAM5_X
				}
				n, e := v.toNE(clat, clon)
				z.poly = append(z.poly, [2]float64{n, e})
			}
			zs = append(zs, z)
			i += k
		default:
			return mav.MAV_MISSION_UNSUPPORTED
		}
	}
	s.zones, s.fenceItems, s.breached = zs, len(items), false
	return mav.MAV_MISSION_ACCEPTED
}

func (v *Vehicle) storeRally(items []mav.MessageMissionItemInt) mav.MAV_MISSION_RESULT {
	for _, it := range items {
		if it.Command != mav.MAV_CMD_NAV_RALLY_POINT {
			return mav.MAV_MISSION_UNSUPPORTED
		}
		if math.Abs(float64(it.X)/1e7) > 90 || math.Abs(float64(it.Y)/1e7) > 180 {
			return mav.MAV_MISSION_INVALID_PARAM5_X
		}
	}
	v.s.rally = len(items)
	return mav.MAV_MISSION_ACCEPTED
}

func (v *Vehicle) storeMission(items []mav.MessageMissionItemInt) mav.MAV_MISSION_RESULT {
	s := &v.s
	var mission []item
	for _, it := range items {
		lat, lon := float64(it.X)/1e7, float64(it.Y)/1e7
		alt := float64(it.Z)
		switch it.Frame {
		case mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT, mav.MAV_FRAME_MISSION:
		case mav.MAV_FRAME_GLOBAL_INT, mav.MAV_FRAME_GLOBAL:
			alt -= v.cfg.Home.Alt
		default:
			return mav.MAV_MISSION_UNSUPPORTED_FRAME
		}
		x := item{cmd: it.Command, alt: alt, radius: float64(it.Param2)}
		if !finite(x.radius) || x.radius <= 0 {
			x.radius = 1
		}
		switch it.Command {
		case mav.MAV_CMD_NAV_TAKEOFF, mav.MAV_CMD_NAV_WAYPOINT, mav.MAV_CMD_NAV_LAND:
			if math.Abs(lat) > 90 || math.Abs(lon) > 180 || !finite(alt) {
				return mav.MAV_MISSION_INVALID_PARAM5_X
			}
			if alt < 0 && it.Command != mav.MAV_CMD_NAV_LAND || alt > 1000 {
				return mav.MAV_MISSION_INVALID_PARAM7
			}
			x.n, x.e = v.toNE(lat, lon)
			if (it.X == 0 && it.Y == 0) || it.Command == mav.MAV_CMD_NAV_TAKEOFF {
				x.n, x.e = math.NaN(), math.NaN() // where the vehicle is: PX4 takes off straight up
			}
		case mav.MAV_CMD_NAV_RETURN_TO_LAUNCH:
		case mav.MAV_CMD_DO_CHANGE_SPEED:
			x.speed = float64(it.Param2) // m/s (-1: no change)
		default:
			return mav.MAV_MISSION_UNSUPPORTED
		}
		mission = append(mission, x)
	}
	if s.main == PX4Auto && s.sub == PX4AutoMission {
		v.setMode(PX4Auto, PX4AutoLoiter) // a new mission stops the one flown
	}
	s.mission, s.current = mission, 0
	return mav.MAV_MISSION_ACCEPTED
}
