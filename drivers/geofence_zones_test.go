package drivers

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers/geofence"
)

// A mission's zones narrow the config's keep-in: a point must be inside the keep-in and every
// inclusion zone and outside every exclusion zone; the check names the zone nearest to breach;
// without zones, the keep-in alone; a fence without a keep-in and without zones needs no pose.
func TestFenceMonitorZones(t *testing.T) {
	one := 1.0
	o := GeoPoint{Lat: 47.3977, Lon: 8.5456}
	box := [][2]float64{{-10, -10}, {10, -10}, {10, 10}, {-10, 10}}
	g := &GeofenceConfig{Frame: "global", Origin: &o, Margin: &one}
	for _, p := range box { // the box in latitude and longitude around o
		g.Points = append(g.Points, [2]float64{o.Lat + p[1]/111_200, o.Lon + p[0]/(111_200*math.Cos(o.Lat*math.Pi/180))})
	}
	f, err := CompileFence(g, nil, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	if !f.CanPlaceZones() || f.ZoneOrigin(GeoPoint{}) != o {
		t.Fatalf("a global fence places zones around its origin")
	}
	vals := map[string]float64{}
	now := time.Unix(1000, 0)
	m := NewFenceMonitor(f, func(k string) (float64, time.Time, bool) { v, ok := vals[k]; return v, now, ok })
	at := func(x, y float64) FenceCheck {
		now = now.Add(time.Hour) // standing still
		vals["pose.x"], vals["pose.y"] = x, y
		return m.Check(now)
	}
	// a wide inclusion polygon (it cannot widen the 10 m box) and an exclusion circle at (5, 0)
	wide := geofence.Zone{Name: "wide", Polygon: geofence.Polygon{Xs: []float64{-100, 100, 100, -100}, Ys: []float64{-100, -100, 100, 100}},
		MinAlt: math.Inf(-1), MaxAlt: math.Inf(1)}
	hole := geofence.Zone{Name: "hole", Exclusion: true, CX: 5, CY: 0, Radius: 2, MinAlt: math.Inf(-1), MaxAlt: math.Inf(1)}
	m.SetZones(geofence.Zones{wide, hole}, o)
	for _, c := range []struct {
		x, y  float64
		state FenceState
		zone  string
		clear float64
	}{
		{-5, 0, FenceInside, ConfigZone, 5},   // 5 m from the box, 8 from the hole
		{0, 0, FenceInside, "hole", 3},        // 3 m from the hole's rim
		{5, 0, FenceOutside, "hole", -2},      // in the hole
		{2.5, 0, FenceNear, "hole", 0.5},      // within the margin of the hole
		{15, 0, FenceOutside, ConfigZone, -5}, // inside the wide zone, outside the box
	} {
		got := at(c.x, c.y)
		if got.State != c.state || m.ZoneName(got.Zone) != c.zone || math.Abs(got.Clearance-c.clear) > 0.05 { // the box is placed by 111.2 km a degree
			t.Errorf("at (%v, %v): %v in %q, %.3f m; want %v in %q, %v m", c.x, c.y, got.State, m.ZoneName(got.Zone), got.Clearance, c.state, c.zone, c.clear)
		}
	}
	m.SetZones(nil, o) // the mission ended: the box alone
	if got := at(5, 0); got.State != FenceInside || got.Zone != -1 || math.Abs(got.Clearance-5) > 0.05 {
		t.Errorf("without the zones, at (5, 0): %+v", got)
	}

	// no keep-in: no zones, nothing to check (and no pose needed); zones, checked alone
	zf, err := compileFence(&GeofenceConfig{Frame: "local", Origin: nil, Margin: &one, ReactionMs: 500, StaleMs: 1000, Action: FenceHold}, nil, "geofence", false)
	if err != nil {
		t.Fatal(err)
	}
	zm := NewFenceMonitor(zf, func(k string) (float64, time.Time, bool) { v, ok := vals[k]; return v, now, ok })
	clear(vals)
	if c := zm.Check(now); c.State != FenceInside || !math.IsInf(c.Clearance, 1) {
		t.Fatalf("no keep-in, no zones, no pose: %+v", c)
	}
	zm.SetZones(geofence.Zones{hole}, o)
	if c := zm.Check(now); c.State != FenceNoPose {
		t.Fatalf("zones and no pose: %+v", c)
	}
	vals["pose.x"], vals["pose.y"] = 50, 0 // far outside the other fence's box
	if c := zm.Check(now); c.State != FenceInside || c.Clearance != 43 || c.Zone != 0 {
		t.Fatalf("zone alone at (50, 0): %+v", c)
	}
	if zf.CanPlaceZones() {
		t.Error("a local fence without an origin on a robot without a vehicle places zones")
	}
	if _, err := ZoneFence(nil); !errors.Is(err, ErrNoMapPosition) {
		t.Errorf("ZoneFence without a position on the map: %v", err)
	}
}

// The check with zones allocates nothing.
func TestFenceMonitorZonesAllocs(t *testing.T) {
	o := GeoPoint{Lat: 47, Lon: 8}
	f, err := CompileFence(&GeofenceConfig{Frame: "global", Origin: &o, Points: [][2]float64{{46.99, 7.99}, {46.99, 8.01}, {47.01, 8.01}, {47.01, 7.99}}}, nil, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	m := NewFenceMonitor(f, func(k string) (float64, time.Time, bool) { return 1, now, true })
	m.SetZones(geofence.Zones{{Name: "c", Exclusion: true, CX: 50, CY: 50, Radius: 5, MinAlt: math.Inf(-1), MaxAlt: math.Inf(1)}}, o)
	if n := testing.AllocsPerRun(100, func() { now = now.Add(time.Millisecond); m.Check(now) }); n != 0 {
		t.Errorf("%v allocations per check", n)
	}
}

// The check with a plan's largest zones: the 64-corner keep-in of BenchmarkFenceCheck and 64
// zones (a 16-corner inclusion polygon and 63 exclusion circles).
func BenchmarkFenceCheckZones(b *testing.B) {
	o := GeoPoint{Lat: 47, Lon: 8}
	pts := make([][2]float64, 64)
	for i := range pts {
		a := float64(i) * 2 * math.Pi / 64
		x, y := 100*math.Cos(a), 100*math.Sin(a)
		pts[i] = [2]float64{o.Lat + y/111_200, o.Lon + x/(111_200*math.Cos(o.Lat*math.Pi/180))}
	}
	f, err := CompileFence(&GeofenceConfig{Frame: "global", Origin: &o, Points: pts}, nil, "geofence")
	if err != nil {
		b.Fatal(err)
	}
	inf := math.Inf(1)
	zs := geofence.Zones{{Name: "in", MinAlt: -inf, MaxAlt: inf}}
	for i := 0; i < 16; i++ {
		a := float64(i) * 2 * math.Pi / 16
		zs[0].Polygon.Xs = append(zs[0].Polygon.Xs, 90*math.Cos(a))
		zs[0].Polygon.Ys = append(zs[0].Polygon.Ys, 90*math.Sin(a))
	}
	for i := 1; i < geofence.MaxZones; i++ {
		zs = append(zs, geofence.Zone{Name: "out", Exclusion: true, CX: 60 * math.Cos(float64(i)), CY: 60 * math.Sin(float64(i)), Radius: 3, MinAlt: -inf, MaxAlt: inf})
	}
	vals := map[string]float64{"pose.x": 0, "pose.y": 0}
	at := time.Unix(1000, 0)
	m := NewFenceMonitor(f, func(k string) (float64, time.Time, bool) { v, ok := vals[k]; return v, at, ok })
	m.SetZones(zs, o)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		at = at.Add(time.Millisecond)
		vals["pose.x"] = float64(i%100) * 0.3
		if c := m.Check(at); c.State == FenceNoPose {
			b.Fatal("no pose")
		}
	}
}
