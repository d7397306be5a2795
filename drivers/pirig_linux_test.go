//go:build linux

package drivers

import (
	"context"
	"math"
	"testing"
	"time"

	"gobot.io/x/gobot/v2"
)

// piRig is a rover built from a raspi config on the mock Pi (gobot's adaptor parts on its mock
// system access), with a small kinematic model of the rover playing the hardware: it reads the
// motor bridges' PWM duty and direction pins as gobot wrote them, moves the rover (each wheel
// losing its slip fraction of its turn to the floor), turns the encoders (edge events on the
// encoder pins' taps), and gives the MPU6050 model the rover's true rate of turn plus a gyro
// bias. Sensors are sampled on the rig's virtual clock (Options.Sync).
type piRig struct {
	t     testing.TB
	pi    *mockPi
	robot *Robot
	clock *clock
	imu   *mpuModel
	drive *DiffDriveConfig
	odo   *OdometryConfig

	elapsed       time.Duration
	x, y, heading float64 // the rover's true pose
	omega         float64
	enc           [2]float64 // encoder positions, counts (quarter cycles)
	slip          [2]float64 // share of each wheel's turn that does not move the rover
	deadband      float64    // duty below which the motors do not turn
	gyroBias      float64    // rad/s
	cut           [2]bool    // an encoder's wires are off: no edges
	// onStep, if set, runs after each physics step, before the sensors are sampled (the sonar
	// and battery models of the patrol test).
	onStep func(g *piRig)
}

func newPiRig(t testing.TB, cfg *Config) *piRig {
	t.Helper()
	g := buildPiRig(t, cfg)
	if err := g.robot.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return g
}

func buildPiRig(t testing.TB, cfg *Config) *piRig {
	t.Helper()
	g := &piRig{t: t, pi: newMockPi(raspiPWMOptions(cfg, "pi")...), clock: newClock()}
	for _, d := range cfg.Devices {
		switch s := d.Spec.(type) {
		case *DiffDriveConfig:
			g.drive = s
		case *OdometryConfig:
			g.odo = s
		case *IMUConfig:
			g.imu = newMPU()
			g.pi.bus.set(s.Address, g.imu)
		}
	}
	r, err := Build(cfg, Options{Name: "pi-rover", Sync: true, Logger: quiet, Now: g.clock.Now,
		newBoard: func(string, *AdaptorConfig) (gobot.Adaptor, error) { return g.pi, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	g.robot = r
	return g
}

// duty is the duty cycle the bridge of a wheel gets, signed by its direction pins.
func (g *piRig) duty(side int) float64 {
	m := [2]MotorPins{g.drive.Left, g.drive.Right}[side]
	d := g.pi.duty(g.t, m.Speed)
	var sign float64
	if m.Dir != "" {
		sign = 1
		if g.pi.level(m.Dir) == 0 {
			sign = -1
		}
	} else {
		sign = float64(max(g.pi.level(m.Forward), 0) - max(g.pi.level(m.Backward), 0))
	}
	if m.Reverse {
		sign = -sign
	}
	return sign * d
}

// command sets the drive's command as a leaf would and applies it.
func (g *piRig) command(linear, angular float64) {
	g.t.Helper()
	if err := g.robot.env.command(g.robot.byName["base"].act, owner{}, command{a: linear, b: angular}, false); err != nil {
		g.t.Fatal(err)
	}
	if err := g.robot.Apply(); err != nil {
		g.t.Fatal(err)
	}
}

// step moves the rover for dt, turns the encoders, and samples the sensors at the new time.
func (g *piRig) step(dt time.Duration) time.Time {
	sec := dt.Seconds()
	var wheel [2]float64 // m each wheel's rim turned
	for i := range wheel {
		d := g.duty(i)
		speed := math.Max(0, math.Abs(d)-g.deadband) / (1 - g.deadband) * g.drive.MaxWheelSpeed
		wheel[i] = math.Copysign(speed, d) * sec
	}
	l, r := wheel[0]*(1-g.slip[0]), wheel[1]*(1-g.slip[1])
	d, dth := (l+r)/2, (r-l)/g.drive.WheelBase
	mid := g.heading + dth/2
	g.x += d * math.Cos(mid)
	g.y += d * math.Sin(mid)
	g.heading = wrapAngle(g.heading + dth)
	g.omega = dth / sec
	if g.imu != nil {
		g.imu.setRate(g.omega + g.gyroBias)
	}
	if g.odo != nil && g.odo.Encoders != nil {
		e := g.odo.Encoders
		for i, p := range [2]EncoderPins{e.Left, e.Right} {
			perMetre := 4 * e.TicksPerRev / (2 * math.Pi * g.odo.WheelRadius)
			turn := wheel[i] * perMetre
			if p.Reverse {
				turn = -turn
			}
			from := g.enc[i]
			g.enc[i] += turn
			if g.cut[i] {
				continue
			}
			quadEdges(from, g.enc[i], func(chB bool, level int, frac float64) {
				id := p.A
				if chB {
					if p.B == "" {
						return
					}
					id = p.B
				}
				tap, err := g.pi.tap(id)
				if err != nil {
					g.t.Fatalf("encoder pin %s: %v", id, err)
				}
				tap.fire(level, g.elapsed+time.Duration(frac*float64(dt)))
			})
		}
	}
	g.elapsed += dt
	if g.onStep != nil {
		g.onStep(g)
	}
	now := SimEpoch.Add(g.elapsed)
	g.clock.Set(now)
	g.robot.Sample(now)
	return now
}

// run steps for d in steps of dt.
func (g *piRig) run(d, dt time.Duration) {
	for end := g.elapsed + d; g.elapsed < end; {
		g.step(dt)
	}
}

// reading is a sensor key's latest value (NaN when there is none).
func (g *piRig) reading(key string) float64 {
	v, _, ok := g.robot.Reading(key)
	if !ok {
		return math.NaN()
	}
	return v
}
