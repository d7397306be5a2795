// Package geofence is the geometry of fences: a polygon's problems (crossing edges, no area),
// the signed distance from a point to its edge, the altitude band, the plane tangent to the
// WGS84 ellipsoid that global corners are placed on, and the verdict of one check of a
// position. A fence is one keep-in Shape, or a set of named Zones (zones.go): inclusion and
// exclusion polygons and circles, each with its altitude band, a check naming the zone it
// breaches. It is pure: it imports nothing of botd, reads no clock and keeps no state but what
// its values hold. The drivers core compiles a robot's fence against its sensors with it; the
// daemon enforces it.
package geofence

import (
	"fmt"
	"math"
)

// MaxPoints bounds a fence's corners (the self-intersection check is quadratic).
const MaxPoints = 1000

// LatLon is a latitude and longitude in degrees (WGS84).
type LatLon struct {
	Lat float64 `yaml:"lat"`
	Lon float64 `yaml:"lon"`
}

// WGS84.
const (
	WGS84A  = 6378137.0        // semi-major axis, m
	WGS84E2 = 6.69437999014e-3 // first eccentricity squared
)

// ToLocal converts a latitude and longitude to metres east (x) and north (y) of o, on the
// plane tangent to the ellipsoid at o.
func (o LatLon) ToLocal(lat, lon float64) (x, y float64) {
	phi := o.Lat * math.Pi / 180
	s := math.Sin(phi)
	w := math.Sqrt(1 - WGS84E2*s*s)
	n := WGS84A / w                           // prime vertical radius of curvature
	m := WGS84A * (1 - WGS84E2) / (w * w * w) // meridional radius of curvature
	dLon := math.Mod(lon-o.Lon+540, 360) - 180
	return dLon * math.Pi / 180 * n * math.Cos(phi), (lat - o.Lat) * math.Pi / 180 * m
}

// Polygon is a fence's corners in a plane (metres), in order either way round; the last joins
// the first.
type Polygon struct {
	Xs, Ys []float64
}

// Problem says what makes a polygon unusable as a fence (and at which corner, or -1): repeated
// corners, no area, edges that cross or touch other than at their shared corner. "" for none.
func (p Polygon) Problem() (string, int) {
	xs, ys := p.Xs, p.Ys
	n := len(xs)
	scale := 0.0
	for i := range xs {
		scale = math.Max(scale, math.Max(math.Abs(xs[i]), math.Abs(ys[i])))
	}
	eps := 1e-12 * math.Max(scale, 1)
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		if math.Abs(xs[i]-xs[j]) <= eps && math.Abs(ys[i]-ys[j]) <= eps {
			return fmt.Sprintf("repeats corner %d: a fence's corners must differ from the next", i), j
		}
	}
	for i := 0; i < n; i++ {
		i2 := (i + 1) % n
		for j := i + 1; j < n; j++ {
			j2 := (j + 1) % n
			if j == i2 || j2 == i { // neighbours share a corner
				if collinearOverlap(xs[i], ys[i], xs[i2], ys[i2], xs[j], ys[j], xs[j2], ys[j2]) {
					return fmt.Sprintf("edges %d and %d fold back onto each other", i, j), j
				}
				continue
			}
			if segmentsTouch(xs[i], ys[i], xs[i2], ys[i2], xs[j], ys[j], xs[j2], ys[j2]) {
				return fmt.Sprintf("edge %d (corners %d-%d) crosses edge %d (corners %d-%d): the polygon intersects itself", i, i, i2, j, j, j2), j
			}
		}
	}
	area := 0.0
	for i := 0; i < n; i++ {
		j := (i + 1) % n
		area += xs[i]*ys[j] - xs[j]*ys[i]
	}
	if math.Abs(area)/2 <= eps*math.Max(scale, 1) {
		return "the polygon has no area (its corners are on one line)", -1
	}
	return "", -1
}

func orient(ax, ay, bx, by, cx, cy float64) float64 { return (bx-ax)*(cy-ay) - (by-ay)*(cx-ax) }

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// onSegment: c, collinear with a-b, lies within its bounding box.
func onSegment(ax, ay, bx, by, cx, cy float64) bool {
	return math.Min(ax, bx) <= cx && cx <= math.Max(ax, bx) && math.Min(ay, by) <= cy && cy <= math.Max(ay, by)
}

// segmentsTouch reports whether segments a-b and c-d share any point.
func segmentsTouch(ax, ay, bx, by, cx, cy, dx, dy float64) bool {
	d1 := sign(orient(cx, cy, dx, dy, ax, ay))
	d2 := sign(orient(cx, cy, dx, dy, bx, by))
	d3 := sign(orient(ax, ay, bx, by, cx, cy))
	d4 := sign(orient(ax, ay, bx, by, dx, dy))
	if d1*d2 < 0 && d3*d4 < 0 {
		return true
	}
	return d1 == 0 && onSegment(cx, cy, dx, dy, ax, ay) || d2 == 0 && onSegment(cx, cy, dx, dy, bx, by) ||
		d3 == 0 && onSegment(ax, ay, bx, by, cx, cy) || d4 == 0 && onSegment(ax, ay, bx, by, dx, dy)
}

// collinearOverlap: two edges sharing a corner lie on one line and go back over each other.
func collinearOverlap(ax, ay, bx, by, cx, cy, dx, dy float64) bool {
	if orient(ax, ay, bx, by, cx, cy) != 0 || orient(ax, ay, bx, by, dx, dy) != 0 {
		return false
	}
	// the shared corner is where they meet; they overlap when the directions away from it agree
	var u1x, u1y, u2x, u2y float64
	switch {
	case bx == cx && by == cy:
		u1x, u1y, u2x, u2y = ax-bx, ay-by, dx-bx, dy-by
	case dx == ax && dy == ay:
		u1x, u1y, u2x, u2y = bx-ax, by-ay, cx-ax, cy-ay
	default:
		return false
	}
	return u1x*u2x+u1y*u2y > 0
}

// Distance is the signed horizontal distance from (x, y) to the polygon's edge: positive
// inside, negative outside, 0 on the edge. O(corners), no allocation.
func (p Polygon) Distance(x, y float64) float64 {
	xs, ys := p.Xs, p.Ys
	n := len(xs)
	inside := false
	best := math.Inf(1)
	j := n - 1
	for i := 0; i < n; i++ {
		xi, yi, xj, yj := xs[i], ys[i], xs[j], ys[j]
		if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
			inside = !inside
		}
		// squared distance to the edge j-i
		dx, dy := xi-xj, yi-yj
		t := 0.0
		if l := dx*dx + dy*dy; l > 0 {
			t = math.Max(0, math.Min(1, ((x-xj)*dx+(y-yj)*dy)/l))
		}
		ex, ey := xj+t*dx-x, yj+t*dy-y
		if d := ex*ex + ey*ey; d < best {
			best = d
		}
		j = i
	}
	d := math.Sqrt(best)
	if !inside {
		return -d
	}
	return d
}

// Shape is a polygon and an altitude band (MinAlt -Inf and MaxAlt +Inf for none).
type Shape struct {
	Polygon
	MinAlt, MaxAlt float64
}

// Clearance is the signed distance to the shape in three dimensions: the horizontal distance,
// or the distance to an altitude bound when that is smaller (alt is ignored without bounds).
func (s *Shape) Clearance(x, y, alt float64) float64 {
	d := s.Distance(x, y)
	if !math.IsInf(s.MinAlt, -1) {
		d = math.Min(d, alt-s.MinAlt)
	}
	if !math.IsInf(s.MaxAlt, 1) {
		d = math.Min(d, s.MaxAlt-alt)
	}
	return d
}

// HasAlt reports whether the shape bounds the altitude.
func (s *Shape) HasAlt() bool { return !math.IsInf(s.MinAlt, -1) || !math.IsInf(s.MaxAlt, 1) }

// State is a fence check's verdict.
type State uint8

const (
	// Inside: inside, clear of the margin at the current speed.
	Inside State = iota
	// Near: inside, but within the margin now or one reaction time ahead.
	Near
	// Outside: outside the polygon or the altitude band.
	Outside
	// NoPose: no position, or one older than the fence allows.
	NoPose
)

var stateNames = [...]string{"inside", "near", "outside", "no_pose"}

func (s State) String() string { return stateNames[s] }

// MinMovingSpeed: below this (m/s) a robot counts as stopped (noise of a standing pose).
const MinMovingSpeed = 0.05

// Judge is the verdict on a position at clearance (m) moving at speed (m/s): outside when the
// clearance is negative, near when it is within margin now, or, moving, one reaction time
// (seconds) ahead.
func Judge(clearance, speed, reaction, margin float64) State {
	switch {
	case clearance < 0:
		return Outside
	case clearance-speed*reaction < margin && (speed >= MinMovingSpeed || clearance < margin):
		return Near
	}
	return Inside
}
