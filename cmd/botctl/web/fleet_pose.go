package web

import (
	"math"
	"slices"
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
	prefix string // the key prefix read into this slot
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
	ready bool // the slots' prefixes are set (reset)
	// named are the pose sources the robot's factsheet names (configure):
	// read under their own keys, in their own frames.
	named []protocol.PoseSource
}

// maxNamedPoses bounds what a factsheet can make a ground station track.
const (
	maxNamedPoses = 8
	maxPoseKeyLen = 64
)

// configure takes the pose sources a robot's factsheet names. A change
// forgets the values known so far (they were read under other keys).
func (k *poseKeys) configure(srcs []protocol.PoseSource) {
	var named []protocol.PoseSource
	for _, s := range srcs {
		if len(named) == maxNamedPoses {
			break
		}
		if s.Key == "" || len(s.Key) > maxPoseKeyLen {
			continue
		}
		named = append(named, protocol.PoseSource{Device: s.Device, Key: s.Key, Frame: s.Frame})
	}
	if k.ready && slices.Equal(named, k.named) {
		return
	}
	k.named = named
	k.reset()
}

// reset forgets every value and sets the slots' prefixes: the usual keys,
// with the factsheet's named sources in the slot of their frame.
func (k *poseKeys) reset() {
	named := k.named
	*k = poseKeys{named: named, ready: true}
	for i, p := range fixedPrefix {
		k.slots[i].prefix = p
	}
	take := func(i int, key string) {
		for j := range k.slots {
			if j != i && k.slots[j].prefix == key {
				k.slots[j].prefix = "\x00" // no blackboard key has it
			}
		}
		k.slots[i].prefix = key
	}
	local, geo := false, false
	// The local source keyed "pose" is the one the drive leaves read: it
	// wins over another (an odometry beside a simulator's truth).
	named = slices.Clone(named)
	slices.SortStableFunc(named, func(a, b protocol.PoseSource) int {
		return boolInt(b.Key == "pose") - boolInt(a.Key == "pose")
	})
	for _, s := range named {
		switch {
		case s.Frame == protocol.PoseLocal && !local:
			take(psPose, s.Key)
			local = true
		case s.Frame == protocol.PoseGeo && !geo:
			take(psGPS, s.Key)
			geo = true
		case s.Frame == protocol.PoseVehicle && k.nveh < maxVehicles:
			take(psVehicle+k.nveh, s.Key)
			k.nveh++
		}
	}
}

// update takes a blackboard message: a full one replaces what was known
// (a vehicle no longer reported is forgotten, unless the factsheet names
// it), a delta updates it.
func (k *poseKeys) update(m protocol.BlackboardMsg) {
	if m.Full || !k.ready {
		k.reset()
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
	for i := 0; i < psVehicle+k.nveh; i++ {
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

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func round(x, scale float64) float64 { return math.Round(x*scale) / scale }
