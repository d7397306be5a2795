package drivers

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/botd-project/botd/bt"
)

// FenceTarget is a place a leaf will take the robot to, read from its parameters, so a mission
// whose targets leave the fence is refused when it is loaded. A parameter that is a blackboard
// reference ("{goal.x}") is not known until the leaf runs: the leaf gives no target for it
// (the runtime check still holds the robot inside).
type FenceTarget struct {
	// Param is the parameter the target is read from (the problem's path ends in
	// /params/Param).
	Param string
	// Global: X is the latitude and Y the longitude, degrees; otherwise metres in the local
	// frame.
	Global bool
	// HasXY: the target has a horizontal position.
	HasXY bool
	X, Y  float64
	// Home: X and Y are metres east and north of a vehicle's home (its local NED frame):
	// checked against a local fence only, since where home is on the map is known only in
	// flight (the runtime check holds the vehicle inside a global fence).
	Home bool
	// HasAlt: the target has an altitude, m (a Takeoff gives only this).
	HasAlt bool
	Alt    float64
}

// FenceTargetsFunc reads a node's targets from its parameters (as the mission document gives
// them: numbers, or strings for references).
type FenceTargetsFunc func(params map[string]any) []FenceTarget

var fenceTargets = struct {
	sync.RWMutex
	m map[string]FenceTargetsFunc
}{m: map[string]FenceTargetsFunc{
	"MoveTo": LocalTarget("x", "y"),
}}

// RegisterFenceTargets declares that leaves of the node type carry targets, so missions are
// checked against the geofence when they are loaded. A package that adds a leaf which moves the
// robot to a place (a UAV's GoTo or Takeoff) registers it once, at init:
//
//	drivers.RegisterFenceTargets("GoTo", drivers.GlobalTarget("lat", "lon", "alt"))
//	drivers.RegisterFenceTargets("Takeoff", drivers.AltitudeTarget("alt"))
func RegisterFenceTargets(nodeType string, f FenceTargetsFunc) {
	fenceTargets.Lock()
	defer fenceTargets.Unlock()
	fenceTargets.m[nodeType] = f
}

func fenceTargetsOf(nodeType string) FenceTargetsFunc {
	fenceTargets.RLock()
	defer fenceTargets.RUnlock()
	return fenceTargets.m[nodeType]
}

// LocalTarget reads a local x/y target (metres) from two parameters (and an altitude from
// alt, when named and given).
func LocalTarget(x, y string, alt ...string) FenceTargetsFunc {
	return func(p map[string]any) []FenceTarget {
		return targetFrom(p, false, x, y, alt)
	}
}

// GlobalTarget reads a latitude/longitude target (degrees) from two parameters (and an
// altitude from alt, when named and given).
func GlobalTarget(lat, lon string, alt ...string) FenceTargetsFunc {
	return func(p map[string]any) []FenceTarget {
		return targetFrom(p, true, lat, lon, alt)
	}
}

// AltitudeTarget reads an altitude (m) alone: a climb or descent where the robot is.
func AltitudeTarget(alt string) FenceTargetsFunc {
	return func(p map[string]any) []FenceTarget {
		if a, ok := bt.AsNumber(p[alt]); ok {
			return []FenceTarget{{Param: alt, HasAlt: true, Alt: a}}
		}
		return nil
	}
}

func targetFrom(p map[string]any, global bool, xName, yName string, alt []string) []FenceTarget {
	var t FenceTarget
	x, okx := bt.AsNumber(p[xName])
	y, oky := bt.AsNumber(p[yName])
	if okx && oky {
		t = FenceTarget{Param: xName, Global: global, HasXY: true, X: x, Y: y}
	}
	if len(alt) > 0 {
		if a, ok := bt.AsNumber(p[alt[0]]); ok {
			t.HasAlt, t.Alt = true, a
			if !t.HasXY {
				t.Param = alt[0]
			}
		}
	}
	if !t.HasXY && !t.HasAlt {
		return nil
	}
	return []FenceTarget{t}
}

// CheckTrees reports every target of the trees' nodes that lies outside the fence, or within
// its margin, each located by its parameter's path (/trees/main/children/2/params/x).
func (f *Fence) CheckTrees(trees map[string]*bt.NodeDef) bt.Problems {
	names := make([]string, 0, len(trees))
	for name := range trees {
		names = append(names, name)
	}
	sort.Strings(names)
	var out bt.Problems
	for _, name := range names {
		f.checkNode(trees[name], "/trees/"+escapePointer(name), &out, 0)
	}
	return out
}

func (f *Fence) checkNode(n *bt.NodeDef, path string, out *bt.Problems, depth int) {
	if n == nil || depth > 1000 {
		return
	}
	if fn := fenceTargetsOf(n.Type); fn != nil {
		for _, t := range fn(n.Params) {
			if msg := f.TargetProblem(t); msg != "" {
				*out = append(*out, bt.Problem{Path: path + "/params/" + escapePointer(t.Param), Code: bt.CodeValidation,
					Message: fmt.Sprintf("%s: %s", n.Type, msg)})
			}
		}
	}
	for i, c := range n.Children {
		f.checkNode(c, path+"/children/"+strconv.Itoa(i), out, depth+1)
	}
}

// TargetProblem says why a target is not allowed ("" when it is): what a FenceGuard checks
// before it sends a target.
// A target the fence cannot place is let through to the runtime check, which holds the robot
// inside: one in metres from a vehicle's home against a global fence, and one in latitude and
// longitude against a vehicle's local fence (both frames meet only where the vehicle's home
// is, which is known in flight). A fence without the config's keep-in (ZoneFence) has no
// targets to refuse.
func (f *Fence) TargetProblem(t FenceTarget) string {
	if !f.keepIn {
		return ""
	}
	if t.HasXY && !(t.Home && f.cfg.Frame == "global") && !(t.Global && f.vehicle && f.origin == nil) {
		x, y, where := t.X, t.Y, fmt.Sprintf("(%g, %g)", t.X, t.Y)
		if t.Home {
			where = fmt.Sprintf("%.1f m north and %.1f m east of home", t.Y, t.X)
		}
		if t.Global {
			if f.origin == nil || math.Abs(t.X) > 90 || math.Abs(t.Y) > 180 {
				return fmt.Sprintf("target lat/lon %s cannot be placed: the fence has no origin or it is not a position", where)
			}
			x, y = f.origin.ToLocal(t.X, t.Y)
			where = fmt.Sprintf("lat/lon (%g, %g), %.1f m east and %.1f m north of the origin,", t.X, t.Y, x, y)
		}
		switch d := f.Distance(x, y); {
		case d < 0:
			return fmt.Sprintf("target %s is %.2f m outside the geofence", where, -d)
		case d < f.margin:
			return fmt.Sprintf("target %s is %.2f m inside the geofence, within its %g m margin", where, d, f.margin)
		}
	}
	if t.HasAlt {
		switch {
		case t.Alt < f.shape.MinAlt+f.margin:
			return fmt.Sprintf("altitude %g m is below the geofence's min_alt %g m plus its %g m margin", t.Alt, f.shape.MinAlt, f.margin)
		case t.Alt > f.shape.MaxAlt-f.margin:
			return fmt.Sprintf("altitude %g m is above the geofence's max_alt %g m minus its %g m margin", t.Alt, f.shape.MaxAlt, f.margin)
		}
	}
	return ""
}

// escapePointer escapes a JSON pointer token.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
