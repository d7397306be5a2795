package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/botd-project/botd/drivers/gpio"
	"github.com/botd-project/botd/telemetry/transport"
	"github.com/botd-project/botd/telemetry/vda5050"
)

// The VDA 5050 adapter (the config's vda5050: section): a master control
// sends orders and instant actions beside botd's own protocol, on a
// connection of its own to the same broker with the same credentials.

// validateVDA5050 checks the section, if there is one.
func (c *Config) validateVDA5050() []error {
	v := c.VDA5050
	if v == nil {
		return nil
	}
	v.SetDefaults()
	var errs []error
	if err := v.Validate("vda5050"); err != nil {
		errs = append(errs, unjoin(err)...)
	}
	if c.Security.RequireSignedMissions {
		errs = append(errs, errors.New("vda5050: a VDA 5050 order carries no signature, and security.require_signed_missions wants every mission signed: use one or the other"))
	}
	return errs
}

// buildVDA5050 builds the adapter when the config asks for one.
func (s *system) buildVDA5050(stateDir string) error {
	if s.cfg.VDA5050 == nil {
		return nil
	}
	cfg, v := s.cfg, *s.cfg.VDA5050
	v.SetDefaults()
	if v.SerialNumber == "" {
		v.SerialNumber = cfg.Robot
	}
	fi := vda5050.FactsheetInfo{SeriesName: "botd " + version, SeriesDescription: "a botd robot (" + cfg.Robot + ")"}
	for _, d := range s.hw.Devices {
		if dd, ok := d.Spec.(*gpio.DiffDriveConfig); ok {
			fi.SpeedMax = max(fi.SpeedMax, dd.MaxLinear)
			fi.Width = max(fi.Width, dd.WheelBase)
		}
	}
	if fi.SpeedMax > 0 && v.Speed > fi.SpeedMax {
		v.Speed = fi.SpeedMax // an order never asks the drive for more than it allows
	}
	if err := v.Validate("vda5050"); err != nil {
		return err
	}
	conn := cfg.ownConn(transport.Options{Brokers: s.urls, ClientID: cfg.Broker.ClientID + "-vda5050", MaxReconnectInterval: cmp.Or(cfg.Broker.ReconnectMax, defaultReconnectMax),
		CAFile: cfg.Broker.CAFile, CertFile: cfg.Broker.CertFile, KeyFile: cfg.Broker.KeyFile, WrapConn: cfg.wrapConn})
	if v.Username != "" && cfg.brokerSecret == "" {
		conn.Username = v.Username // the same password (a broker binding client ids to users)
	}
	v.StateFile = filepath.Join(stateDir, "vda5050.json") // the order's progress across a restart
	a, err := vda5050.New(vda5050.Options{
		Config: v,
		Conn:   conn,
		Runner: s.runner, Reading: s.robot.Reading, MaxPayload: cfg.Telemetry.MaxPayload,
		Factsheet: fi, Logger: s.log.With("part", "vda5050"),
		SetPose: s.vdaSetPose(v.PoseKey),
	})
	if err != nil {
		return err
	}
	s.vda = a
	return nil
}

// vdaSetPose is what initPosition sets the pose with: the simulated
// robot's, when the adapter reads the simulator's ground-truth pose;
// nil (initPosition fails, saying why) for any other pose source, which
// has no way to be set.
func (s *system) vdaSetPose(poseKey string) func(x, y, theta float64) error {
	sr := s.robot.SimRobot()
	if sr == nil {
		return nil
	}
	for _, d := range s.hw.Devices {
		if p, ok := d.Spec.(*gpio.PoseConfig); ok && p.PoseKey() == poseKey {
			return func(x, y, theta float64) error { sr.SetPose(x, y, theta); return nil }
		}
	}
	return nil
}

// startVDA5050 runs the adapter until ctx (telemetry's) is done: it
// stops after the runner, so its final state and OFFLINE go out.
func (s *system) startVDA5050(ctx context.Context, wg *sync.WaitGroup, errs chan<- error) {
	if s.vda == nil {
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := s.vda.Run(ctx); err != nil {
			errs <- fmt.Errorf("vda5050: %w", err)
		}
	}()
}
