//go:build linux

package drivers

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"gobot.io/x/gobot/v2"

	"github.com/botd-project/botd/drivers/sim"
)

// piRig is a rover built from a raspi config on the mock Pi (gobot's adaptor parts on its mock
// system access), with a small kinematic model of the rover playing the hardware: it reads the
// motor bridges' PWM duty and direction pins as gobot wrote them, moves the rover (each wheel
// losing its slip fraction of its turn to the floor), turns the encoders (edge events on the
// encoder pins' taps), and gives the MPU6050 model the rover's true rate of turn plus a gyro
// bias. Sensors are sampled on the rig's virtual clock (Options.Sync).
type piRig struct {
	t        testing.TB
	pi       *mockPi
	robot    *Robot
	clock    *clock
	imu      *mpuModel
	drive    *TestDriveSection
	encoders *TestEncoderWiring // the odometry's wheel encoders

	elapsed       time.Duration
	x, y, heading float64 // the rover's true pose
	omega         float64
	enc           [2]float64 // encoder positions, counts (quarter cycles)
	slip          [2]float64 // share of each wheel's turn that does not move the rover
	deadband      float64    // duty below which the motors do not turn
	gyroBias      float64    // rad/s
	cut           [2]bool    // an encoder's wires are off: no edges

	// The HC-SR04: pings are ray-cast in world (the simulator's yard) from the front of a body
	// of radius bodyRadius.
	world      *sim.World
	bodyRadius float64
	trigLevel  int
	pings      int
	echoes     chan echoReq // to the one goroutine that sends echoes, as gpiocdev has one per line
	// The battery behind the ADS1115: volts at the pack.
	ads     *adsModel
	adsChan int
	divider float64 // volts at the ADC per volt at the pack
}

func newPiRig(t testing.TB, cfg *Config) *piRig {
	t.Helper()
	g := buildPiRig(t, cfg)
	if err := g.robot.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, d := range cfg.Devices {
		if d.Kind == "range" {
			s := sectionOf(t, d.Spec)
			g.world, g.bodyRadius = sim.DefaultWorld(), 0.1
			trig, err := g.pi.tap(s.Trig)
			if err != nil {
				t.Fatal(err)
			}
			echo, err := g.pi.tap(s.Echo)
			if err != nil {
				t.Fatal(err)
			}
			g.echoes = make(chan echoReq, 1)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for req := range g.echoes {
					if time.Since(req.issued) > 100*time.Millisecond {
						continue
					}
					echo.fire(1, req.rise)
					echo.fire(0, req.rise+req.pulse)
				}
			}()
			t.Cleanup(func() {
				close(g.echoes)
				select {
				case <-done:
				case <-time.After(10 * time.Second): // not to hang the test binary
					t.Error("the echo goroutine is stuck in the HC-SR04 driver's handler")
				}
			})
			trig.mu.Lock()
			trig.onWrite = func(v int) { g.trigger(v) }
			trig.mu.Unlock()
		}
	}
	return g
}

type echoReq struct {
	rise, pulse time.Duration
	issued      time.Time
}

// trigger plays the HC-SR04 when its trigger pin is written: on the falling edge of the
// trigger pulse it measures the distance ahead and sends the echo pulse. Gobot's driver waits
// for the echo on the goroutine that wrote the trigger, so the edges come from another one
// (always the same: the driver's handler keeps state between edges, as gpiocdev's one event
// goroutine per line allows); one the driver no longer waits for (after its 160 ms) is
// dropped, as the sim board does.
func (g *piRig) trigger(v int) {
	was := g.trigLevel
	g.trigLevel = v
	if was != 1 || v != 0 {
		return
	}
	g.pings++
	d := math.Inf(1)
	ox, oy := g.x+g.bodyRadius*math.Cos(g.heading), g.y+g.bodyRadius*math.Sin(g.heading)
	for k := -2; k <= 2; k++ {
		d = math.Min(d, g.world.Raycast(ox, oy, g.heading+float64(k)*7.5/2*math.Pi/180))
	}
	pulse := 38 * time.Millisecond // nothing within 4 m
	if d <= 4 {
		pulse = time.Duration(d * 2 / 343 * float64(time.Second))
	}
	select {
	case g.echoes <- echoReq{rise: g.elapsed + 500*time.Microsecond, pulse: pulse, issued: time.Now()}:
	default: // one ping in flight at a time, as on the sensor
	}
}

// setBattery sets the pack's voltage the ADS1115 measures.
func (g *piRig) setBattery(v float64) {
	g.ads.set(g.adsChan, v*g.divider)
}

func buildPiRig(t testing.TB, cfg *Config) *piRig {
	t.Helper()
	g := &piRig{t: t, pi: newMockPi(raspiPWMOptions(cfg, "pi")...), clock: newClock()}
	for _, d := range cfg.Devices {
		s := sectionOf(t, d.Spec)
		switch d.Kind {
		case "imu":
			g.imu = newMPU()
			g.pi.bus.set(s.Address, g.imu)
		case "battery":
			if s.ADC != nil {
				g.ads = &adsModel{}
				g.adsChan = int(s.Pin[0] - '0')
				// the config's scale: raw_max counts (at 4.096 V, gain 1) is volts_max at the pack
				g.divider = 4.096 * float64(s.Scale.RawMax) / 32768 / s.Scale.VoltsMax
				g.setBattery(11.8)
				g.pi.bus.set(s.ADC.Address, g.ads)
			}
		case "bump":
			// released: gobot's mock pin reads these levels one after another
			released := 0
			if s.ActiveLow {
				released = 1
			}
			levels := make([]int, 100_000)
			for i := range levels {
				levels[i] = released
			}
			g.pi.pins.UseValues("gpiochip0", fmt.Sprint(piHeader[s.Pin]), levels)
		default:
			if o, ok := TestOdometry(d.Spec); ok {
				g.encoders = o.Encoders
			}
			if dd, ok := TestDriveWiring(d.Spec); ok {
				g.drive = &dd
			}
		}
	}
	r, err := Build(cfg, Options{Name: "pi-rover", Sync: true, Logger: quiet, Now: g.clock.Now,
		NewBoard: func(string, *AdaptorConfig) (gobot.Adaptor, error) { return g.pi, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	g.robot = r
	return g
}

// duty is the duty cycle the bridge of a wheel gets, signed by its direction pins.
func (g *piRig) duty(side int) float64 {
	m := g.drive.Motors[side]
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
	if err := TestDrive(g.robot, "base", owner{}, linear, angular, false); err != nil {
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
	g.heading = WrapAngle(g.heading + dth)
	g.omega = dth / sec
	if g.imu != nil {
		g.imu.setRate(g.omega + g.gyroBias)
	}
	if e := g.encoders; e != nil {
		for i := range 2 {
			perMetre := 4 * e.TicksPerRev / (2 * math.Pi * e.WheelRadius)
			turn := wheel[i] * perMetre
			if e.Reverse[i] {
				turn = -turn
			}
			from := g.enc[i]
			g.enc[i] += turn
			if g.cut[i] {
				continue
			}
			quadEdges(from, g.enc[i], func(chB bool, level int, frac float64) {
				id := e.A[i]
				if chB {
					if e.B[i] == "" {
						return
					}
					id = e.B[i]
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

// adsModel is an ADS1115's registers as gobot's ADS1x15 driver uses them: a single-shot
// conversion of the channel and gain the config register asks for, done at once.
type adsModel struct {
	mu     sync.Mutex
	config uint16
	volts  [4]float64 // at each single-ended input
}

func (m *adsModel) set(ch int, v float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.volts[ch] = v
}

func swap16(v uint16) uint16 { return v<<8 | v>>8 }

func (m *adsModel) readByte(byte) byte   { return 0 }
func (m *adsModel) writeByte(byte, byte) {}

// Registers are big-endian; an SMBus word carries the first byte low.
func (m *adsModel) readWord(reg byte) uint16 {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch reg {
	case 1:
		return swap16(m.config | 0x8000) // OS: no conversion in progress
	case 0:
		mux := int(m.config>>12) & 7
		fsr := [8]float64{6.144, 4.096, 2.048, 1.024, 0.512, 0.256, 0.256, 0.256}[m.config>>9&7]
		if mux < 4 {
			return 0 // differential: not wired here
		}
		c := math.Round(m.volts[mux-4] / fsr * 32768)
		return swap16(uint16(int16(math.Max(math.Min(c, 32767), -32768))))
	}
	return 0
}

func (m *adsModel) writeWord(reg byte, v uint16) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if reg == 1 {
		m.config = swap16(v)
	}
}
