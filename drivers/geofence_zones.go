package drivers

import (
	"errors"
	"math"
	"time"

	"github.com/botd-project/botd/drivers/geofence"
)

// ConfigZone is the name a check gives the config's keep-in fence when it is the zone
// breached (or nearest to be): a mission's zones have names of their own.
const ConfigZone = "geofence (config)"

// ErrNoMapPosition: the robot has no position on the map (no gps device, no vehicle, no
// global fence's origin), so zones given in latitude and longitude cannot be placed.
var ErrNoMapPosition = errors.New("the robot has no position on the map (configure a gps device or a vehicle, or give a global geofence with its origin)")

// ZoneFence is the fence of a robot whose config has no geofence section: no keep-in of its
// own, only the zones of the mission that runs (FenceMonitor.SetZones), checked with a
// geofence section's defaults (1 m margin, 500 ms reaction, 1000 ms staleness, hold) on the
// position CompileFence would read. ErrNoMapPosition when the robot's position cannot be
// placed among zones in latitude and longitude.
func ZoneFence(hw *Config) (*Fence, error) {
	g := &GeofenceConfig{Frame: "local"}
	g.SetDefaults()
	f, err := compileFence(g, hw, "geofence", false)
	if err != nil {
		return nil, err
	}
	if !f.CanPlaceZones() {
		return nil, ErrNoMapPosition
	}
	return f, nil
}

// HasKeepIn reports whether the fence has the config's keep-in polygon.
func (f *Fence) HasKeepIn() bool { return f.keepIn }

// CanPlaceZones reports whether zones in latitude and longitude can be placed against the
// robot's position: a vehicle gives its latitude and longitude, another robot's position is
// in metres around the fence's origin (its gps device's, or a global fence's).
func (f *Fence) CanPlaceZones() bool { return f.vehicle || f.origin != nil }

// ZoneOrigin is the point whose tangent plane a mission's zones are placed on: the fence's
// origin, or, for a vehicle whose fence has none, def (the mission's own: its home, or its
// first zone).
func (f *Fence) ZoneOrigin(def GeoPoint) GeoPoint {
	if f.origin != nil {
		return *f.origin
	}
	return def
}

// ZonePosition reads the robot's position on the plane of zones placed around o (ZoneOrigin),
// m east and north: a vehicle's latitude and longitude placed there, another robot's pose
// (metres around the fence's origin, which o is). ok is false without a fresh position. No
// allocation.
func (f *Fence) ZonePosition(read func(key string) (float64, time.Time, bool), o GeoPoint, now time.Time) (x, y float64, ok bool) {
	xk, yk := f.poseKey+".x", f.poseKey+".y"
	if f.vehicle {
		xk, yk = f.poseKey+".lat", f.poseKey+".lon"
	}
	a, at, ok1 := read(xk)
	b, bt, ok2 := read(yk)
	if !ok1 || !ok2 || math.IsNaN(a) || math.IsNaN(b) || now.Sub(at).Nanoseconds() > f.staleNs || now.Sub(bt).Nanoseconds() > f.staleNs {
		return 0, 0, false
	}
	if f.vehicle {
		if math.Abs(a) > 90 || math.Abs(b) > 180 {
			return 0, 0, false
		}
		a, b = o.ToLocal(a, b)
	}
	return a, b, true
}

// SetZones makes the monitor check the position against zones too (placed around o,
// ZoneOrigin): a mission's, inside every inclusion zone and outside every exclusion zone as
// well as inside the config's keep-in. nil removes them. It is called on the goroutine that
// calls Check.
func (m *FenceMonitor) SetZones(zs geofence.Zones, o GeoPoint) {
	m.zones, m.zoneOrigin = zs, o
}

// Zones are the zones SetZones gave.
func (m *FenceMonitor) Zones() geofence.Zones { return m.zones }

// ZoneName is the name of a check's zone (FenceCheck.Zone): ConfigZone for -1.
func (m *FenceMonitor) ZoneName(zone int) string {
	if zone >= 0 && zone < len(m.zones) {
		return m.zones[zone].Name
	}
	return ConfigZone
}

// checkZones lowers the check's clearance to the mission zones' when theirs is lower,
// naming the zone; false when the zones' position is lost.
func (m *FenceMonitor) checkZones(c *FenceCheck, x, y, alt float64, now time.Time) bool {
	if len(m.zones) == 0 {
		return true
	}
	f := m.f
	if f.vehicle { // a vehicle's zones are placed by its latitude and longitude
		var ok bool
		if x, y, ok = f.ZonePosition(m.read, m.zoneOrigin, now); !ok {
			return false
		}
	}
	if d, at := m.zones.Clearance(x, y, alt); d < c.Clearance {
		c.Clearance, c.Zone = d, at
	}
	return true
}

// OnVehicle reports whether the fence watches a vehicle's position (a VehicleFrame's key).
func (f *Fence) OnVehicle() bool { return f.vehicle }

// PlaceLatLon places a latitude and longitude in the plane of the config's fence (m east and
// north, where Clearance and the monitor's X, Y are): around the fence's origin; for a
// vehicle's local fence (metres from its home), from where the vehicle is now (its latitude
// and longitude, and its position from home), which needs a fresh position. ok is false when
// it cannot be placed.
func (f *Fence) PlaceLatLon(read func(key string) (float64, time.Time, bool), lat, lon float64, now time.Time) (x, y float64, ok bool) {
	if !f.vehicle || f.cfg.Frame == "global" {
		if f.origin == nil {
			return 0, 0, false
		}
		x, y = f.origin.ToLocal(lat, lon)
		return x, y, true
	}
	here := GeoPoint{}
	var north, east float64
	for _, k := range []struct {
		key string
		v   *float64
	}{{f.poseKey + ".lat", &here.Lat}, {f.poseKey + ".lon", &here.Lon}, {f.poseKey + ".x", &north}, {f.poseKey + ".y", &east}} {
		v, at, fresh := read(k.key)
		if !fresh || math.IsNaN(v) || now.Sub(at).Nanoseconds() > f.staleNs {
			return 0, 0, false
		}
		*k.v = v
	}
	dx, dy := here.ToLocal(lat, lon)
	return east + dx, north + dy, true
}
