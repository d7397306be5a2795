//go:build linux

package sim_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/drivers/gpio"
	"gobot.io/x/gobot/v2/system"

	"github.com/botd-project/botd/drivers/sim"
)

// encoderRobot is the default robot with quadrature encoders on both wheels.
func encoderRobot(noise sim.NoiseConfig) sim.RobotConfig {
	return sim.RobotConfig{
		Pins:     sim.PinMap{LeftEncoderA: "36", LeftEncoderB: "38", RightEncoderA: "40", RightEncoderB: "37"},
		Encoders: sim.EncoderConfig{TicksPerRev: 90, WheelRadius: 0.0325},
		GPS:      sim.GPSConfig{Port: "/dev/serial0", Lat: 52.5163, Lon: 13.3777},
		Noise:    noise,
	}
}

// decoder counts x4 quadrature from edge events, as an odometry would.
type decoder struct {
	mu     sync.Mutex
	a, b   int
	count  int
	bad    int
	lastTS time.Duration
	order  bool // every edge later than the one before
}

func (d *decoder) handler(chB bool) func(int, time.Duration, string, uint32, uint32) {
	return func(_ int, ts time.Duration, edge string, _, _ uint32) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if ts < d.lastTS {
			d.order = false
		}
		d.lastTS = ts
		level := 0
		if edge == system.DigitalPinEventRisingEdge {
			level = 1
		}
		switch {
		case !chB && level == d.a, chB && level == d.b:
			d.bad++
		case !chB:
			d.a = level
			if d.a != d.b {
				d.count++
			} else {
				d.count--
			}
		default:
			d.b = level
			if d.b == d.a {
				d.count++
			} else {
				d.count--
			}
		}
	}
}

func (d *decoder) get() (count, bad int, ordered bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.count, d.bad, d.order
}

// listen puts decoders on both wheels' encoder pins, through the pins' Gobot options.
func listen(t testing.TB, a *sim.Adaptor) [2]*decoder {
	t.Helper()
	var out [2]*decoder
	for side, pins := range [2][2]string{{"36", "38"}, {"40", "37"}} {
		d := &decoder{order: true}
		for ch, id := range pins {
			p, err := a.DigitalPin(id)
			if err == nil {
				err = p.(gobot.DigitalPinOptionApplier).ApplyOptions(system.WithPinDirectionInput(),
					system.WithPinEventOnBothEdges(d.handler(ch == 1)))
			}
			var lv int
			if err == nil {
				lv, err = p.Read()
			}
			if err != nil {
				t.Fatal(err)
			}
			if ch == 0 {
				d.a = lv
			} else {
				d.b = lv
			}
		}
		out[side] = d
	}
	return out
}

func encoderRover(t *testing.T, w *sim.World, noise sim.NoiseConfig) (*sim.Robot, *sim.Adaptor, *gpio.MotorDriver, *gpio.MotorDriver) {
	t.Helper()
	r := w.AddRobot("enc", encoderRobot(noise))
	a := sim.NewAdaptor(r)
	must(t, a.Connect())
	t.Cleanup(func() { _ = a.Finalize() })
	l := gpio.NewMotorDriver(a, "11", gpio.WithMotorDirectionPin("13"))
	rt := gpio.NewMotorDriver(a, "15", gpio.WithMotorDirectionPin("16"))
	must(t, l.Start())
	must(t, rt.Start())
	return r, a, l, rt
}

// TestEncodersCountTheWheels: the encoder pins fire an edge per quarter cycle as the wheels
// turn, in order and within the Step that turned them, and a decoder of them counts exactly
// what the wheels turned, forward and back.
func TestEncodersCountTheWheels(t *testing.T) {
	w := sim.DefaultWorld()
	r, a, l, rt := encoderRover(t, w, sim.NoiseConfig{})
	dec := listen(t, a)
	must(t, l.SetSpeed(128))
	must(t, rt.SetSpeed(128))
	steps(w, 50, 20*time.Millisecond) // 1 s forward at 0.251 m/s
	lc, rc, dropped := r.EncoderCounts()
	want := wheelSpeed(128) * 1 / (2 * math.Pi * 0.0325) * 360
	for side, d := range dec {
		got, bad, ordered := d.get()
		truth := []float64{lc, rc}[side]
		if got != int(math.Floor(truth)) || bad != 0 || !ordered || math.Abs(truth-want) > 1 {
			t.Errorf("wheel %d forward: decoded %d (%d bad, in order %v), truth %.2f, want %.2f", side, got, bad, ordered, truth, want)
		}
	}
	if dropped != 0 {
		t.Errorf("%d edges dropped", dropped)
	}
	must(t, l.Backward(200))
	must(t, rt.Backward(200))
	steps(w, 50, 20*time.Millisecond)
	lc, _, _ = r.EncoderCounts()
	if got, bad, _ := dec[0].get(); got != int(math.Floor(lc)) || bad != 0 || lc > 0 {
		t.Errorf("backward: decoded %d (%d bad), truth %.2f", got, bad, lc)
	}
	// The pins read the channels' levels of the Gray state.
	av, _ := a.DigitalRead("36")
	bv, _ := a.DigitalRead("38")
	s := ((int(math.Floor(lc)) % 4) + 4) % 4
	if av != map[bool]int{true: 1, false: 0}[s == 1 || s == 2] || bv != map[bool]int{true: 1, false: 0}[s == 2 || s == 3] {
		t.Errorf("levels A %d B %d in state %d", av, bv, s)
	}
	if err := a.DigitalWrite("36", 1); err == nil {
		t.Error("wrote to an encoder pin")
	}
}

// TestEncoderSlipNoiseAndSilence: a slipping wheel turns its encoder more than it moves the
// rover (the gyro sees the rover, with its bias); noise is repeatable from the seed; an
// encoder whose wires are off fires nothing.
func TestEncoderSlipNoiseAndSilence(t *testing.T) {
	noise := sim.NoiseConfig{SlipRight: 0.1, Encoder: 0.02, GyroBias: 0.01, Seed: 7}
	run := func() (float64, float64, float64, float64) {
		w := sim.DefaultWorld()
		r, _, l, rt := encoderRover(t, w, noise)
		must(t, l.SetSpeed(200))
		must(t, rt.SetSpeed(200))
		steps(w, 25, 20*time.Millisecond)
		lc, rc, _ := r.EncoderCounts()
		_, omega := r.Velocity()
		return lc, rc, omega, r.Heading()
	}
	lc, rc, omega, heading := run()
	if lc2, rc2, _, _ := run(); lc2 != lc || rc2 != rc {
		t.Errorf("not repeatable: %v %v then %v %v", lc, rc, lc2, rc2)
	}
	if math.Abs(rc-lc) > 0.1*lc {
		t.Errorf("the encoders differ by more than their noise: %.1f %.1f", lc, rc)
	}
	v := wheelSpeed(200)
	if want := -(v * 0.1) / 0.2; math.Abs(omega-want) > 1e-9 || heading > -0.05 {
		t.Errorf("the slipping right wheel turns the rover at %v rad/s (want %v), heading %v", omega, want, heading)
	}

	w := sim.DefaultWorld()
	r, a, l, rt := encoderRover(t, w, sim.NoiseConfig{GyroBias: 0.01})
	dec := listen(t, a)
	r.SilenceSensor(sim.SensorEncoderLeft)
	must(t, l.SetSpeed(200))
	must(t, rt.SetSpeed(200))
	steps(w, 10, 20*time.Millisecond)
	if n, _, _ := dec[0].get(); n != 0 {
		t.Errorf("a silenced encoder fired %d counts", n)
	}
	if n, _, _ := dec[1].get(); n < 100 {
		t.Errorf("the other encoder fired %d counts", n)
	}
}

// TestSimGPS: the receiver sends an RMC and a GGA sentence per period on its serial port, with
// valid checksums, for the rover's position around the yard's origin.
func TestSimGPS(t *testing.T) {
	w := sim.DefaultWorld()
	r, a, l, rt := encoderRover(t, w, sim.NoiseConfig{GPS: 0.5, Seed: 3})
	if _, err := a.OpenSerial("/dev/ttyUSB0"); err == nil {
		t.Error("opened a port the receiver is not on")
	}
	port, err := a.OpenSerial("/dev/serial0")
	must(t, err)
	must(t, l.SetSpeed(255))
	must(t, rt.SetSpeed(255))
	steps(w, 50, 20*time.Millisecond) // 1 s east at 0.5 m/s
	buf := make([]byte, 8192)
	n, err := port.ReadAvailable(buf)
	must(t, err)
	lines := strings.Split(strings.TrimSpace(string(buf[:n])), "\r\n")
	if len(lines) != 12 { // fixes at 0, 0.2, ..., 1.0 s
		t.Fatalf("%d sentences in 1 s at 5 Hz:\n%s", len(lines), buf[:n])
	}
	for _, line := range lines {
		body, sum, ok := strings.Cut(strings.TrimPrefix(line, "$"), "*")
		var x byte
		for i := 0; i < len(body); i++ {
			x ^= body[i]
		}
		if !ok || fmt.Sprintf("%02X", x) != sum {
			t.Errorf("bad checksum: %s", line)
		}
	}
	last := strings.Split(lines[11], ",")
	if last[0] != "$GPGGA" || last[6] != "1" {
		t.Fatalf("last sentence %s", lines[11])
	}
	lat := dm(last[2])
	lon := dm(last[4])
	y := (lat - 52.5163) * math.Pi / 180 * 6365000 // near enough for half a metre
	x := (lon - 13.3777) * math.Pi / 180 * 6390000 * math.Cos(52.5163*math.Pi/180)
	tx, ty, _ := r.Pose()
	if math.Hypot(x-tx, y-ty) > 2 {
		t.Errorf("GPS at (%.2f, %.2f), rover at (%.2f, %.2f)", x, y, tx, ty)
	}
	if n, _ := port.ReadAvailable(buf); n != 0 {
		t.Errorf("%d bytes read twice", n)
	}
	r.SilenceSensor(sim.SensorGPS)
	steps(w, 50, 20*time.Millisecond)
	if n, _ := port.ReadAvailable(buf); n != 0 {
		t.Errorf("a silenced receiver sent %d bytes", n)
	}
}

// dm reads NMEA's (d)ddmm.mmmm as degrees.
func dm(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	d := math.Floor(v / 100)
	return d + (v-d*100)/60
}

// BenchmarkStepWithEncoders is one 20 ms step of a rover driving with quadrature encoders
// whose edges go to decoders (0 allocations once the edge buffers have grown), about 26
// edges a step; the battery is recharged so that the wheels keep turning however long the
// benchmark runs, and ns/edge is a step's cost shared among its edges.
func BenchmarkStepWithEncoders(b *testing.B) {
	w := sim.DefaultWorld()
	cfg := encoderRobot(sim.NoiseConfig{Encoder: 0.02, SlipRight: 0.02, Seed: 1})
	cfg.GPS = sim.GPSConfig{}
	r := w.AddRobot("enc", cfg)
	a := sim.NewAdaptor(r)
	if err := a.Connect(); err != nil {
		b.Fatal(err)
	}
	defer a.Finalize()
	listen(b, a)
	l := gpio.NewMotorDriver(a, "11", gpio.WithMotorDirectionPin("13"))
	rt := gpio.NewMotorDriver(a, "15", gpio.WithMotorDirectionPin("16"))
	_ = l.Start()
	_ = rt.Start()
	_ = l.SetSpeed(200)
	_ = rt.SetSpeed(180)
	w.Step(20 * time.Millisecond)
	if n := testing.AllocsPerRun(100, func() { w.Step(20 * time.Millisecond) }); n != 0 {
		b.Fatalf("%v allocations per step, want 0", n)
	}
	b.ReportAllocs()
	l0, r0, _ := r.EncoderCounts()
	i := 0
	for b.Loop() {
		if i++; i%1000 == 0 {
			r.SetBatteryCharge(1)
		}
		w.Step(20 * time.Millisecond)
	}
	l1, r1, _ := r.EncoderCounts()
	if edges := math.Abs(l1-l0) + math.Abs(r1-r0); edges >= 1 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/edges, "ns/edge")
	}
}
