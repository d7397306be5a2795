package geofence

import (
	"math"
	"strings"
	"testing"
)

// A concave "U": the notch between the arms is outside.
var uShape = Polygon{Xs: []float64{0, 10, 10, 7, 7, 3, 3, 0}, Ys: []float64{0, 0, 10, 10, 3, 3, 10, 10}}

func TestDistance(t *testing.T) {
	sq := Polygon{Xs: []float64{-5, 5, 5, -5}, Ys: []float64{-5, -5, 5, 5}}
	for _, c := range []struct {
		p    Polygon
		x, y float64
		want float64
	}{
		{sq, 0, 0, 5},
		{sq, 5, 0, 0},  // on an edge
		{sq, 5, 5, 0},  // on a corner
		{sq, 8, 9, -5}, // outside, nearest a corner (3-4-5)
		{uShape, 1.5, 8, 1.5},
		{uShape, 5, 8, -2}, // in the notch: outside
		{uShape, 5, 2, 1},
	} {
		if got := c.p.Distance(c.x, c.y); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Distance(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

func TestProblem(t *testing.T) {
	for _, c := range []struct {
		p    Polygon
		want string // "" for none
		at   int
	}{
		{uShape, "", -1},
		{Polygon{Xs: []float64{0, 1, 1, 0}, Ys: []float64{0, 0, 1, 1}}, "", -1},
		{Polygon{Xs: []float64{0, 1, 0, 1}, Ys: []float64{0, 1, 1, 0}}, "crosses edge", 2},     // a bow tie
		{Polygon{Xs: []float64{0, 2, 1}, Ys: []float64{0, 0, 1e-13}}, "no area", -1},           // flat
		{Polygon{Xs: []float64{0, 0, 1, 0}, Ys: []float64{0, 0, 0, 1}}, "repeats corner 0", 1}, // a corner twice
	} {
		msg, at := c.p.Problem()
		if c.want == "" && msg != "" || !strings.Contains(msg, c.want) || at != c.at {
			t.Errorf("%v: %q at %d, want %q at %d", c.p, msg, at, c.want, c.at)
		}
	}
}

func TestClearanceAndJudge(t *testing.T) {
	s := Shape{Polygon: Polygon{Xs: []float64{-50, 50, 50, -50}, Ys: []float64{-50, -50, 50, 50}}, MinAlt: 2, MaxAlt: 30}
	if d := s.Clearance(0, 0, 29); d != 1 {
		t.Errorf("1 m under max_alt: clearance %v", d)
	}
	if d := s.Clearance(0, 0, 1); d != -1 {
		t.Errorf("1 m under min_alt: clearance %v", d)
	}
	flat := Shape{Polygon: s.Polygon, MinAlt: math.Inf(-1), MaxAlt: math.Inf(1)}
	if flat.HasAlt() || !s.HasAlt() || flat.Clearance(49, 0, 1e9) != 1 {
		t.Error("a shape without an altitude band ignores the altitude")
	}
	for _, c := range []struct {
		clearance, speed float64
		want             State
	}{
		{-0.1, 0, Outside},
		{0.5, 0, Near}, // within the margin, standing
		{3, 0, Inside}, // clear, standing
		{3, 5, Near},   // clear now, within the margin half a second ahead
		{3, 0.01, Inside},
	} {
		if got := Judge(c.clearance, c.speed, 0.5, 1); got != c.want {
			t.Errorf("Judge(%v m, %v m/s) = %v, want %v", c.clearance, c.speed, got, c.want)
		}
	}
}

// haversine is the great-circle distance in metres (a check on toLocal).
func haversine(lat1, lon1, lat2, lon2 float64) float64 {
	r := math.Pi / 180
	a := math.Pow(math.Sin((lat2-lat1)*r/2), 2) + math.Cos(lat1*r)*math.Cos(lat2*r)*math.Pow(math.Sin((lon2-lon1)*r/2), 2)
	return 2 * 6371008.8 * math.Asin(math.Sqrt(a))
}

func TestLocalFrame(t *testing.T) {
	o := LatLon{Lat: 52.5163, Lon: 13.3777}
	if x, y := o.ToLocal(o.Lat, o.Lon); x != 0 || y != 0 {
		t.Errorf("origin at (%v, %v)", x, y)
	}
	for _, p := range []struct{ lat, lon float64 }{{52.5173, 13.3777}, {52.5163, 13.3807}, {52.5100, 13.3700}, {52.5250, 13.3900}} {
		x, y := o.ToLocal(p.lat, p.lon)
		d := haversine(o.Lat, o.Lon, p.lat, p.lon)
		if math.Abs(math.Hypot(x, y)-d) > 0.005*d {
			t.Errorf("(%v, %v): local (%.2f, %.2f) is %.2f m from the origin, the great circle %.2f m", p.lat, p.lon, x, y, math.Hypot(x, y), d)
		}
	}
	x, y := o.ToLocal(52.5173, 13.3777) // 0.001° north
	if math.Abs(x) > 1e-9 || math.Abs(y-111.3) > 0.2 {
		t.Errorf("0.001° north is (%.3f, %.3f)", x, y)
	}
	// Across the antimeridian.
	x, _ = LatLon{Lat: 0, Lon: 179.9999}.ToLocal(0, -179.9999)
	if math.Abs(x-22.26) > 0.05 {
		t.Errorf("across the antimeridian: x %.3f", x)
	}
}
