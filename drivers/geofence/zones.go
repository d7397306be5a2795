package geofence

import (
	"fmt"
	"math"
)

// Zone limits of several zones: the check of a position costs O(all corners), so both are
// bounded (a polygon's own corners by MaxPoints).
const (
	MaxZones       = 64
	MaxZonePoints  = 4 * MaxPoints // corners of all a set's polygons together
	MaxCircleRange = 100_000.0     // a circle's largest radius, m
)

// Zone is one named fence zone in a plane (metres): a polygon, or a circle when Radius is
// above 0, with an altitude band (MinAlt -Inf and MaxAlt +Inf for none). An inclusion zone is
// kept in: the robot stays inside its shape and band. An exclusion zone is kept out: the
// robot stays out of the volume its shape and band enclose.
type Zone struct {
	Name      string
	Exclusion bool
	Polygon   Polygon // the corners, when Radius is 0
	// CX, CY and Radius are a circle's centre and radius.
	CX, CY, Radius float64
	MinAlt, MaxAlt float64
}

// Kind is "inclusion polygon", "exclusion circle", ...
func (z *Zone) Kind() string {
	k := "inclusion"
	if z.Exclusion {
		k = "exclusion"
	}
	if z.Radius > 0 {
		return k + " circle"
	}
	return k + " polygon"
}

// Problem says what makes a zone unusable (and at which corner, or -1): "" for none.
func (z *Zone) Problem() (string, int) {
	switch {
	case math.IsNaN(z.MinAlt) || math.IsNaN(z.MaxAlt) || math.IsInf(z.MinAlt, 1) || math.IsInf(z.MaxAlt, -1):
		return "the altitude band is not a number", -1
	case z.MinAlt >= z.MaxAlt:
		return fmt.Sprintf("the altitude band's bottom %v m is not below its top %v m", z.MinAlt, z.MaxAlt), -1
	}
	if z.Radius != 0 || len(z.Polygon.Xs) == 0 {
		switch {
		case !finite(z.CX) || !finite(z.CY):
			return "the circle's centre is not a number", -1
		case !(z.Radius > 0) || z.Radius > MaxCircleRange:
			return fmt.Sprintf("a circle of radius %v m: the radius must be above 0 and at most %v m", z.Radius, MaxCircleRange), -1
		}
		return "", -1
	}
	xs, ys := z.Polygon.Xs, z.Polygon.Ys
	switch {
	case len(xs) != len(ys):
		return fmt.Sprintf("%d x and %d y coordinates", len(xs), len(ys)), -1
	case len(xs) < 3:
		return fmt.Sprintf("%d corners: a polygon has at least 3", len(xs)), -1
	case len(xs) > MaxPoints:
		return fmt.Sprintf("%d corners, above the limit of %d", len(xs), MaxPoints), -1
	}
	for i := range xs {
		if !finite(xs[i]) || !finite(ys[i]) {
			return fmt.Sprintf("corner %d is not a number", i), i
		}
	}
	return z.Polygon.Problem()
}

// Clearance is the signed distance from a position to the zone's boundary in three
// dimensions: positive where the zone lets the robot be (inside an inclusion zone, outside an
// exclusion zone), negative where it does not. Outside a volume it may be less than the true
// distance, never more. No allocation.
func (z *Zone) Clearance(x, y, alt float64) float64 {
	var d float64
	if z.Radius > 0 {
		d = z.Radius - math.Hypot(x-z.CX, y-z.CY)
	} else {
		d = z.Polygon.Distance(x, y)
	}
	if !math.IsInf(z.MinAlt, -1) {
		d = math.Min(d, alt-z.MinAlt)
	}
	if !math.IsInf(z.MaxAlt, 1) {
		d = math.Min(d, z.MaxAlt-alt)
	}
	if z.Exclusion {
		return -d
	}
	return d
}

// Zones is a set of zones a robot keeps to together: inside every inclusion zone and outside
// every exclusion zone, so a zone added to a set never widens where the others let it go.
type Zones []Zone

// Problem says what makes the set unusable: which zone (or -1), and at which corner.
func (zs Zones) Problem() (msg string, zone, at int) {
	if len(zs) > MaxZones {
		return fmt.Sprintf("%d zones, above the limit of %d", len(zs), MaxZones), -1, -1
	}
	total := 0
	for i := range zs {
		total += len(zs[i].Polygon.Xs)
		if total > MaxZonePoints {
			return fmt.Sprintf("more than %d corners in all zones together", MaxZonePoints), i, -1
		}
	}
	for i := range zs {
		if msg, at := zs[i].Problem(); msg != "" {
			return msg, i, at
		}
	}
	return "", -1, -1
}

// Clearance is the least clearance of all zones at a position and the zone that has it (-1
// and +Inf for an empty set). O(all corners), no allocation.
func (zs Zones) Clearance(x, y, alt float64) (float64, int) {
	best, at := math.Inf(1), -1
	for i := range zs {
		if d := zs[i].Clearance(x, y, alt); d < best {
			best, at = d, i
		}
	}
	return best, at
}

// Verdict is a check of a position against a set of zones: the state, the least clearance
// and the zone that has it (the one breached or nearest to be; -1 for an empty set).
type Verdict struct {
	State     State
	Clearance float64
	Zone      int
}

// Check judges a position moving at speed (m/s) against every zone, as Judge does one
// clearance. No allocation.
func (zs Zones) Check(x, y, alt, speed, reaction, margin float64) Verdict {
	d, at := zs.Clearance(x, y, alt)
	return Verdict{State: Judge(d, speed, reaction, margin), Clearance: d, Zone: at}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// KeepIn is a keep-in Shape (a config's fence) as an inclusion zone named name. A set that
// holds it and a mission's zones lets the robot go only where both let it: a mission's zones
// narrow the config's fence, never widen it.
func KeepIn(name string, s Shape) Zone {
	return Zone{Name: name, Polygon: s.Polygon, MinAlt: s.MinAlt, MaxAlt: s.MaxAlt}
}

// Nearest is the index of the point (xs[i], ys[i]) nearest to (x, y) horizontally, -1 for
// none: the rally point a return-home flies to. O(points), no allocation.
func Nearest(x, y float64, xs, ys []float64) int {
	best, at := math.Inf(1), -1
	for i := range xs {
		if d := (xs[i]-x)*(xs[i]-x) + (ys[i]-y)*(ys[i]-y); d < best {
			best, at = d, i
		}
	}
	return at
}

// ReturnPoint is where a return home from (x, y) goes: the index of the nearest rally point
// (xs[i], ys[i]; nearest horizontally) at which every zone leaves at least margin of clearance
// at altitude alt, or -1 for home (no
// rally point, or none the zones allow). A point with a NaN coordinate is skipped (a caller
// marks so one it refuses for reasons of its own). The zones of an empty set allow every
// point. O(points x corners), no allocation.
func (zs Zones) ReturnPoint(x, y float64, xs, ys []float64, alt, margin float64) int {
	best, at := math.Inf(1), -1
	for i := range xs {
		if math.IsNaN(xs[i]) || math.IsNaN(ys[i]) {
			continue
		}
		d := (xs[i]-x)*(xs[i]-x) + (ys[i]-y)*(ys[i]-y)
		if d >= best {
			continue
		}
		if c, _ := zs.Clearance(xs[i], ys[i], alt); c < margin {
			continue
		}
		best, at = d, i
	}
	return at
}
