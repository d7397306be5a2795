package web

import (
	"math"
	"strings"

	"github.com/botd-project/botd/telemetry/protocol"
)

// A robot's pose comes from the keys its pose sources write, each under
// its own prefix (drivers: "<key>.x", ...): a pose or odometry source
// ("pose": x east, y north, heading counter-clockwise from east), a GPS
// ("gps": its local x/y, and lat/lon), an external position ("position":
// lat/lon), bare "lat"/"lon", and a MAVLink vehicle under any key
// ("uav" by default), told by the "<key>.in_air" it writes: its x/y are
// north and east of home (NED) and its yaw is clockwise from north, so
// both are turned into the map's east/north frame. A mission's own keys
// ("goal.x") are never taken for a pose: only these prefixes are read.

// Pose fields of a prefix.
const (
	pfLat = iota
	pfLon
	pfX
	pfY
	pfHeading // counter-clockwise from east (pose sources)
	pfYaw     // clockwise from north (a vehicle)
	pfCount
)

var poseSuffix = [pfCount]string{"lat", "lon", "x", "y", "heading", "yaw"}

// Fixed prefixes, then vehicles' (slot order is the order of preference
// within a frame, see poses).
const (
	psPosition = iota
	psGPS
	psPose
	psBare
	psVehicle   // first of maxVehicles
	maxVehicles = 2
	psCount     = psVehicle + maxVehicles
)

var fixedPrefix = [psVehicle]string{"position", "gps", "pose", ""}

type poseSlot struct {
	prefix string // a vehicle's key; fixed slots use fixedPrefix
	v      [pfCount]float64
	have   uint8 // bit i: v[i] is known
}

func (s *poseSlot) has(fields ...int) bool {
	for _, f := range fields {
		if s.have&(1<<f) == 0 {
			return false
		}
	}
	return true
}

// poseKeys is what a robot's blackboard says of its pose: a fixed size.
type poseKeys struct {
	slots [psCount]poseSlot
	nveh  int
}

// update takes a blackboard message: a full one replaces what was known
// (a vehicle no longer reported is forgotten), a delta updates it.
func (k *poseKeys) update(m protocol.BlackboardMsg) {
	if m.Full {
		*k = poseKeys{}
	}
	// Vehicles first: a message may carry "uav.lat" before "uav.in_air".
	for _, v := range m.Values {
		if p, ok := strings.CutSuffix(v.Key, ".in_air"); ok && k.slot(p) < 0 && k.nveh < maxVehicles {
			k.slots[psVehicle+k.nveh].prefix = p
			k.nveh++
		}
	}
	for _, v := range m.Values {
		prefix, field := splitPoseKey(v.Key)
		if field < 0 {
			continue
		}
		i := k.slot(prefix)
		if i < 0 {
			continue
		}
		s := &k.slots[i]
		x, ok := v.Value.(float64)
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			s.have &^= 1 << field
			continue
		}
		s.v[field], s.have = x, s.have|1<<field
	}
}

// splitPoseKey is a key's prefix and pose field (-1: not a pose field).
func splitPoseKey(key string) (string, int) {
	prefix, suffix := "", key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		prefix, suffix = key[:i], key[i+1:]
	}
	for f, s := range poseSuffix {
		if s == suffix {
			return prefix, f
		}
	}
	return "", -1
}

func (k *poseKeys) slot(prefix string) int {
	for i, p := range fixedPrefix {
		if p == prefix {
			return i
		}
	}
	for i := psVehicle; i < psVehicle+k.nveh; i++ {
		if k.slots[i].prefix == prefix {
			return i
		}
	}
	return -1
}

// poses is the robot's pose, and its local pose when the first is
// global. Latitude and longitude win (position, gps, a vehicle's, bare);
// locally the pose source, then a vehicle, then the GPS.
func (k *poseKeys) poses() (pose, local *fleetPose) {
	var global *fleetPose
	for _, i := range [...]int{psPosition, psGPS, psVehicle, psVehicle + 1, psBare} {
		if s := &k.slots[i]; s.has(pfLat, pfLon) {
			global = &fleetPose{Frame: "global", X: round(s.v[pfLon], 1e7), Y: round(s.v[pfLat], 1e7), H: s.heading()}
			break
		}
	}
	for _, i := range [...]int{psPose, psVehicle, psVehicle + 1, psGPS} {
		s := &k.slots[i]
		if !s.has(pfX, pfY) {
			continue
		}
		east, north := s.v[pfX], s.v[pfY]
		if i >= psVehicle {
			east, north = s.v[pfY], s.v[pfX] // NED: x north, y east
		}
		local = &fleetPose{Frame: "local", X: round(east, 100), Y: round(north, 100), H: s.heading()}
		break
	}
	if global != nil {
		return global, local
	}
	return local, nil
}

// heading is counter-clockwise from east, from a pose source's heading
// or a vehicle's yaw; nil when neither is known.
func (s *poseSlot) heading() *float64 {
	var h float64
	switch {
	case s.has(pfHeading):
		h = s.v[pfHeading]
	case s.has(pfYaw):
		h = math.Remainder(math.Pi/2-s.v[pfYaw], 2*math.Pi)
	default:
		return nil
	}
	h = round(h, 100)
	return &h
}

func round(x, scale float64) float64 { return math.Round(x*scale) / scale }
