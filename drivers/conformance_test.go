package drivers

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/sim"
)

// actuatorCase is one actuator kind of the conformance suite (STYLE.md habit 7): a command that
// moves it out of its safe state, how to read its state back from the simulated board, and what
// the safe and commanded states read as.
type actuatorCase struct {
	dev          string
	cmd, zero    setCmd // the command, and its type's zero command
	read         func(g *simRig) string
	safe, active string
	dirty        func(a *sim.Adaptor) // leaves the board unsafe before Start
}

// setCmd sets an actuator's command, owned by o.
type setCmd func(act *actuator, o owner) error

// owned is the setCmd of command c.
func owned[C any](c C) setCmd {
	return func(act *actuator, o owner) error { return commandOf(act, o, c, true) }
}

func actuatorCases() []actuatorCase {
	pin := func(p string) func(g *simRig) string { return func(g *simRig) string { return fmt.Sprint(g.pin(p)) } }
	return []actuatorCase{
		{dev: "base", cmd: owned(DriveCommand{Linear: 0.3, Angular: 0.5}), zero: owned(DriveCommand{}),
			read: func(g *simRig) string {
				l, r := g.sim.Wheels()
				return fmt.Sprintf("wheels %.2f %.2f pwm %d %d", l, r, g.pin("11"), g.pin("15"))
			},
			safe: "wheels 0.00 0.00 pwm 0 0", active: "wheels 0.50 0.70 pwm 128 179",
			dirty: func(a *sim.Adaptor) { _ = a.PwmWrite("11", 200); _ = a.PwmWrite("15", 255) }},
		{dev: "camera", cmd: owned(AngleCommand{Degrees: 140}), zero: owned(AngleCommand{}), read: func(g *simRig) string { return fmt.Sprint(g.servo("12")) },
			safe: "90", active: "140", dirty: func(a *sim.Adaptor) { _ = a.ServoWrite("12", 10) }},
		{dev: "status", cmd: owned(LEDCommand{Mode: LEDOn}), zero: owned(LEDCommand{}), read: pin("7"), safe: "0", active: "1",
			dirty: func(a *sim.Adaptor) { _ = a.DigitalWrite("7", 1) }},
		{dev: "pump", cmd: owned(LevelCommand{Level: 1}), zero: owned(LevelCommand{}), read: pin("36"), safe: "0", active: "1",
			dirty: func(a *sim.Adaptor) { _ = a.DigitalWrite("36", 1) }},
		{dev: "horn", cmd: owned(LevelCommand{Level: 1}), zero: owned(LevelCommand{}), read: pin("38"), safe: "0", active: "1",
			dirty: func(a *sim.Adaptor) { _ = a.DigitalWrite("38", 1) }},
		// safe: 1 and active low: safe is logical 1, pin low.
		{dev: "flag", cmd: owned(LevelCommand{Level: 0}), zero: owned(LevelCommand{}), read: pin("40"), safe: "0", active: "1",
			dirty: func(a *sim.Adaptor) { _ = a.DigitalWrite("40", 1) }},
		// safe duty 0.1 (PWM 26); 1.0 is clamped to max_duty 0.8 (PWM 204).
		{dev: "fan", cmd: owned(DutyCommand{Duty: 1}), zero: owned(DutyCommand{}), read: pin("32"), safe: "26", active: "204",
			dirty: func(a *sim.Adaptor) { _ = a.PwmWrite("32", 255) }},
	}
}

func (g *simRig) act(t testing.TB, dev string) *actuator {
	t.Helper()
	d, ok := g.robot.byName[dev]
	if !ok || d.act == nil {
		t.Fatalf("no actuator %q", dev)
	}
	return d.act
}

func TestActuatorConformance(t *testing.T) {
	cfg := parse(t, allKinds)
	for _, tc := range actuatorCases() {
		t.Run(tc.dev, func(t *testing.T) {
			check := func(g *simRig, what, want string) {
				t.Helper()
				if got := tc.read(g); got != want {
					t.Errorf("%s: reads %q, want %q", what, got, want)
				}
			}
			o := owner{a: &bt.Agent{}, n: 1}

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
				act := g.act(t, tc.dev)
				if err := tc.cmd(act, o); err != nil {
					t.Fatal(err)
				}
				g.apply()
				check(g, "commanded", tc.active)
				g.robot.env.release(act, o)
				g.apply()
				check(g, "halted", tc.safe)
				g.robot.env.release(act, o)
				g.apply()
				check(g, "halted twice", tc.safe)
				if err := tc.cmd(act, o); err != nil {
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
				act := g.act(t, tc.dev)
				other := owner{a: o.a, n: 2}
				_ = tc.zero(act, o)
				if err := tc.cmd(act, other); err != nil {
					t.Fatal(err)
				}
				g.robot.env.release(act, o) // the replaced action cleans up
				g.apply()
				check(g, "after the replaced action's halt", tc.active)
			})

			t.Run("halt after a failed start is safe", func(t *testing.T) {
				g := buildRig(t, cfg)
				g.sim.SilenceSensor(sim.SensorIMU) // the MPU6050 does not start
				if err := g.robot.Start(context.Background()); err == nil {
					t.Fatal("Start succeeded with a silent IMU")
				}
				if err := g.robot.Apply(); !errors.Is(err, ErrNotStarted) {
					t.Errorf("Apply after a failed Start: %v", err)
				}
				if f := g.robot.Faults(); len(f) != 1 || f[0].Device != "imu" || f[0].Code != FaultDriverError {
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
				act := g.act(t, tc.dev)
				_ = tc.cmd(act, o)
				g.apply()
				if err := g.robot.EStop("test"); err != nil {
					t.Fatal(err)
				}
				check(g, "e-stopped (before any Apply)", tc.safe)
				if err := tc.cmd(act, o); !errors.Is(err, ErrEStopped) {
					t.Errorf("command during e-stop: %v", err)
				}
				g.apply()
				check(g, "commanded during e-stop", tc.safe)
				g.robot.ReleaseEStop()
				g.apply()
				check(g, "released", tc.safe)
				if err := tc.cmd(act, o); err != nil {
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

// sensorCase is one sensor kind: how to break it on the simulated board.
type sensorCase struct {
	dev, key string
	fail     func(g *simRig)
	restore  func(g *simRig)
}

func sensorCases() []sensorCase {
	simFault := func(name string, silence bool) func(g *simRig) {
		return func(g *simRig) {
			if silence {
				g.sim.SilenceSensor(name)
			} else {
				g.sim.FailSensor(name, nil)
			}
		}
	}
	restore := func(name string) func(g *simRig) { return func(g *simRig) { g.sim.RestoreSensor(name) } }
	// The sim has no pose fault: the pose device's read is made to fail instead.
	poseFail := func(g *simRig) {
		s := g.robot.byName["pose"].sens
		read := s.read
		s.read = func(now time.Time, v []float64) error { return errors.New("localization lost") }
		g.t.Cleanup(func() { s.read = read })
	}
	return []sensorCase{
		{dev: "front", key: "range.front", fail: simFault(sim.SensorSonar, false), restore: restore(sim.SensorSonar)},
		{dev: "front/silent", key: "range.front", fail: simFault(sim.SensorSonar, true), restore: restore(sim.SensorSonar)},
		{dev: "battery", key: "battery.voltage", fail: simFault(sim.SensorBattery, false), restore: restore(sim.SensorBattery)},
		{dev: "battery/silent", key: "battery.percent", fail: simFault(sim.SensorBattery, true), restore: restore(sim.SensorBattery)},
		{dev: "imu", key: "imu.roll", fail: simFault(sim.SensorIMU, false), restore: restore(sim.SensorIMU)},
		{dev: "imu/silent", key: "imu.yaw", fail: simFault(sim.SensorIMU, true), restore: restore(sim.SensorIMU)},
		{dev: "bumper", key: "bump.bumper", fail: simFault(sim.SensorBump, false), restore: restore(sim.SensorBump)},
		{dev: "pose", key: "pose.x", fail: poseFail},
	}
}

// TestSensorConformance: a failed or silenced sensor keeps its last timestamp, so a Check with
// max_age_ms fails, and raises a fault until it works again.
func TestSensorConformance(t *testing.T) {
	cfg := parse(t, allKinds)
	for _, tc := range sensorCases() {
		t.Run(tc.dev, func(t *testing.T) {
			dev, _, _ := cut(tc.dev, "/")
			g := newRig(t, cfg)
			check := kv{"key": tc.key, "op": ">", "value": -1e9, "max_age_ms": 700}
			if dev == "bumper" {
				check["op"], check["value"] = "==", false // a boolean
			}
			tree := compileTree(t, cfg, nd("Check", "", check))
			ar := newAgentRig(t, g, tree, 10)
			if st := ar.tick(); st != bt.Success {
				t.Fatalf("healthy: Check is %v", st)
			}
			s, _ := tree.Slot(tc.key)
			stamp, _ := ar.agent.BB.Stamp(s)
			tc.fail(g)
			var st bt.Status
			for range 8 {
				st = ar.tick()
			}
			if st != bt.Failure {
				t.Errorf("broken for 0.8 s: Check is %v, want FAILURE (stale)", st)
			}
			if now, _ := ar.agent.BB.Stamp(s); now != stamp {
				t.Errorf("the stamp moved from %d to %d", stamp, now)
			}
			var found *Fault
			for _, f := range g.robot.Faults() {
				if f.Device == dev {
					found = &f
				}
			}
			switch {
			case found == nil:
				t.Fatalf("no fault for %s: %+v", dev, g.robot.Faults())
			case found.Code != FaultSensorError || found.Key != tc.key && dev != "battery" && dev != "imu":
				t.Errorf("fault %+v", *found)
			case found.Since.IsZero() || found.Message == "":
				t.Errorf("fault without time or message: %+v", *found)
			}
			t.Logf("%s: %s %s", dev, found.Code, found.Message)
			if tc.restore == nil {
				return
			}
			tc.restore(g)
			for range 3 {
				st = ar.tick()
			}
			if st != bt.Success {
				t.Errorf("restored: Check is %v", st)
			}
			if f := g.robot.Faults(); len(f) != 0 {
				t.Errorf("faults after restore: %+v", f)
			}
		})
	}
}

// TestBumpSilenceIsUndetectable documents a limit: a released switch and a cut wire read the
// same, so a silenced bump switch reads "not pressed" with fresh samples and no fault.
func TestBumpSilenceIsUndetectable(t *testing.T) {
	g := newRig(t, parse(t, allKinds))
	g.sim.SilenceSensor(sim.SensorBump)
	now := g.advance(time.Second)
	if v := g.snapshot(t, now)["bump.bumper"]; v != 0 {
		t.Errorf("bump = %v", v)
	}
	if f := g.robot.Faults(); len(f) != 0 {
		t.Errorf("faults %+v", f)
	}
}

// TestSensorStale: a sensor nobody samples goes stale.
func TestSensorStale(t *testing.T) {
	g := newRig(t, parse(t, allKinds))
	g.advance(100 * time.Millisecond)
	if f := g.robot.Faults(); len(f) != 0 {
		t.Fatalf("faults %+v", f)
	}
	g.clock.Set(g.clock.Now().Add(time.Second)) // time passes without Sample
	stale := map[string]bool{}
	for _, f := range g.robot.Faults() {
		if f.Code != FaultSensorStale {
			t.Errorf("fault %+v", f)
		}
		stale[f.Device] = true
	}
	// Stale after: range 500 ms, imu 500 ms, bump 500 ms, pose 500 ms; battery 1.5 s.
	for _, d := range []string{"front", "imu", "bumper", "pose"} {
		if !stale[d] {
			t.Errorf("%s is not stale", d)
		}
	}
	if stale["battery"] {
		t.Error("battery is stale after 1.1 s (stale_after_ms 1500)")
	}
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}
