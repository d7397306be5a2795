package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/missions/runner"

	"github.com/botd-project/botd/drivers/sim/multicopter"
)

// startCopter starts the simulated multicopter the config's sim_multicopter section asks for,
// before the robot's devices start, so that a mavlink_vehicle device finds it on its UDP port
// like it would find PX4 SITL. The returned function stops it (after the runner made the
// robot safe).
func (s *system) startCopter(ctx context.Context) (stop func(), err error) {
	if s.cfg.SimMulticopter == nil {
		return func() {}, nil
	}
	v, err := multicopter.New(*s.cfg.SimMulticopter)
	if err != nil {
		return nil, fmt.Errorf("sim_multicopter: %w", err)
	}
	s.copter = v
	c := v.Config()
	s.log.Info("simulated multicopter", "listen", v.Addr().String(), "home", fmt.Sprintf("%.6f,%.6f,%.1f", c.Home.Lat, c.Home.Lon, c.Home.Alt),
		"time_scale", c.TimeScale)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { defer close(done); v.Run(runCtx) }()
	return func() {
		cancel()
		<-done
		v.Close()
	}, nil
}

// prefixErrors puts a config section's name before each of err's joined errors.
func prefixErrors(section string, err error) error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			errs = append(errs, fmt.Errorf("%s.%s", section, strings.TrimSpace(e.Error())))
		}
		return errors.Join(errs...)
	}
	return fmt.Errorf("%s.%w", section, err)
}

// vehicleWait bounds how long the configured mission waits for the robot's vehicles.
const vehicleWait = 30 * time.Second

// waitVehicles holds the configured mission back until every vehicle's autopilot
// (drivers.Autopilot) is heard and has reported its position and GPS state and, with a geofence, the fence has a position: a mission
// started before the vehicle's first heartbeat would trip the fence (no position) or fail its
// first command (no link). After vehicleWait it goes on anyway, and the failsafes deal with
// what is missing.
func (s *system) waitVehicles(ctx context.Context) {
	vs := drivers.Abilities[drivers.Autopilot](s.robot)
	if len(vs) == 0 {
		return
	}
	var mon *drivers.FenceMonitor
	if s.fence != nil {
		mon = drivers.NewFenceMonitor(s.fence, s.robot.Reading)
	}
	ready := func() bool {
		for _, v := range vs {
			if !v.Reporting() {
				return false
			}
		}
		if mon == nil {
			return true
		}
		if mon.Check(time.Now()).State == drivers.FenceNoPose {
			return false
		}
		// The runner's own fence check (each tick) must have seen the position too: it
		// refuses a mission while its last check found none.
		st := s.runner.State()
		if st.Failsafe.Active {
			return false
		}
		for _, e := range st.Errors {
			if e.Code == runner.CodeGeofenceNoPose || e.Code == runner.CodeGeofenceBreach {
				return false
			}
		}
		return true
	}
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	deadline := time.After(vehicleWait)
	said := false
	for !ready() {
		if !said {
			s.log.Info("the configured mission waits for the vehicle's link and position")
			said = true
		}
		select {
		case <-ctx.Done():
			return
		case <-deadline:
			s.log.Warn("the vehicle is not ready: starting the configured mission anyway", "waited", vehicleWait)
			return
		case <-t.C:
		}
	}
}
