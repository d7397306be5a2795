package drivers

import (
	"fmt"
	"math"
	"time"

	"github.com/botd-project/botd/drivers/geofence"
)

// GeofenceConfig is a keep-in fence: a polygon the robot must stay inside, optionally an
// altitude band, a margin, and what a breach does. It is the geofence section of the daemon's
// config; Validate checks it on its own, Compile resolves it against the hardware (the GPS
// origin, the pose keys).
//
//	geofence:
//	  frame: local                  # local: points are [x, y] metres; global: [lat, lon] degrees
//	  points: [[-5, -5], [5, -5], [5, 5], [-5, 5]]
//	  margin: 1                     # m: a breach predicted this close to the edge trips
//	  action: hold                  # hold | return_home | land | abort
type GeofenceConfig struct {
	// Frame is "local" (Points are x/y metres in the pose's frame) or "global" (Points are
	// latitude/longitude degrees, WGS84).
	Frame string `yaml:"frame"`
	// Points are the polygon's corners in order (either way round), at least 3, at most
	// MaxFencePoints; the last joins the first. The edges may not cross each other.
	Points [][2]float64 `yaml:"points"`
	// Origin is where the local frame's (0, 0) is, for a global fence (default: the gps
	// device's origin, the frame its pose is in).
	Origin *GeoPoint `yaml:"origin,omitempty"`
	// MinAlt and MaxAlt bound the altitude read from AltKey, m.
	MinAlt *float64 `yaml:"min_alt,omitempty"`
	MaxAlt *float64 `yaml:"max_alt,omitempty"`
	// Margin is how close to the edge (or to an altitude bound) the robot may come, m
	// (default 1): a position, or the position one reaction time ahead at the current speed,
	// within the margin trips the fence.
	Margin *float64 `yaml:"margin,omitempty"`
	// Action is what a breach does: hold (default), return_home, land or abort.
	Action string `yaml:"action,omitempty"`
	// PoseKey is the blackboard prefix of the position the fence watches: PoseKey.x and
	// PoseKey.y (default: the gps device's key, else "pose").
	PoseKey string `yaml:"pose_key,omitempty"`
	// AltKey is the key holding the altitude, m (needed with min_alt or max_alt).
	AltKey string `yaml:"alt_key,omitempty"`
	// ReactionMs is how far ahead a breach is predicted at the current speed, ms (default
	// 500: the time the robot needs to notice and stop).
	ReactionMs float64 `yaml:"reaction_ms,omitempty"`
	// StaleMs: a position older than this is lost, which trips the fence too (default 1000).
	StaleMs float64 `yaml:"stale_ms,omitempty"`
}

// Fence actions.
const (
	FenceHold       = "hold"
	FenceReturnHome = "return_home"
	FenceLand       = "land"
	FenceAbort      = "abort"
)

// MaxFencePoints bounds a fence's corners (the self-intersection check is quadratic).
const MaxFencePoints = geofence.MaxPoints

// FenceActions is what a vehicle does on a geofence breach. A device that can fly or drive
// home implements it; the daemon finds it with a type assertion on Robot.Devices(). A rover's
// diff drive gets it from Robot.FenceActions.
type FenceActions interface {
	Hold() error
	ReturnHome() error
	Land() error
}

// SetDefaults fills in the zero fields.
func (g *GeofenceConfig) SetDefaults() {
	if g.Margin == nil {
		m := 1.0
		g.Margin = &m
	}
	if g.Action == "" {
		g.Action = FenceHold
	}
	if g.ReactionMs == 0 {
		g.ReactionMs = 500
	}
	if g.StaleMs == 0 {
		g.StaleMs = 1000
	}
}

// Validate fills in the defaults and reports every problem under path ("geofence"): a frame
// other than local or global, fewer than 3 or more than MaxFencePoints corners, a corner out of
// range, a polygon of no area or whose edges cross, min_alt above max_alt, an unknown action.
func (g *GeofenceConfig) Validate(path string) error {
	g.SetDefaults()
	v := &Validator{}
	g.validate(v, path)
	return v.errs.err()
}

func (g *GeofenceConfig) validate(v *Validator, path string) {
	global := false
	switch g.Frame {
	case "local":
	case "global":
		global = true
	case "":
		v.Errorf(path+".frame", "missing: local (points are [x, y] metres) or global ([lat, lon] degrees)")
	default:
		v.Errorf(path+".frame", "%q is not local or global", g.Frame)
	}
	n := len(g.Points)
	switch {
	case n < 3:
		v.Errorf(path+".points", "a fence needs at least 3 corners (got %d)", n)
	case n > MaxFencePoints:
		v.Errorf(path+".points", "%d corners: at most %d", n, MaxFencePoints)
	}
	ok := n >= 3 && n <= MaxFencePoints
	for i, p := range g.Points {
		at := fmt.Sprintf("%s.points[%d]", path, i)
		switch {
		case math.IsNaN(p[0]) || math.IsNaN(p[1]) || math.IsInf(p[0], 0) || math.IsInf(p[1], 0):
			v.Errorf(at, "not a finite point: %v", p)
			ok = false
		case global && (p[0] < -90 || p[0] > 90):
			v.Errorf(at, "latitude %v is outside [-90, 90]", p[0])
			ok = false
		case global && (p[1] < -180 || p[1] > 180):
			v.Errorf(at, "longitude %v is outside [-180, 180]", p[1])
			ok = false
		case !global && (math.Abs(p[0]) > 1e7 || math.Abs(p[1]) > 1e7):
			v.Errorf(at, "%v is more than 10000 km from the origin", p)
			ok = false
		}
	}
	if o := g.Origin; o != nil {
		v.Within(path+".origin.lat", o.Lat, -89, 89)
		v.Within(path+".origin.lon", o.Lon, -180, 180)
		if !global {
			v.Errorf(path+".origin", "only a global fence takes an origin (a local fence is in the pose's frame)")
		}
	}
	if ok && g.Frame != "" {
		xs, ys := make([]float64, n), make([]float64, n)
		for i, p := range g.Points {
			xs[i], ys[i] = p[0], p[1]
			if global { // the shape's checks in a plane (degrees, longitude scaled), near enough
				xs[i], ys[i] = p[1]*math.Cos(g.Points[0][0]*math.Pi/180), p[0]
			}
		}
		if msg, at := (geofence.Polygon{Xs: xs, Ys: ys}).Problem(); msg != "" {
			p := path + ".points"
			if at >= 0 {
				p = fmt.Sprintf("%s.points[%d]", path, at)
			}
			v.Errorf(p, "%s", msg)
		}
	}
	for _, a := range []struct {
		name string
		x    *float64
	}{{"min_alt", g.MinAlt}, {"max_alt", g.MaxAlt}} {
		if a.x != nil && (math.IsNaN(*a.x) || math.Abs(*a.x) > 1e5) {
			v.Errorf(path+"."+a.name, "must be a height within ±100 km (got %v)", *a.x)
		}
	}
	if g.MinAlt != nil && g.MaxAlt != nil && !(*g.MinAlt < *g.MaxAlt) {
		v.Errorf(path+".min_alt", "min_alt %v is not below max_alt %v", *g.MinAlt, *g.MaxAlt)
	}
	if (g.MinAlt != nil || g.MaxAlt != nil) && g.AltKey == "" {
		v.Errorf(path+".alt_key", "min_alt and max_alt need the key the altitude is read from (e.g. alt_key: drone.height)")
	}
	if g.Margin != nil {
		v.Within(path+".margin", *g.Margin, 0, 1000)
	}
	switch g.Action {
	case FenceHold, FenceReturnHome, FenceLand, FenceAbort:
	default:
		v.Errorf(path+".action", "%q is not hold, return_home, land or abort", g.Action)
	}
	v.Within(path+".reaction_ms", g.ReactionMs, 0, 10_000)
	if v.Positive(path+".stale_ms", g.StaleMs) && g.StaleMs > 60_000 {
		v.Errorf(path+".stale_ms", "must be at most 60000 (got %v)", g.StaleMs)
	}
	for _, k := range []struct{ name, key string }{{"pose_key", g.PoseKey}, {"alt_key", g.AltKey}} {
		if k.key != "" {
			if msg := checkKeyName(k.key); msg != "" {
				v.Errorf(path+"."+k.name, "%s", msg)
			}
		}
	}
}

// Fence is a validated fence in the local frame, ready to check positions against. Distance
// and the Monitor's Check cost O(corners) and allocate nothing.
type Fence struct {
	cfg GeofenceConfig
	// keepIn: the fence has the config's keep-in polygon (a ZoneFence has none: only a
	// mission's zones, set on its monitor, bound the robot)
	keepIn     bool
	shape      geofence.Shape // corners (local metres) and altitude band
	origin     *GeoPoint      // for a global fence and global mission targets
	margin     float64
	reactionNs float64
	// speedWindowNs: the speed is estimated over at least this long (half the reaction
	// time, within 50-250 ms)
	speedWindowNs int64
	staleNs       int64
	poseKey       string
	altKey        string
	// vehicle: the pose key is a VehicleFrame's, whose local position is NED from its home
	// (x north, y east): the fence reads its latitude and longitude for a global fence, its
	// y as east and x as north for a local one.
	vehicle bool
}

// GeoPoint is a latitude and longitude in degrees (WGS84).
type GeoPoint = geofence.LatLon

// GeoReferenced is a Spec whose device places the robot on the map: a satellite receiver
// writing x/y metres around an origin. A fence takes the origin and key of the only such device.
type GeoReferenced interface {
	Spec
	// GeoFrame is the origin of the device's local frame and the key prefix of its pose.
	GeoFrame() (origin *GeoPoint, key string)
}

// VehicleFrame is a Spec whose device writes a vehicle's position north-east-down from its
// home (x north, y east) and its latitude and longitude under one key.
type VehicleFrame interface {
	Spec
	// VehicleKey is the key prefix of the vehicle's position.
	VehicleKey() string
}

// CompileFence resolves a validated fence against the hardware: the origin of a global fence
// (its own, else the only GeoReferenced device's) and the pose key (its own, else the only
// GeoReferenced device's key, else the only vehicle's, else "pose"). Errors are located under
// path.
func CompileFence(g *GeofenceConfig, hw *Config, path string) (*Fence, error) {
	if err := g.Validate(path); err != nil {
		return nil, err
	}
	return compileFence(g, hw, path, true)
}

func compileFence(g *GeofenceConfig, hw *Config, path string, keepIn bool) (*Fence, error) {
	v := &Validator{}
	var geos []GeoReferenced
	var vehicles []string
	if hw != nil {
		for _, d := range hw.Devices {
			if d == nil || d.Spec == nil {
				continue
			}
			if g, ok := d.Spec.(GeoReferenced); ok {
				geos = append(geos, g)
			}
			if vf, ok := d.Spec.(VehicleFrame); ok {
				vehicles = append(vehicles, vf.VehicleKey())
			}
		}
	}
	var geoOrigin *GeoPoint
	geoKey := ""
	if len(geos) == 1 {
		geoOrigin, geoKey = geos[0].GeoFrame()
	}
	f := &Fence{cfg: *g, keepIn: keepIn, margin: *g.Margin, reactionNs: g.ReactionMs * 1e6, staleNs: int64(g.StaleMs * 1e6),
		shape: geofence.Shape{MinAlt: math.Inf(-1), MaxAlt: math.Inf(1)}, altKey: g.AltKey, poseKey: g.PoseKey}
	f.speedWindowNs = min(max(int64(g.ReactionMs*1e6/2), int64(50*time.Millisecond)), int64(250*time.Millisecond))
	if g.MinAlt != nil {
		f.shape.MinAlt = *g.MinAlt
	}
	if g.MaxAlt != nil {
		f.shape.MaxAlt = *g.MaxAlt
	}
	f.origin = g.Origin
	if f.origin == nil && len(geos) == 1 {
		f.origin = geoOrigin
	}
	if f.poseKey == "" {
		f.poseKey = "pose"
		switch {
		case len(geos) == 1:
			f.poseKey = geoKey
		case len(vehicles) == 1:
			f.poseKey = vehicles[0]
		}
	}
	for _, k := range vehicles {
		f.vehicle = f.vehicle || k == f.poseKey
	}
	if keepIn && g.Frame == "global" && f.origin == nil {
		v.Errorf(path+".origin", "a global fence needs the local frame's origin: give origin: {lat: ..., lon: ...}, or configure one gps device")
	}
	if hw != nil {
		keys := map[string]bool{}
		for _, k := range hw.SensorKeys() {
			keys[k] = true
		}
		if f.vehicle && g.Frame == "global" && (!keys[f.poseKey+".lat"] || !keys[f.poseKey+".lon"]) {
			v.Errorf(path+".pose_key", "no device writes %s.lat and %s.lon", f.poseKey, f.poseKey)
		}
		if !keys[f.poseKey+".x"] || !keys[f.poseKey+".y"] {
			v.Errorf(path+".pose_key", "no device writes %s.x and %s.y (configure a pose source that writes them, or name its key)", f.poseKey, f.poseKey)
		}
		if f.altKey != "" && !keys[f.altKey] {
			v.Errorf(path+".alt_key", "no device writes %s", f.altKey)
		}
	}
	if err := v.errs.err(); err != nil {
		return nil, err
	}
	n := len(g.Points)
	xs, ys := make([]float64, n), make([]float64, n)
	for i, p := range g.Points {
		if g.Frame == "global" {
			xs[i], ys[i] = f.origin.ToLocal(p[0], p[1])
		} else {
			xs[i], ys[i] = p[0], p[1]
		}
	}
	f.shape.Polygon = geofence.Polygon{Xs: xs, Ys: ys}
	return f, nil
}

// Config returns the fence's configuration (defaults filled in).
func (f *Fence) Config() GeofenceConfig { return f.cfg }

// PoseKey and AltKey are the keys the fence reads (AltKey "" for none).
func (f *Fence) PoseKey() string { return f.poseKey }
func (f *Fence) AltKey() string  { return f.altKey }

// Margin is the configured margin, m.
func (f *Fence) Margin() float64 { return f.margin }

// Corners returns the polygon in the local frame.
func (f *Fence) Corners() (xs, ys []float64) { return f.shape.Xs, f.shape.Ys }

// Distance is the signed horizontal distance from (x, y) to the fence's edge, m: positive
// inside, negative outside, 0 on the edge. O(corners), no allocation.
func (f *Fence) Distance(x, y float64) float64 { return f.shape.Distance(x, y) }

// Clearance is the signed distance to the fence in three dimensions: the horizontal distance,
// or the distance to an altitude bound when that is smaller (alt is ignored without bounds).
func (f *Fence) Clearance(x, y, alt float64) float64 {
	if !f.keepIn {
		return math.Inf(1)
	}
	return f.shape.Clearance(x, y, alt)
}

// HasAlt reports whether the fence bounds the altitude.
func (f *Fence) HasAlt() bool { return f.shape.HasAlt() }

// Wire returns the fence as the factsheet carries it.
func (f *Fence) Wire() (frame string, points [][2]float64, minAlt, maxAlt *float64, margin float64, action string) {
	pts := make([][2]float64, len(f.cfg.Points))
	copy(pts, f.cfg.Points)
	return f.cfg.Frame, pts, f.cfg.MinAlt, f.cfg.MaxAlt, f.margin, f.cfg.Action
}

// FenceState is a fence check's verdict (package geofence).
type FenceState = geofence.State

// The verdicts.
const (
	FenceInside  = geofence.Inside
	FenceNear    = geofence.Near
	FenceOutside = geofence.Outside
	FenceNoPose  = geofence.NoPose
)

// FenceCheck is one check of the robot's position.
type FenceCheck struct {
	State FenceState
	// X, Y (m, local frame) and Alt (m, NaN without an altitude key) are the position checked.
	X, Y, Alt float64
	// Clearance is the signed distance to the fence, m (negative: outside by that much).
	Clearance float64
	// Speed is the speed estimated from two positions at least half the reaction time
	// (50-250 ms) apart, m/s.
	Speed float64
	// Age is how old the position is (FenceNoPose: since the last one, or -1 for none).
	Age time.Duration
	// Receding: the clearance grew over the last speed window (the robot moves away from
	// the edges it is nearest to). The verdict does not use it (a breach is predicted as if
	// the robot moved straight at the nearest edge); botd's own return home does, so that a
	// robot leaving a zone's margin on its way is not stopped by it.
	Receding bool
	// Zone is the zone with the least clearance, the one breached or nearest to be: -1 for
	// the config's keep-in, else the index of a zone SetZones gave (FenceMonitor.ZoneName).
	Zone int
}

// FenceMonitor checks a robot's position against a fence, once per tick. Check is O(corners)
// and allocates nothing; it is used from one goroutine.
type FenceMonitor struct {
	f          *Fence
	read       func(key string) (float64, time.Time, bool)
	xKey, yKey string
	// latLon: xKey and yKey are a latitude and a longitude, placed in the fence's frame
	// around its origin.
	latLon bool
	// the last position, to estimate the speed
	lastAt     int64
	lx, ly, la float64
	speed      float64
	// lc is the clearance at the last position the speed was measured from; receding: it
	// grew over the last speed window
	lc       float64
	receding bool
	// a mission's zones (SetZones), placed around zoneOrigin
	zones      geofence.Zones
	zoneOrigin GeoPoint
}

// NewFenceMonitor watches the position that read returns (Robot.Reading).
func NewFenceMonitor(f *Fence, read func(key string) (float64, time.Time, bool)) *FenceMonitor {
	m := &FenceMonitor{f: f, read: read, xKey: f.poseKey + ".x", yKey: f.poseKey + ".y"}
	switch {
	case f.vehicle && f.cfg.Frame == "global":
		m.xKey, m.yKey, m.latLon = f.poseKey+".lat", f.poseKey+".lon", true
	case f.vehicle:
		m.xKey, m.yKey = f.poseKey+".y", f.poseKey+".x" // NED: east is y, north is x
	}
	return m
}

// Fence is the monitored fence.
func (m *FenceMonitor) Fence() *Fence { return m.f }

// Check reads the position and judges it at now.
func (m *FenceMonitor) Check(now time.Time) FenceCheck {
	f := m.f
	if !f.keepIn && len(m.zones) == 0 {
		// nothing to keep to: no position is needed either
		return FenceCheck{State: FenceInside, Alt: math.NaN(), Clearance: math.Inf(1), Age: -1, Zone: -1}
	}
	x, at, ok1 := m.read(m.xKey)
	y, at2, ok2 := m.read(m.yKey)
	c := FenceCheck{X: x, Y: y, Alt: math.NaN(), Age: -1, Zone: -1}
	if !ok1 || !ok2 || math.IsNaN(x) || math.IsNaN(y) {
		c.State = FenceNoPose
		return c
	}
	if at2.Before(at) {
		at = at2
	}
	if m.latLon {
		x, y = f.origin.ToLocal(x, y)
		c.X, c.Y = x, y
	}
	c.Age = now.Sub(at)
	if c.Age.Nanoseconds() > f.staleNs {
		c.State = FenceNoPose
		return c
	}
	alt := 0.0
	if f.altKey != "" {
		a, aat, ok := m.read(f.altKey)
		if !ok || math.IsNaN(a) || now.Sub(aat).Nanoseconds() > f.staleNs {
			c.State = FenceNoPose
			return c
		}
		alt, c.Alt = a, a
	}
	// The speed is measured over at least speedWindow: positions read a few milliseconds
	// apart (a busy machine delivers a vehicle's position messages in bursts, and the
	// reading's time is when it was read, not when the vehicle was there) would give a
	// speed many times the real one, and a geofence breach predicted from it.
	c.Clearance = f.Clearance(x, y, alt)
	if !m.checkZones(&c, x, y, alt, now) {
		c.State = FenceNoPose
		return c
	}
	ts := at.UnixNano()
	if m.lastAt == 0 {
		m.lastAt, m.lx, m.ly, m.la, m.lc = ts, x, y, alt, c.Clearance
	} else if ts-m.lastAt >= f.speedWindowNs {
		dt := float64(ts-m.lastAt) / 1e9
		dz := 0.0
		if f.altKey != "" {
			dz = alt - m.la
		}
		m.speed = math.Sqrt((x-m.lx)*(x-m.lx)+(y-m.ly)*(y-m.ly)+dz*dz) / dt
		m.receding = c.Clearance > m.lc
		m.lastAt, m.lx, m.ly, m.la, m.lc = ts, x, y, alt, c.Clearance
	}
	c.Speed, c.Receding = m.speed, m.receding
	c.State = geofence.Judge(c.Clearance, m.speed, f.reactionNs/1e9, f.margin)
	return c
}

// Moving reports whether the last check found the robot moving.
func (c FenceCheck) Moving() bool { return c.Speed >= geofence.MinMovingSpeed }

// FenceActions returns what carries out a geofence breach: the devices that implement
// FenceActions (a flying vehicle, a drone: on the device, its actuator or one of its drivers);
// or else, on a robot with a diff drive, the rover's own: Hold stops the drives; ReturnHome
// and Land hold as well (a rover does not drive home on its own yet: it stops where the fence
// tripped).
func (r *Robot) FenceActions() []FenceActions {
	var out []FenceActions
	for _, d := range r.devices {
		if fa := fenceActionsOf(d); fa != nil {
			out = append(out, fa)
		}
	}
	if len(out) == 0 && len(r.drives()) > 0 {
		out = append(out, roverFence{r})
	}
	return out
}

// DevicesOfKind returns the robot's devices of a kind, in configuration order.
func (r *Robot) DevicesOfKind(kind string) []Device {
	var out []Device
	for _, d := range r.devices {
		if d.kind == kind {
			out = append(out, d)
		}
	}
	return out
}

// Drive is an ActuatorImpl that moves the robot over the ground (a rover's drive): a geofence
// breach on a robot with nothing that flies stops it.
type Drive interface{ Drives() }

func isDrive(act *actuator) bool { _, ok := act.impl().(Drive); return ok }

// drives are the robot's drive actuators.
func (r *Robot) drives() []*actuator {
	var out []*actuator
	for _, d := range r.devices {
		if d.act != nil && isDrive(d.act) {
			out = append(out, d.act)
		}
	}
	return out
}

// roverFence is a rover's answer to a breach: stop the drives.
type roverFence struct{ r *Robot }

func (f roverFence) Hold() error {
	for _, d := range f.r.devices {
		if d.act != nil && isDrive(d.act) {
			if err := f.r.env.hold(d.act); err != nil && err != ErrEStopped {
				return err
			}
		}
	}
	return nil
}

// ReturnHome holds: a rover stops where the fence tripped (driving home needs a planner that
// keeps inside the fence, which botd does not have; to a running mission's rally point the
// daemon drives it itself, in a straight line: cmd/botd returnhome.go).
func (f roverFence) ReturnHome() error { return f.Hold() }

// Land holds: a rover is on the ground.
func (f roverFence) Land() error { return f.Hold() }

// fenceActionsOf finds FenceActions on a device: the device, its actuator's implementation or
// one of its Gobot drivers, whichever a kind chose to give the methods to.
func fenceActionsOf(d *device) FenceActions {
	var x any = d
	if fa, ok := x.(FenceActions); ok {
		return fa
	}
	if d.act != nil {
		if fa, ok := d.act.impl().(FenceActions); ok {
			return fa
		}
	}
	for _, drv := range d.drivers {
		if fa, ok := drv.(FenceActions); ok {
			return fa
		}
	}
	return nil
}
