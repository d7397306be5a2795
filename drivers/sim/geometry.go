package sim

import "math"

// Rect is an axis-aligned rectangle in metres, world frame (x east, y north, heading
// counter-clockwise from +x).
type Rect struct {
	MinX float64 `json:"min_x" yaml:"min_x"`
	MinY float64 `json:"min_y" yaml:"min_y"`
	MaxX float64 `json:"max_x" yaml:"max_x"`
	MaxY float64 `json:"max_y" yaml:"max_y"`
}

func (r Rect) valid() bool {
	for _, v := range [...]float64{r.MinX, r.MinY, r.MaxX, r.MaxY} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return r.MinX < r.MaxX && r.MinY < r.MaxY
}

// Contains reports whether (x, y) lies inside r or on its edge.
func (r Rect) Contains(x, y float64) bool {
	return x >= r.MinX && x <= r.MaxX && y >= r.MinY && y <= r.MaxY
}

// signedDistance is the distance from (x, y) to the rectangle's boundary: positive outside,
// negative inside.
func (r Rect) signedDistance(x, y float64) float64 {
	dx := math.Max(r.MinX-x, x-r.MaxX)
	dy := math.Max(r.MinY-y, y-r.MaxY)
	if dx <= 0 && dy <= 0 {
		return math.Max(dx, dy)
	}
	return math.Hypot(math.Max(dx, 0), math.Max(dy, 0))
}

// rayEnter is the distance along the unit ray (x, y)+(dx, dy)t at which it enters r, or +Inf if it
// misses. A ray starting inside r enters at 0.
func (r Rect) rayEnter(x, y, dx, dy float64) float64 {
	tmin, tmax := 0.0, math.Inf(1)
	for _, s := range [...]struct{ o, d, lo, hi float64 }{{x, dx, r.MinX, r.MaxX}, {y, dy, r.MinY, r.MaxY}} {
		if math.Abs(s.d) < 1e-12 {
			if s.o < s.lo || s.o > s.hi {
				return math.Inf(1)
			}
			continue
		}
		t1, t2 := (s.lo-s.o)/s.d, (s.hi-s.o)/s.d
		if t1 > t2 {
			t1, t2 = t2, t1
		}
		tmin, tmax = math.Max(tmin, t1), math.Min(tmax, t2)
		if tmin > tmax {
			return math.Inf(1)
		}
	}
	return tmin
}

// rayExit is the distance along the unit ray at which it leaves r, for a ray starting inside r
// (the walls seen from inside the yard); 0 if the ray starts outside.
func (r Rect) rayExit(x, y, dx, dy float64) float64 {
	if !r.Contains(x, y) {
		return 0
	}
	t := math.Inf(1)
	if dx > 1e-12 {
		t = math.Min(t, (r.MaxX-x)/dx)
	} else if dx < -1e-12 {
		t = math.Min(t, (r.MinX-x)/dx)
	}
	if dy > 1e-12 {
		t = math.Min(t, (r.MaxY-y)/dy)
	} else if dy < -1e-12 {
		t = math.Min(t, (r.MinY-y)/dy)
	}
	return t
}

// normAngle maps an angle to (-pi, pi].
func normAngle(a float64) float64 {
	a = math.Mod(a, 2*math.Pi)
	if a <= -math.Pi {
		a += 2 * math.Pi
	} else if a > math.Pi {
		a -= 2 * math.Pi
	}
	return a
}
