//go:build linux

package gpio

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
	"github.com/botd-project/botd/drivers/sim"
)

// actuatorCase is one actuator kind of the conformance suite (STYLE.md habit 7): a command that
// moves it out of its safe state, how to read its state back from the simulated board, and what
// the safe and commanded states read as.
type actuatorCase struct {
	dev          string
	cmds         // the command, its type's zero command and a halt
	read         func(g *simRig) string
	safe, active string
	dirty        func(a *sim.Adaptor) // leaves the board unsafe before Start
}

// cmds command a device as an action owning it would: cmd sets the case's command, zero its
// type's zero command, release is the action's halt.
type cmds struct {
	cmd, zero func(r *drivers.Robot, dev string, o drivers.Owner) error
	release   func(r *drivers.Robot, dev string, o drivers.Owner)
}

// owned is the cmds of command c.
func owned[C any](c C) cmds {
	set := func(c C) func(r *drivers.Robot, dev string, o drivers.Owner) error {
		return func(r *drivers.Robot, dev string, o drivers.Owner) error {
			x, err := drivers.ActuatorOf[C](r, dev)
			if err != nil {
				return err
			}
			return x.Command(o, c, true)
		}
	}
	var zero C
	return cmds{cmd: set(c), zero: set(zero), release: func(r *drivers.Robot, dev string, o drivers.Owner) {
		if x, err := drivers.ActuatorOf[C](r, dev); err == nil {
			x.Release(o)
		}
	}}
}

func actuatorCases() []actuatorCase {
	pin := func(p string) func(g *simRig) string { return func(g *simRig) string { return fmt.Sprint(g.pin(p)) } }
	return []actuatorCase{
		{dev: "base", cmds: owned(DriveCommand{Linear: 0.3, Angular: 0.5}),
			read: func(g *simRig) string {
				l, r := g.sim.Wheels()
				return fmt.Sprintf("wheels %.2f %.2f pwm %d %d", l, r, g.pin("11"), g.pin("15"))
			},
			safe: "wheels 0.00 0.00 pwm 0 0", active: "wheels 0.50 0.70 pwm 128 179",
			dirty: func(a *sim.Adaptor) { _ = a.PwmWrite("11", 200); _ = a.PwmWrite("15", 255) }},
		{dev: "camera", cmds: owned(AngleCommand{Degrees: 140}), read: func(g *simRig) string { return fmt.Sprint(g.servo("12")) },
			safe: "90", active: "140", dirty: func(a *sim.Adaptor) { _ = a.ServoWrite("12", 10) }},
		{dev: "status", cmds: owned(LEDCommand{Mode: LEDOn}), read: pin("7"), safe: "0", active: "1",
			dirty: func(a *sim.Adaptor) { _ = a.DigitalWrite("7", 1) }},
		{dev: "pump", cmds: owned(LevelCommand{Level: 1}), read: pin("36"), safe: "0", active: "1",
			dirty: func(a *sim.Adaptor) { _ = a.DigitalWrite("36", 1) }},
		{dev: "horn", cmds: owned(LevelCommand{Level: 1}), read: pin("38"), safe: "0", active: "1",
			dirty: func(a *sim.Adaptor) { _ = a.DigitalWrite("38", 1) }},
		// safe: 1 and active low: safe is logical 1, pin low.
		{dev: "flag", cmds: owned(LevelCommand{Level: 0}), read: pin("40"), safe: "0", active: "1",
			dirty: func(a *sim.Adaptor) { _ = a.DigitalWrite("40", 1) }},
		// safe duty 0.1 (PWM 26); 1.0 is clamped to max_duty 0.8 (PWM 204).
		{dev: "fan", cmds: owned(DutyCommand{Duty: 1}), read: pin("32"), safe: "26", active: "204",
			dirty: func(a *sim.Adaptor) { _ = a.PwmWrite("32", 255) }},
	}
}

func TestActuatorConformance(t *testing.T) {
	cfg := drivertest.Parse(t, kinds(), allKinds)
	for _, tc := range actuatorCases() {
		t.Run(tc.dev, func(t *testing.T) {
			check := func(g *simRig, what, want string) {
				t.Helper()
				if got := tc.read(g); got != want {
					t.Errorf("%s: reads %q, want %q", what, got, want)
				}
			}
			agent := &bt.Agent{}
			o := drivers.OwnerOf(agent, &bt.Node{Index: 1})

			t.Run("starts safe", func(t *testing.T) {
				g := buildRig(t, cfg)
				if err := g.board.Connect(); err != nil {
					t.Fatal(err)
				}
				tc.dirty(g.board)
				if got := tc.read(g); got == tc.safe {
					t.Fatalf("dirtying did not work: reads %q", got)
				}
				if err := g.robot.Start(context.Background()); err != nil {
					t.Fatal(err)
				}
				check(g, "after Start", tc.safe)
			})

			t.Run("halt stops and is idempotent", func(t *testing.T) {
				g := newRig(t, cfg)
				if err := tc.cmd(g.robot, tc.dev, o); err != nil {
					t.Fatal(err)
				}
				g.apply()
				check(g, "commanded", tc.active)
				tc.release(g.robot, tc.dev, o)
				g.apply()
				check(g, "halted", tc.safe)
				tc.release(g.robot, tc.dev, o)
				g.apply()
				check(g, "halted twice", tc.safe)
				if err := tc.cmd(g.robot, tc.dev, o); err != nil {
					t.Fatal(err)
				}
				g.apply()
				if err := g.robot.Close(); err != nil {
					t.Fatal(err)
				}
				check(g, "closed", tc.safe)
				if err := g.robot.Close(); err != nil {
					t.Errorf("second Close: %v", err)
				}
			})

			t.Run("a halted action does not undo a takeover", func(t *testing.T) {
				g := newRig(t, cfg)
				other := drivers.OwnerOf(agent, &bt.Node{Index: 2})
				_ = tc.zero(g.robot, tc.dev, o)
				if err := tc.cmd(g.robot, tc.dev, other); err != nil {
					t.Fatal(err)
				}
				tc.release(g.robot, tc.dev, o) // the replaced action cleans up
				g.apply()
				check(g, "after the replaced action's halt", tc.active)
			})

			t.Run("halt after a failed start is safe", func(t *testing.T) {
				g := buildRig(t, cfg)
				g.sim.SilenceSensor(sim.SensorIMU) // the MPU6050 does not start
				if err := g.robot.Start(context.Background()); err == nil {
					t.Fatal("Start succeeded with a silent IMU")
				}
				if err := g.robot.Apply(); !errors.Is(err, drivers.ErrNotStarted) {
					t.Errorf("Apply after a failed Start: %v", err)
				}
				if f := g.robot.Faults(); len(f) != 1 || f[0].Device != "imu" || f[0].Code != drivers.FaultDriverError {
					t.Errorf("faults %+v", f)
				}
				tc.dirty(g.board) // whatever happened since
				if err := g.robot.Close(); err != nil {
					t.Fatal(err)
				}
				check(g, "closed after a failed start", tc.safe)
				if err := g.robot.Close(); err != nil {
					t.Errorf("second Close: %v", err)
				}
			})

			t.Run("e-stop wins", func(t *testing.T) {
				g := newRig(t, cfg)
				_ = tc.cmd(g.robot, tc.dev, o)
				g.apply()
				if err := g.robot.EStop("test"); err != nil {
					t.Fatal(err)
				}
				check(g, "e-stopped (before any Apply)", tc.safe)
				if err := tc.cmd(g.robot, tc.dev, o); !errors.Is(err, drivers.ErrEStopped) {
					t.Errorf("command during e-stop: %v", err)
				}
				g.apply()
				check(g, "commanded during e-stop", tc.safe)
				g.robot.ReleaseEStop()
				g.apply()
				check(g, "released", tc.safe)
				if err := tc.cmd(g.robot, tc.dev, o); err != nil {
					t.Fatal(err)
				}
				g.apply()
				check(g, "commanded after release", tc.active)
				if err := g.robot.Safe(); err != nil {
					t.Fatal(err)
				}
				check(g, "Safe", tc.safe)
			})
		})
	}
}
