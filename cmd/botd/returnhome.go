package main

import (
	"fmt"
	"math"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/plan"
)

// returnTree is botd's own return home (runner.ReturnHomeFunc): to the
// running mission's rally point (a plan's rallyPoints, plan.RallyKey)
// nearest to the robot among those the config's fence and the mission's
// zones allow with the fence's margin to spare (geofence.Zones.ReturnPoint).
// A vehicle flies there (GoTo at the rally point's altitude above home, or
// higher if it flies higher now) and lands; a rover drives there (MoveTo).
// No tree (the vehicle's own return, to its home; a rover holds) when the
// mission has no rally point, none is allowed, the robot's position is not
// known, or the robot can neither fly nor drive.
func (g *fenceGuard) returnTree(m *missions.Mission) (*bt.NodeDef, string) {
	mz, err := zonesOf(m)
	if err != nil || len(mz.rally) == 0 {
		return nil, ""
	}
	f, read, now := g.fence, g.robot.Reading, g.now()
	if !f.CanPlaceZones() {
		return nil, ""
	}
	vehicle := f.OnVehicle()
	if !vehicle && len(drivers.Abilities[drivers.Drive](g.robot)) == 0 {
		return nil, ""
	}
	o := f.ZoneOrigin(mz.origin)
	x, y, ok := f.ZonePosition(read, o, now)
	if !ok {
		return nil, ""
	}
	xs, ys := make([]float64, len(mz.rally)), make([]float64, len(mz.rally))
	for i, p := range mz.rally {
		xs[i], ys[i] = o.ToLocal(p[0], p[1])
		if f.HasKeepIn() { // the config's fence, in its own plane
			cx, cy, placed := f.PlaceLatLon(read, p[0], p[1], now)
			if !placed || f.Clearance(cx, cy, p[2]) < f.Margin() {
				xs[i] = math.NaN()
			}
		}
	}
	i := plan.LocalZones(mz.zones, o).ReturnPoint(x, y, xs, ys, 0, f.Margin())
	if i < 0 {
		return nil, ""
	}
	p := mz.rally[i]
	target := fmt.Sprintf("rally point %d (%.7f, %.7f), %.1f m away", i, p[0], p[1], math.Hypot(xs[i]-x, ys[i]-y))
	name := fmt.Sprintf("return to rally point %d", i)
	if vehicle {
		alt := p[2]
		if a, _, ok := read(f.PoseKey() + ".alt"); ok && a > alt {
			alt = a
		}
		// The Hold first: the failsafe's safe state has just sent one, and a GoTo opened
		// before the vehicle reports it holding would take the guided mode it flew the
		// mission in for granted.
		return &bt.NodeDef{Type: "MemSequence", Name: name, Children: []*bt.NodeDef{
			{Type: "Hold", Name: name + ": hold"},
			{Type: "GoTo", Name: name + ": fly there", Params: map[string]any{"lat": p[0], "lon": p[1], "alt": alt}},
			{Type: "Land", Name: name + ": land"},
		}}, target
	}
	px, py, ok := f.PlaceLatLon(read, p[0], p[1], now)
	if !ok {
		return nil, ""
	}
	return &bt.NodeDef{Type: "MoveTo", Name: name, Params: map[string]any{"x": px, "y": py}}, target
}
