package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/missions"
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
// reads the pose the drivers sample; a breach's action goes to the
// devices that implement drivers.FenceActions (a vehicle), or to the
// rover's drives.
type fenceGuard struct {
	mon    *drivers.FenceMonitor
	robot  *drivers.Robot
	action string
}

var _ runner.Geofence = (*fenceGuard)(nil)

func newFenceGuard(f *drivers.Fence, r *drivers.Robot) *fenceGuard {
	return &fenceGuard{mon: drivers.NewFenceMonitor(f, r.Reading), robot: r, action: f.Config().Action}
}

// Check trips on a position outside the fence, a lost one, or one within
// the margin one reaction time ahead while the robot moves (a robot that
// stopped within the margin does not trip, so the operator can resume or
// abort).
func (g *fenceGuard) Check(now time.Time) runner.FenceStatus {
	c := g.mon.Check(now)
	st := runner.FenceStatus{X: c.X, Y: c.Y, Alt: c.Alt, Clearance: c.Clearance, Speed: c.Speed, Action: g.action,
		Outside: c.State == drivers.FenceOutside, NoPose: c.State == drivers.FenceNoPose}
	st.Trip = st.Outside || st.NoPose || c.State == drivers.FenceNear && c.Moving()
	return st
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
// fence when there is none: a nil *fenceGuard in the interface would be one).
func withFence(c runner.Config, f *drivers.Fence, r *drivers.Robot) runner.Config {
	if f != nil {
		c.Geofence = newFenceGuard(f, r)
	}
	return c
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
