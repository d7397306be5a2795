package geofence

import (
	"math"
	"strings"
	"testing"
)

var noBand = [2]float64{math.Inf(-1), math.Inf(1)}

func square(name string, excl bool, c, half float64) Zone {
	return Zone{Name: name, Exclusion: excl, MinAlt: noBand[0], MaxAlt: noBand[1],
		Polygon: Polygon{Xs: []float64{c - half, c + half, c + half, c - half}, Ys: []float64{-half, -half, half, half}}}
}

// A keep-in square of 200 m, a keep-out circle of 10 m at (50, 0), a keep-out square of 20 m at
// (-50, 0) between 10 and 30 m of altitude, and a keep-in circle of 90 m around the origin
// below 40 m.
func testZones() Zones {
	noFly := square("roof", true, -50, 10)
	noFly.MinAlt, noFly.MaxAlt = 10, 30
	return Zones{
		square("field", false, 0, 100),
		{Name: "tree", Exclusion: true, CX: 50, Radius: 10, MinAlt: noBand[0], MaxAlt: noBand[1]},
		noFly,
		{Name: "range", Radius: 90, MinAlt: noBand[0], MaxAlt: 40},
	}
}

func TestZonesClearance(t *testing.T) {
	zs := testZones()
	for _, c := range []struct {
		x, y, alt float64
		want      float64
		zone      string
	}{
		{0, 0, 5, 35, "range"},  // the band's top is nearest
		{0, 0, 39, 1, "range"},  // 1 m under the keep-in band's top
		{0, 0, 41, -1, "range"}, // 1 m above it: outside
		{50, 0, 5, -10, "tree"}, // at the keep-out circle's centre
		{63, 0, 5, 3, "tree"},   // 3 m from its edge
		{50, 85, 5, -(math.Hypot(50, 85) - 90), "range"},
		{0, 95, 5, -5, "range"},   // inside the square, outside the circle
		{-50, 0, 20, -10, "roof"}, // inside the keep-out volume
		{-50, 0, 5, 5, "roof"},    // under it, 5 m below its bottom
		{-50, 0, 35, 5, "roof"},   // above it: 5 m over its top, 5 m under the range's (the first wins)
		{-50, 0, 31, 1, "roof"},   // 1 m over its top
		{-64, 0, 20, 4, "roof"},   // 4 m beside it
		{99, 99, 5, -(math.Hypot(99, 99) - 90), "range"},
	} {
		d, at := zs.Clearance(c.x, c.y, c.alt)
		if math.Abs(d-c.want) > 1e-9 || at < 0 || zs[at].Name != c.zone {
			name := "none"
			if at >= 0 {
				name = zs[at].Name
			}
			t.Errorf("(%v, %v, %v): clearance %v at %q, want %v at %q", c.x, c.y, c.alt, d, name, c.want, c.zone)
		}
	}
	if d, at := (Zones{}).Clearance(1, 2, 3); !math.IsInf(d, 1) || at != -1 {
		t.Errorf("no zones: %v at %d", d, at)
	}
}

// The old single keep-in polygon is one inclusion zone: the same clearance as its Shape.
func TestZoneIsShape(t *testing.T) {
	s := Shape{Polygon: uShape, MinAlt: 2, MaxAlt: 30}
	z := Zones{{Name: "u", Polygon: uShape, MinAlt: 2, MaxAlt: 30}}
	for _, p := range [][3]float64{{1.5, 8, 10}, {5, 8, 10}, {5, 2, 1}, {5, 2, 29.5}, {20, 20, 50}} {
		d, _ := z.Clearance(p[0], p[1], p[2])
		if want := s.Clearance(p[0], p[1], p[2]); d != want {
			t.Errorf("%v: zone clearance %v, shape %v", p, d, want)
		}
	}
}

func TestZonesCheck(t *testing.T) {
	zs := testZones()
	for _, c := range []struct {
		x, y, alt, speed float64
		state            State
		zone             string
	}{
		{0, 0, 5, 0, Inside, "range"},
		{50, 0, 5, 0, Outside, "tree"},
		{61.5, 0, 5, 0, Near, "tree"}, // within the margin, standing
		{65, 0, 5, 8, Near, "tree"},   // clear now, not half a second ahead at 8 m/s
		{-50, 0, 25, 0, Outside, "roof"},
	} {
		v := zs.Check(c.x, c.y, c.alt, c.speed, 0.5, 2)
		if v.State != c.state || zs[v.Zone].Name != c.zone {
			t.Errorf("(%v, %v, %v) at %v m/s: %v at %q, want %v at %q", c.x, c.y, c.alt, c.speed, v.State, zs[v.Zone].Name, c.state, c.zone)
		}
	}
}

func TestZonesProblem(t *testing.T) {
	ok := testZones()
	if msg, _, _ := ok.Problem(); msg != "" {
		t.Fatalf("good zones: %s", msg)
	}
	bad := func(edit func(*Zone)) Zones {
		zs := testZones()
		edit(&zs[1])
		return zs
	}
	bowtie := Polygon{Xs: []float64{0, 1, 0, 1}, Ys: []float64{0, 1, 1, 0}}
	for _, c := range []struct {
		zs   Zones
		want string
		zone int
		at   int
	}{
		{bad(func(z *Zone) { z.Radius = 0 }), "radius 0", 1, -1},
		{bad(func(z *Zone) { z.Radius = -3 }), "radius -3", 1, -1},
		{bad(func(z *Zone) { z.Radius = math.NaN() }), "radius NaN", 1, -1},
		{bad(func(z *Zone) { z.CX = math.NaN() }), "centre is not a number", 1, -1},
		{bad(func(z *Zone) { z.Radius = 2e5 }), "at most", 1, -1},
		{bad(func(z *Zone) { z.Radius, z.Polygon = 0, bowtie }), "crosses edge", 1, 2},
		{bad(func(z *Zone) {
			z.Radius, z.Polygon = 0, Polygon{Xs: []float64{0, 1}, Ys: []float64{0, 1}}
		}), "2 corners", 1, -1},
		{bad(func(z *Zone) {
			z.Radius, z.Polygon = 0, Polygon{Xs: []float64{0, 1, math.NaN()}, Ys: []float64{0, 1, 0}}
		}), "corner 2 is not a number", 1, 2},
		{bad(func(z *Zone) { z.MinAlt, z.MaxAlt = 10, 10 }), "not below", 1, -1},
		{bad(func(z *Zone) { z.MinAlt = math.NaN() }), "band is not a number", 1, -1},
		{make(Zones, MaxZones+1), "above the limit", -1, -1},
	} {
		msg, zone, at := c.zs.Problem()
		if !strings.Contains(msg, c.want) || zone != c.zone || at != c.at {
			t.Errorf("%q in zone %d at %d, want %q in zone %d at %d", msg, zone, at, c.want, c.zone, c.at)
		}
	}
	big := make([]float64, MaxPoints)
	many := Zones{}
	for range MaxZonePoints/MaxPoints + 1 {
		many = append(many, Zone{Polygon: Polygon{Xs: big, Ys: big}})
	}
	if msg, zone, _ := many.Problem(); !strings.Contains(msg, "corners in all zones") || zone != len(many)-1 {
		t.Errorf("too many corners: %q in zone %d", msg, zone)
	}
	if k := testZones()[1].Kind(); k != "exclusion circle" {
		t.Errorf("kind %q", k)
	}
}

func TestZonesCheckAllocatesNothing(t *testing.T) {
	zs := testZones()
	if n := testing.AllocsPerRun(100, func() { zs.Check(10, 20, 5, 3, 0.5, 2) }); n != 0 {
		t.Errorf("a check allocates %v times", n)
	}
}

// A check of four zones, and of a 1000-corner keep-in polygon with an exclusion circle.
func BenchmarkZonesCheck(b *testing.B) {
	b.Run("four", func(b *testing.B) {
		zs := testZones()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			zs.Check(float64(i%100), 5, 5, 3, 0.5, 2)
		}
	})
	b.Run("1000corners", func(b *testing.B) {
		n := MaxPoints
		p := Polygon{Xs: make([]float64, n), Ys: make([]float64, n)}
		for k := range n {
			a := 2 * math.Pi * float64(k) / float64(n)
			p.Xs[k], p.Ys[k] = 500*math.Cos(a), 500*math.Sin(a)
		}
		zs := Zones{{Name: "big", Polygon: p, MinAlt: noBand[0], MaxAlt: 120},
			{Name: "hole", Exclusion: true, Radius: 20, CX: 100, MinAlt: noBand[0], MaxAlt: noBand[1]}}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			zs.Check(float64(i%300), 5, 5, 3, 0.5, 2)
		}
	})
}

// A mission's inclusion zone wider than the config's keep-in fence does not widen it: outside
// the config's fence is outside, the breach naming the config's zone; a mission's exclusion
// zone inside it narrows it.
func TestKeepInCombined(t *testing.T) {
	cfg := Shape{Polygon: Polygon{Xs: []float64{-50, 50, 50, -50}, Ys: []float64{-50, -50, 50, 50}}, MinAlt: math.Inf(-1), MaxAlt: 40}
	zs := Zones{KeepIn("config", cfg),
		{Name: "plan wide", Radius: 500, MinAlt: noBand[0], MaxAlt: noBand[1]},
		{Name: "plan hole", Exclusion: true, CX: 20, Radius: 5, MinAlt: noBand[0], MaxAlt: noBand[1]}}
	for _, c := range []struct {
		x, y, alt float64
		state     State
		zone      string
	}{
		{100, 0, 10, Outside, "config"}, // inside the plan's zone, outside the config's
		{0, 0, 45, Outside, "config"},   // above the config's band
		{20, 0, 10, Outside, "plan hole"},
		{-30, 0, 10, Inside, "config"},
	} {
		v := zs.Check(c.x, c.y, c.alt, 0, 0.5, 1)
		if v.State != c.state || zs[v.Zone].Name != c.zone {
			t.Errorf("(%v, %v, %v): %v at %q, want %v at %q", c.x, c.y, c.alt, v.State, zs[v.Zone].Name, c.state, c.zone)
		}
		if d := cfg.Clearance(c.x, c.y, c.alt); c.zone == "config" && d != v.Clearance {
			t.Errorf("(%v, %v, %v): clearance %v, the config's shape %v", c.x, c.y, c.alt, v.Clearance, d)
		}
	}
}

func TestNearest(t *testing.T) {
	xs, ys := []float64{100, -10, 30}, []float64{0, 5, 30}
	for _, c := range []struct {
		x, y float64
		want int
	}{{0, 0, 1}, {90, 10, 0}, {25, 25, 2}} {
		if got := Nearest(c.x, c.y, xs, ys); got != c.want {
			t.Errorf("Nearest(%v, %v) = %d, want %d", c.x, c.y, got, c.want)
		}
	}
	if Nearest(0, 0, nil, nil) != -1 {
		t.Error("no points: not -1")
	}
	if n := testing.AllocsPerRun(100, func() { Nearest(1, 2, xs, ys) }); n != 0 {
		t.Errorf("Nearest allocates %v times", n)
	}
}

// ReturnPoint: the nearest rally point the zones allow with the margin to spare, else home.
func TestReturnPoint(t *testing.T) {
	inf := math.Inf(1)
	zs := Zones{
		{Name: "keep", Polygon: Polygon{Xs: []float64{-50, 50, 50, -50}, Ys: []float64{-50, -50, 50, 50}}, MinAlt: -inf, MaxAlt: inf},
		{Name: "hole", Exclusion: true, CX: 10, CY: 0, Radius: 5, MinAlt: -inf, MaxAlt: inf},
	}
	xs, ys := []float64{12, 20, -30, 49.5, math.NaN()}, []float64{0, 0, 0, 0, 0}
	for _, c := range []struct {
		x, y   float64
		margin float64
		want   int
	}{
		{14, 0, 1, 1},   // 12 is in the hole: 20 is the nearest allowed
		{48, 0, 1, 1},   // 49.5 is within the margin of the keep-in's edge
		{48, 0, 0.5, 3}, // not with a smaller margin
		{-20, 0, 1, 2},
	} {
		if got := zs.ReturnPoint(c.x, c.y, xs, ys, 0, c.margin); got != c.want {
			t.Errorf("ReturnPoint(%v, %v, margin %v) = %d, want %d", c.x, c.y, c.margin, got, c.want)
		}
	}
	if got := zs.ReturnPoint(0, 0, []float64{12}, []float64{0}, 0, 1); got != -1 {
		t.Errorf("the only rally point in the hole: %d, want -1 (home)", got)
	}
	if got := (Zones{}).ReturnPoint(0, 0, xs, ys, 0, 1); got != 0 {
		t.Errorf("no zones: %d, want the nearest, 0", got)
	}
	if n := testing.AllocsPerRun(100, func() { zs.ReturnPoint(1, 2, xs, ys, 0, 1) }); n != 0 {
		t.Errorf("ReturnPoint allocates %v times", n)
	}
}
