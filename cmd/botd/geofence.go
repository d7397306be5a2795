package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/geofence"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/plan"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/protocol"
)

// compileFence resolves the config's geofence against the hardware (nil
// when the config has none).
func compileFence(cfg *Config, hw *drivers.Config) (*drivers.Fence, error) {
	if cfg.Geofence == nil {
		return nil, nil
	}
	f, err := drivers.CompileFence(cfg.Geofence, hw, "geofence")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.source, err)
	}
	return f, nil
}

// fenceMissionCheck refuses a mission whose targets leave the fence.
func fenceMissionCheck(f *drivers.Fence) func(*missions.Mission) error {
	if f == nil {
		return nil
	}
	return func(m *missions.Mission) error {
		if ps := f.CheckTrees(m.Doc.Trees); len(ps) > 0 {
			return ps
		}
		return nil
	}
}

// fenceWire is the fence as the factsheet carries it.
func fenceWire(f *drivers.Fence) *protocol.Geofence {
	if f == nil {
		return nil
	}
	frame, pts, lo, hi, margin, action := f.Wire()
	return &protocol.Geofence{Frame: frame, Points: pts, MinAlt: lo, MaxAlt: hi, Margin: margin, Action: action}
}

// fenceGuard is the robot's fence as the runner enforces it: the monitor
// reads the pose the drivers sample and checks it against the config's
// keep-in and the running mission's zones (a plan's geoFence, placed when
// the mission starts, removed when it ends); a breach's action goes to the
// devices that implement drivers.FenceActions (a vehicle), or to the
// rover's drives.
type fenceGuard struct {
	fence  *drivers.Fence
	mon    *drivers.FenceMonitor
	robot  *drivers.Robot
	action string
	now    func() time.Time
}

var _ runner.MissionFence = (*fenceGuard)(nil)

// newFenceGuard guards the config's fence f, or, without one, a fence of
// the missions' zones alone (drivers.ZoneFence); nil when there is neither
// (a robot without a position on the map cannot place a plan's zones).
func newFenceGuard(f *drivers.Fence, hw *drivers.Config, r *drivers.Robot, now func() time.Time) *fenceGuard {
	if f == nil {
		var err error
		if f, err = drivers.ZoneFence(hw); err != nil {
			return nil
		}
	}
	return &fenceGuard{fence: f, mon: drivers.NewFenceMonitor(f, r.Reading), robot: r, action: f.Config().Action, now: now}
}

// Check trips on a position outside the fence or a zone, a lost one, or
// one within the margin one reaction time ahead while the robot moves (a
// robot that stopped within the margin does not trip, so the operator can
// resume or abort).
func (g *fenceGuard) Check(now time.Time) runner.FenceStatus {
	c := g.mon.Check(now)
	st := runner.FenceStatus{X: c.X, Y: c.Y, Alt: c.Alt, Clearance: c.Clearance, Speed: c.Speed, Action: g.action,
		Outside: c.State == drivers.FenceOutside, NoPose: c.State == drivers.FenceNoPose, Receding: c.Receding}
	if !st.NoPose {
		st.Zone = g.mon.ZoneName(c.Zone)
	}
	st.Trip = st.Outside || st.NoPose || c.State == drivers.FenceNear && c.Moving()
	return st
}

// SetMission places the running mission's zones (none for nil). The
// mission was checked at load (missionCheck), so its zones parse.
func (g *fenceGuard) SetMission(m *missions.Mission) {
	var zs geofence.Zones
	o := geofence.LatLon{}
	if m != nil {
		if mz, err := zonesOf(m); err == nil && len(mz.zones) > 0 && g.fence.CanPlaceZones() {
			o = g.fence.ZoneOrigin(mz.origin)
			zs = plan.LocalZones(mz.zones, o)
		}
	}
	g.mon.SetZones(zs, o)
}

// Breach runs the action on every device that can carry it out.
func (g *fenceGuard) Breach(action string) error {
	acts := g.robot.FenceActions()
	if len(acts) == 0 {
		return nil // nothing moves on its own: the runner's safe state is the hold
	}
	var errs []error
	for _, a := range acts {
		var err error
		switch action {
		case drivers.FenceReturnHome:
			err = a.ReturnHome()
		case drivers.FenceLand:
			err = a.Land()
		default: // hold, abort
			err = a.Hold()
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// withFence adds the fence to the runner's config (the runner sees no
// fence when there is none: a nil *fenceGuard in the interface would be
// one) and the check of a mission at load: its targets against the
// config's fence, its zones against the robot's position.
func withFence(c runner.Config, f *drivers.Fence, hw *drivers.Config, r *drivers.Robot) runner.Config {
	now := time.Now
	if c.Clock != nil {
		now = c.Clock.Now
	}
	g := newFenceGuard(f, hw, r, now)
	if g != nil {
		c.Geofence = g
		c.ReturnHome = g.returnTree // returnhome.go
	}
	c.CheckMission = missionCheck(f, g)
	return c
}

// missionZones are the zones and rally points a mission carries on its
// blackboard (a plan's geoFence and rallyPoints, plan.FenceKey and
// plan.RallyKey), its home (plan.HomeKey, nil when it has none) and the
// origin its zones are placed around when the robot's fence has none:
// the home, else the first zone's first point.
type missionZones struct {
	zones  []plan.Zone
	rally  [][3]float64
	home   *[3]float64
	origin geofence.LatLon
}

// zonesOf reads a mission's zones, checked as a plan's import checks
// them (a zone that leaves its home outside is refused, located).
func zonesOf(m *missions.Mission) (missionZones, error) {
	var mz missionZones
	bb := m.Doc.Blackboard
	if bb[plan.FenceKey] == nil && bb[plan.RallyKey] == nil {
		return mz, nil
	}
	if h, ok := bb[plan.HomeKey].([]any); ok && len(h) == 3 {
		var home [3]float64
		good := true
		for i, v := range h {
			f, isNum := v.(float64)
			good = good && isNum
			home[i] = f
		}
		if good {
			mz.home = &home
		}
	}
	var err error
	if mz.zones, mz.rally, err = plan.FenceFrom(bb, mz.home); err != nil {
		return mz, err
	}
	switch {
	case mz.home != nil:
		mz.origin = geofence.LatLon{Lat: mz.home[0], Lon: mz.home[1]}
	case len(mz.zones) > 0 && mz.zones[0].Polygon != nil:
		mz.origin = geofence.LatLon{Lat: mz.zones[0].Polygon[0][0], Lon: mz.zones[0].Polygon[0][1]}
	case len(mz.zones) > 0:
		mz.origin = geofence.LatLon{Lat: mz.zones[0].Center[0], Lon: mz.zones[0].Center[1]}
	}
	return mz, nil
}

// missionCheck refuses a mission whose targets leave the config's fence
// (f), whose zones do not parse, that carries zones the robot cannot
// enforce (no guard, or a fence in a frame with no place on the map: a
// local fence on odometry), or whose zones leave the
// robot's position, when it has a fresh one, outside: each located at the
// zone.
func missionCheck(f *drivers.Fence, g *fenceGuard) func(*missions.Mission) error {
	targets := fenceMissionCheck(f)
	return func(m *missions.Mission) error {
		if targets != nil {
			if err := targets(m); err != nil {
				return err
			}
		}
		mz, err := zonesOf(m)
		if err != nil || len(mz.zones) == 0 {
			return err
		}
		if g == nil || !g.fence.CanPlaceZones() {
			return bt.Problems{{Path: "/blackboard/" + plan.FenceKey, Code: bt.CodeValidation,
				Message: "the mission's zones cannot be enforced: " + drivers.ErrNoMapPosition.Error()}}
		}
		o := g.fence.ZoneOrigin(mz.origin)
		x, y, ok := g.fence.ZonePosition(g.robot.Reading, o, g.now())
		if !ok {
			return nil // no position yet: the fence holds the robot until it has one
		}
		var ps bt.Problems
		for i, z := range plan.LocalZones(mz.zones, o) {
			if d := z.Clearance(x, y, 0); d < 0 {
				ps = append(ps, bt.Problem{Path: mz.zones[i].Path, Code: bt.CodeValidation,
					Message: fmt.Sprintf("%s leaves the robot's position (%.1f m east, %.1f m north of %v, %v) outside, by %.1f m: the robot would breach it at the start",
						z.Name, x, y, o.Lat, o.Lon, -d)})
			}
		}
		if len(ps) > 0 {
			return ps
		}
		return nil
	}
}

// uploadFence keeps a global geofence uploaded to every vehicle's autopilot
// (the robot's drivers.Autopilot devices), so the autopilot enforces it too
// (its own fence parameters decide its action); botd's own fence stays in
// force whatever the autopilot answers. Each upload's outcome is an event. A local fence stays
// botd's alone: an autopilot's fence is latitude/longitude.
func (s *system) uploadFence(ctx context.Context, wg *sync.WaitGroup) {
	if s.fence == nil || s.fence.Config().Frame != "global" {
		return
	}
	_, points, _, _, _, _ := s.fence.Wire()
	for _, v := range drivers.Abilities[drivers.Autopilot](s.robot) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.KeepFenceUploaded(ctx, points, time.Second, func(err error) {
				e := protocol.Event{Kind: "geofence.uploaded", Level: "info", Data: map[string]any{"device": v.Name(), "corners": len(points)},
					Message: fmt.Sprintf("the geofence (%d corners) is on the autopilot of %s", len(points), v.Name())}
				if err != nil {
					e.Kind, e.Level = "geofence.upload_failed", "warning"
					e.Message = fmt.Sprintf("%s did not take the geofence (%v); botd's own fence is in force", v.Name(), err)
				}
				if s.emit != nil {
					s.emit(e)
				}
			})
		}()
	}
}
