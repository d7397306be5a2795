package drivers

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/geofence"
)

func localFence(t testing.TB, pts [][2]float64, margin float64) *Fence {
	t.Helper()
	g := &GeofenceConfig{Frame: "local", Points: pts, Margin: &margin}
	f, err := CompileFence(g, nil, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A concave "U": the notch between the arms is outside.
var uShape = [][2]float64{{0, 0}, {10, 0}, {10, 10}, {7, 10}, {7, 3}, {3, 3}, {3, 10}, {0, 10}}

func TestFenceDistance(t *testing.T) {
	sq := localFence(t, [][2]float64{{-5, -5}, {5, -5}, {5, 5}, {-5, 5}}, 1)
	u := localFence(t, uShape, 1)
	for _, c := range []struct {
		f    *Fence
		x, y float64
		want float64
	}{
		{sq, 0, 0, 5},
		{sq, 4, 0, 1},
		{sq, 5, 0, 0},  // on an edge
		{sq, 5, 5, 0},  // on a corner
		{sq, 6, 0, -1}, // outside, beside an edge
		{sq, 8, 9, -5}, // outside, nearest a corner (3-4-5)
		{sq, -5.5, 0, -.5},
		{u, 1.5, 8, 1.5}, // in the left arm
		{u, 5, 8, -2},    // in the notch: outside, 2 m from either arm
		{u, 5, 2, 1},     // below the notch: inside
		{u, 5, 3, 0},     // on the notch's floor
		{u, 8.5, 9.5, .5},
	} {
		if got := c.f.Distance(c.x, c.y); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Distance(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	// either winding gives the same answer
	rev := make([][2]float64, len(uShape))
	for i, p := range uShape {
		rev[len(uShape)-1-i] = p
	}
	ur := localFence(t, rev, 1)
	for _, p := range [][2]float64{{1.5, 8}, {5, 8}, {5, 2}, {11, 11}} {
		if a, b := u.Distance(p[0], p[1]), ur.Distance(p[0], p[1]); math.Abs(a-b) > 1e-9 {
			t.Errorf("%v: %v one way round, %v the other", p, a, b)
		}
	}
}

func TestFenceAltitude(t *testing.T) {
	lo, hi := 2.0, 30.0
	g := &GeofenceConfig{Frame: "local", Points: [][2]float64{{-50, -50}, {50, -50}, {50, 50}, {-50, 50}}, MinAlt: &lo, MaxAlt: &hi, AltKey: "drone.height"}
	f, err := CompileFence(g, nil, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	if d := f.Clearance(0, 0, 29); d != 1 {
		t.Errorf("1 m under max_alt: clearance %v", d)
	}
	if d := f.Clearance(0, 0, 1); d != -1 {
		t.Errorf("1 m under min_alt: clearance %v", d)
	}
	if d := f.Clearance(49, 0, 15); d != 1 {
		t.Errorf("1 m from the edge at mid height: clearance %v", d)
	}
}

// A fence in lat/lon is converted around the origin: corners 100 m east and north of it land
// at 100 m in the local frame, to a few centimetres, and a point just inside a corner is
// inside.
func TestFenceGlobalToLocal(t *testing.T) {
	o := GeoPoint{Lat: 52.5163, Lon: 13.3777}
	// 100 m north and east of the origin, in degrees (WGS84 radii at this latitude)
	phi := o.Lat * math.Pi / 180
	w := math.Sqrt(1 - geofence.WGS84E2*math.Sin(phi)*math.Sin(phi))
	dLat := 100 / (geofence.WGS84A * (1 - geofence.WGS84E2) / (w * w * w)) * 180 / math.Pi
	dLon := 100 / (geofence.WGS84A / w * math.Cos(phi)) * 180 / math.Pi
	g := &GeofenceConfig{Frame: "global", Origin: &o, Points: [][2]float64{
		{o.Lat - dLat, o.Lon - dLon}, {o.Lat - dLat, o.Lon + dLon}, {o.Lat + dLat, o.Lon + dLon}, {o.Lat + dLat, o.Lon - dLon}}}
	f, err := CompileFence(g, nil, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	xs, ys := f.Corners()
	for i, want := range [][2]float64{{-100, -100}, {100, -100}, {100, 100}, {-100, 100}} {
		if math.Abs(xs[i]-want[0]) > 0.05 || math.Abs(ys[i]-want[1]) > 0.05 {
			t.Errorf("corner %d at (%.3f, %.3f), want %v", i, xs[i], ys[i], want)
		}
	}
	if d := f.Distance(99.5, 99.8); d <= 0 || d > 0.3 {
		t.Errorf("just inside the NE corner: distance %v", d)
	}
	if d := f.Distance(100.5, 0); d >= 0 {
		t.Errorf("half a metre east of the east edge: distance %v", d)
	}
}

func TestFenceConfigErrors(t *testing.T) {
	neg := -1.0
	lo, hi := 10.0, 5.0
	for _, c := range []struct {
		name string
		g    GeofenceConfig
		path string
		msg  string
	}{
		{"no frame", GeofenceConfig{Points: [][2]float64{{0, 0}, {1, 0}, {0, 1}}}, "geofence.frame", "missing"},
		{"bad frame", GeofenceConfig{Frame: "ned", Points: [][2]float64{{0, 0}, {1, 0}, {0, 1}}}, "geofence.frame", "not local or global"},
		{"two corners", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {1, 0}}}, "geofence.points", "at least 3"},
		{"bowtie", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {10, 10}, {10, 0}, {0, 10}}}, "geofence.points[2]", "intersects itself"},
		{"collinear", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {1, 1}, {2, 2}}}, "geofence.points[2]", "fold back"},
		{"repeated corner", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {1, 0}, {1, 0}, {0, 1}}}, "geofence.points[2]", "repeats corner 1"},
		{"spike", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {4, 0}, {2, 0}, {2, 3}}}, "geofence.points[1]", "fold back"},
		{"touching", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {4, 0}, {4, 4}, {2, 0}, {0, 4}}}, "geofence.points[2]", "intersects itself"},
		{"NaN", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {math.NaN(), 0}, {0, 1}}}, "geofence.points[1]", "finite"},
		{"latitude", GeofenceConfig{Frame: "global", Points: [][2]float64{{91, 0}, {0, 1}, {1, 1}}}, "geofence.points[0]", "latitude 91"},
		{"longitude", GeofenceConfig{Frame: "global", Points: [][2]float64{{0, 0}, {0, 181}, {1, 1}}}, "geofence.points[1]", "longitude 181"},
		{"global without origin", GeofenceConfig{Frame: "global", Points: [][2]float64{{0, 0}, {0, 0.001}, {0.001, 0.001}}}, "geofence.origin", "origin"},
		{"min above max", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {1, 0}, {0, 1}}, MinAlt: &lo, MaxAlt: &hi, AltKey: "h"}, "geofence.min_alt", "not below max_alt"},
		{"alt without key", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {1, 0}, {0, 1}}, MaxAlt: &hi}, "geofence.alt_key", "need the key"},
		{"negative margin", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {1, 0}, {0, 1}}, Margin: &neg}, "geofence.margin", "within"},
		{"action", GeofenceConfig{Frame: "local", Points: [][2]float64{{0, 0}, {1, 0}, {0, 1}}, Action: "explode"}, "geofence.action", "not hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := CompileFence(&c.g, nil, "geofence")
			var es ConfigErrors
			if !errors.As(err, &es) {
				t.Fatalf("got %v, want ConfigErrors", err)
			}
			for _, e := range es {
				if e.Path == c.path && strings.Contains(e.Message, c.msg) {
					return
				}
			}
			t.Fatalf("got %v, want %s: ...%s...", err, c.path, c.msg)
		})
	}
}

func TestFenceMissionTargets(t *testing.T) {
	f := localFence(t, [][2]float64{{-5, -5}, {5, -5}, {5, 5}, {-5, 5}}, 1)
	trees := map[string]*bt.NodeDef{
		"main": {Type: "Sequence", Children: []*bt.NodeDef{
			{Type: "MoveTo", Params: map[string]any{"x": 1.0, "y": 1.0}},
			{Type: "MoveTo", Params: map[string]any{"x": "{goal.x}", "y": 2.0}}, // known only when it runs
			{Type: "MoveTo", Params: map[string]any{"x": 7.0, "y": 0.0}},
		}},
		"home/base": {Type: "MoveTo", Params: map[string]any{"x": 4.5, "y": 0}},
	}
	ps := f.CheckTrees(trees)
	if len(ps) != 2 {
		t.Fatalf("problems %v", ps)
	}
	if ps[0].Path != "/trees/home~1base/params/x" || !strings.Contains(ps[0].Message, "within its 1 m margin") {
		t.Errorf("first problem %+v", ps[0])
	}
	if ps[1].Path != "/trees/main/children/2/params/x" || !strings.Contains(ps[1].Message, "2.00 m outside") || ps[1].Code != bt.CodeValidation {
		t.Errorf("second problem %+v", ps[1])
	}
}

// The hook the UAV leaves use: a registered GoTo (lat/lon/alt) and a Takeoff (alt).
func TestFenceTargetsRegistered(t *testing.T) {
	RegisterFenceTargets("TestGoTo", GlobalTarget("lat", "lon", "alt"))
	RegisterFenceTargets("TestTakeoff", AltitudeTarget("alt"))
	o := GeoPoint{Lat: 47, Lon: 8}
	hi := 50.0
	g := &GeofenceConfig{Frame: "global", Origin: &o, MaxAlt: &hi, AltKey: "alt",
		Points: [][2]float64{{46.999, 7.999}, {46.999, 8.001}, {47.001, 8.001}, {47.001, 7.999}}}
	f, err := CompileFence(g, nil, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	ps := f.CheckTrees(map[string]*bt.NodeDef{"main": {Type: "Sequence", Children: []*bt.NodeDef{
		{Type: "TestTakeoff", Params: map[string]any{"alt": 60.0}},
		{Type: "TestGoTo", Params: map[string]any{"lat": 47.0005, "lon": 8.0, "alt": 20.0}},
		{Type: "TestGoTo", Params: map[string]any{"lat": 47.002, "lon": 8.0, "alt": 20.0}},
	}}})
	if len(ps) != 2 || ps[0].Path != "/trees/main/children/0/params/alt" || ps[1].Path != "/trees/main/children/2/params/lat" {
		t.Fatalf("problems %v", ps)
	}
}

// The monitor: inside and still; moving toward the edge trips one reaction time ahead;
// outside; stale.
func TestFenceMonitor(t *testing.T) {
	f := localFence(t, [][2]float64{{-5, -5}, {5, -5}, {5, 5}, {-5, 5}}, 1)
	vals := map[string]float64{}
	var at time.Time
	m := NewFenceMonitor(f, func(k string) (float64, time.Time, bool) { v, ok := vals[k]; return v, at, ok })
	t0 := time.Unix(1000, 0)
	if c := m.Check(t0); c.State != FenceNoPose {
		t.Fatalf("no pose: %v", c.State)
	}
	step := func(x float64, now time.Time) FenceCheck {
		vals["pose.x"], vals["pose.y"], at = x, 0, now
		return m.Check(now)
	}
	if c := step(0, t0); c.State != FenceInside {
		t.Fatalf("at the centre: %v", c.State)
	}
	// 1 m/s toward x=5: with a 1 m margin and 0.5 s reaction it trips at clearance < 1.5 m
	if c := step(1, t0.Add(time.Second)); c.State != FenceInside || math.Abs(c.Speed-1) > 1e-9 {
		t.Fatalf("at x=1: %+v", c)
	}
	if c := step(3.4, t0.Add(3400*time.Millisecond)); c.State != FenceInside {
		t.Fatalf("at x=3.4 (1.6 m clear): %+v", c)
	}
	if c := step(3.6, t0.Add(3600*time.Millisecond)); c.State != FenceNear {
		t.Fatalf("at x=3.6 (1.4 m clear, 0.9 m in 0.5 s): %+v", c)
	}
	// stopped at 1.4 m: clear of the margin, inside, and seen standing still once a whole
	// speed window (half the 0.5 s reaction time) has passed since the last measurement
	if c := step(3.6, t0.Add(3700*time.Millisecond)); c.State != FenceInside || !c.Moving() {
		t.Fatalf("0.1 s after stopping at x=3.6 (0.2 m in the last 0.3 s): %+v", c)
	}
	if c := step(3.6, t0.Add(3900*time.Millisecond)); !c.Moving() {
		t.Fatalf("0.2 s later, within the window: the last speed holds: %+v", c)
	}
	if c := step(3.6, t0.Add(4000*time.Millisecond)); c.State != FenceInside || c.Moving() {
		t.Fatalf("stopped at x=3.6: %+v", c)
	}
	if c := step(5.5, t0.Add(5*time.Second)); c.State != FenceOutside || c.Clearance != -0.5 {
		t.Fatalf("at x=5.5: %+v", c)
	}
	if c := m.Check(t0.Add(6100 * time.Millisecond)); c.State != FenceNoPose {
		t.Fatalf("1.1 s later: %+v", c)
	}
}

// Positions read in bursts (a loaded machine: the reading's time is when it was read, a few
// milliseconds apart, while the vehicle moved for a whole sample period between them) give
// the real speed, not a multiple of it that predicts a breach.
func TestFenceMonitorSpeedFromBurstyReadings(t *testing.T) {
	f := localFence(t, [][2]float64{{-500, -500}, {500, -500}, {500, 500}, {-500, 500}}, 1)
	vals := map[string]float64{}
	var at time.Time
	m := NewFenceMonitor(f, func(k string) (float64, time.Time, bool) { v, ok := vals[k]; return v, at, ok })
	t0 := time.Unix(1000, 0)
	const speed = 5.0 // m/s, sampled every 50 ms
	maxSeen := 0.0
	for i := 0; i < 100; i++ {
		truth := time.Duration(i) * 50 * time.Millisecond
		read := truth
		if i%2 == 1 {
			read = truth - 48*time.Millisecond // read 2 ms after the one before
		}
		vals["pose.x"], vals["pose.y"], at = speed*truth.Seconds(), 0, t0.Add(read)
		c := m.Check(at)
		maxSeen = max(maxSeen, c.Speed)
	}
	if maxSeen > 2*speed {
		t.Fatalf("bursty readings at %v m/s gave a speed of %.1f m/s", speed, maxSeen)
	}
	if maxSeen < speed/2 {
		t.Fatalf("the speed was never measured: %.1f m/s", maxSeen)
	}
}

func BenchmarkFenceCheck(b *testing.B) {
	// a 64-corner circle, the monitor reading through a map like Robot.Reading's index
	pts := make([][2]float64, 64)
	for i := range pts {
		a := float64(i) * 2 * math.Pi / 64
		pts[i] = [2]float64{100 * math.Cos(a), 100 * math.Sin(a)}
	}
	f := localFence(b, pts, 2)
	vals := map[string]float64{"pose.x": 0, "pose.y": 0}
	at := time.Unix(1000, 0)
	m := NewFenceMonitor(f, func(k string) (float64, time.Time, bool) { v, ok := vals[k]; return v, at, ok })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		at = at.Add(time.Millisecond)
		vals["pose.x"] = float64(i%100) * 0.5
		if c := m.Check(at); c.State == FenceNoPose {
			b.Fatal("no pose")
		}
	}
}

// FuzzGeofence feeds fence configs (outside input: an operator's file): validation never
// panics and locates every problem, and a fence it accepts gives a finite distance for any
// point and checks mission targets without panicking.
func FuzzGeofence(f *testing.F) {
	f.Add(false, 0.0, 0.0, 10.0, 0.0, 10.0, 10.0, 0.0, 10.0, 5.0, 5.0)
	f.Add(false, 0.0, 0.0, 10.0, 10.0, 10.0, 0.0, 0.0, 10.0, 5.0, 5.0)
	f.Add(true, 47.0, 8.0, 47.001, 8.0, 47.001, 8.001, 47.0, 8.001, 47.0005, 8.0005)
	f.Add(false, 0.0, 0.0, 1e-300, 0.0, 0.0, 1e-300, 5.0, 5.0, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, global bool, a, b, c, d, e, g, h, i, px, py float64) {
		frame := "local"
		if global {
			frame = "global"
		}
		cfg := &GeofenceConfig{Frame: frame, Points: [][2]float64{{a, b}, {c, d}, {e, g}, {h, i}}, Origin: &GeoPoint{Lat: 47, Lon: 8}}
		if !global {
			cfg.Origin = nil
		}
		fence, err := CompileFence(cfg, nil, "geofence")
		if err != nil {
			var es ConfigErrors
			if !errors.As(err, &es) {
				t.Fatalf("error %v is not located", err)
			}
			return
		}
		x, y := px, py
		if global {
			if math.Abs(px) > 90 || math.Abs(py) > 180 {
				return
			}
			x, y = fence.origin.ToLocal(px, py)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) || math.Abs(x) > 1e7 || math.Abs(y) > 1e7 {
			return
		}
		dist := fence.Distance(x, y)
		if math.IsNaN(dist) || math.IsInf(dist, 0) {
			t.Fatalf("distance %v at (%v, %v)", dist, x, y)
		}
		_ = fence.CheckTrees(map[string]*bt.NodeDef{"main": {Type: "MoveTo", Params: map[string]any{"x": x, "y": y}}})
	})
}

// A device kind gives FenceActions to its actuator's implementation (or its driver, or the
// device): the robot finds it there.
type vehicleImpl struct {
	ActuatorImpl[twoAxes]
	calls []string
}

func (v *vehicleImpl) Hold() error       { v.calls = append(v.calls, "hold"); return nil }
func (v *vehicleImpl) ReturnHome() error { v.calls = append(v.calls, "home"); return nil }
func (v *vehicleImpl) Land() error       { v.calls = append(v.calls, "land"); return nil }

func TestFenceActionsFound(t *testing.T) {
	v := &vehicleImpl{}
	d := &device{name: "uav", kind: "vehicle", act: &actuator{slot: &Actuator[twoAxes]{i: v}}}
	r := &Robot{devices: []*device{d, {name: "led", kind: "led"}}}
	fa := r.FenceActions()
	if len(fa) != 1 || fa[0].ReturnHome() != nil || len(v.calls) != 1 || v.calls[0] != "home" {
		t.Fatalf("fence actions %v, calls %v", fa, v.calls)
	}
	if fa := (&Robot{devices: []*device{{name: "led", kind: "led"}}}).FenceActions(); len(fa) != 0 {
		t.Fatalf("a robot that moves nothing: %v", fa)
	}
}
