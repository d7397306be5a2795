//go:build linux

package drivers

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// piOdometry is the rover-raspi drive with an MPU6050 and quadrature wheel encoders.
const piOdometry = `
adaptors:
  pi: {kind: raspi, pwm: pi-blaster}
devices:
  - name: base
    kind: diff_drive
    left: {speed: "32", forward: "29", backward: "31"}
    right: {speed: "33", forward: "35", backward: "37"}
    wheel_base: 0.16
    max_wheel_speed: 0.6
    max_linear: 0.4
    max_angular: 2.0
  - {name: imu, kind: imu, bus: 1, address: 0x68, rate_hz: 50}
  - name: odom
    kind: odometry
    encoders:
      left: {a: "13", b: "15"}
      right: {a: "38", b: "40"}
      ticks_per_rev: 90
    wheel_radius: 0.0325
    rate_hz: 50
`

// driveL drives an L: stand still (the gyro bias is learnt), 0.9 m ahead, a quarter turn
// left in place, 0.6 m ahead, stop.
func (g *piRig) driveL() {
	const dt = 10 * time.Millisecond
	g.run(time.Second, dt)
	g.command(0.3, 0)
	g.run(3*time.Second, dt)
	g.command(0, 1)
	// Turn until the true heading is a quarter turn (the slipping wheel makes it slower than
	// commanded), as a controller with a perfect compass would.
	for g.heading < math.Pi/2-0.005 {
		g.step(dt)
	}
	g.command(0.3, 0)
	g.run(2*time.Second, dt)
	g.command(0, 0)
	g.run(500*time.Millisecond, dt)
}

// poseError is how far the odometry's pose is from the truth: metres and degrees.
func (g *piRig) poseError(key string) (dist, deg float64) {
	x, y, h := g.reading(key+".x"), g.reading(key+".y"), g.reading(key+".heading")
	return math.Hypot(x-g.x, y-g.y), math.Abs(WrapAngle(h-g.heading)) * 180 / math.Pi
}

// TestOdometryOnThePi runs wheel odometry on gobot's raspi adaptor parts: quadrature encoders
// through the digital pins' edge events, the heading fused with the MPU6050's gyro on the mock
// i2c bus. The right wheel slips 5% and the gyro has a bias of 0.6°/s; the fused pose stays
// within centimetres of the truth, the wheels alone lose the heading.
func TestOdometryOnThePi(t *testing.T) {
	run := func(imu string) (*piRig, float64, float64) {
		cfg := parse(t, piOdometry+"    imu: "+imu+"\n")
		g := newPiRig(t, cfg)
		g.slip = [2]float64{0, 0.05}
		g.gyroBias = 0.6 * math.Pi / 180
		g.driveL()
		d, h := g.poseError("pose")
		t.Logf("imu %s: truth (%.3f, %.3f) %.1f°, odometry (%.3f, %.3f) %.1f°: %.3f m, %.2f° off; quality %v sigma %.3f m",
			imu, g.x, g.y, g.heading*180/math.Pi, g.reading("pose.x"), g.reading("pose.y"), g.reading("pose.heading")*180/math.Pi,
			d, h, g.reading("pose.quality"), g.reading("pose.sigma"))
		return g, d, h
	}
	g, d, h := run("imu")
	if d > 0.05 || h > 1.5 {
		t.Errorf("fused odometry is %.3f m and %.2f° off", d, h)
	}
	if q := g.reading("pose.quality"); q != 0.7 {
		t.Errorf("quality %v, want %v", q, 0.7)
	}
	if s := g.reading("pose.sigma"); !(s > 0.02*1.4 && s < 0.02*1.8) {
		t.Errorf("sigma %v after about 1.6 m", s)
	}
	if f := g.robot.Faults(); len(f) > 0 {
		t.Errorf("faults: %+v", f)
	}
	g, _, h = run("none")
	if h < 10 {
		t.Errorf("the wheels alone are only %.2f° off with a slipping wheel: the slip is not tested", h)
	}
	if q := g.reading("pose.quality"); q != 0.5 {
		t.Errorf("quality %v, want %v", q, 0.5)
	}
}

// TestDeadReckoning: without encoders the pose comes from the duties the drive wrote, through
// the motor calibration (max_wheel_speed and min_duty), with the gyro's heading; it is marked
// as the poorer source it is in pose.quality and pose.sigma.
func TestDeadReckoning(t *testing.T) {
	base := piOdometry[:strings.Index(piOdometry, "  - name: odom")]
	for _, tc := range []struct {
		imu     string
		quality float64 // the odometry's for this source
		sigma   float64 // its position uncertainty per metre travelled
		maxDist float64
		maxDeg  float64
	}{
		{"imu", 0.3, 0.10, 0.08, 1},
		{"none", 0.15, 0.25, 0.08, 4}, // the quarter turn's 3% slip is lost to the heading
	} {
		t.Run("imu "+tc.imu, func(t *testing.T) {
			g := newPiRig(t, parse(t, base+"  - {name: odom, kind: odometry, min_duty: 0.1, imu: "+tc.imu+"}\n"))
			g.deadband = 0.1
			g.slip = [2]float64{0.03, 0.03} // the rover makes 3% less way than its wheels
			g.gyroBias = 0.3 * math.Pi / 180
			g.driveL()
			d, h := g.poseError("pose")
			q, sigma := g.reading("pose.quality"), g.reading("pose.sigma")
			t.Logf("truth (%.3f, %.3f) %.1f°, dead reckoning (%.3f, %.3f) %.1f°: %.3f m, %.2f° off; quality %v sigma %.3f m",
				g.x, g.y, g.heading*180/math.Pi, g.reading("pose.x"), g.reading("pose.y"), g.reading("pose.heading")*180/math.Pi, d, h, q, sigma)
			if d > tc.maxDist || h > tc.maxDeg {
				t.Errorf("%.3f m and %.2f° off", d, h)
			}
			if q != tc.quality || q >= 0.5 {
				t.Errorf("quality %v, want %v (below the encoders' %v)", q, tc.quality, 0.5)
			}
			if travel := 1.5 + math.Pi/2*0.08; math.Abs(sigma-tc.sigma*travel) > 0.1*tc.sigma*travel {
				t.Errorf("sigma %.3f after %.2f m at %v/m", sigma, travel, tc.sigma)
			}
		})
	}
}

// TestOdometryEncoderStall: an encoder whose wires come off while the rover drives is a fault
// naming the wheel, and the pose stops (goes stale), so MoveTo stops the base; the fault stays
// when the motors stop and clears once the encoder counts again.
func TestOdometryEncoderStall(t *testing.T) {
	g := newPiRig(t, parse(t, piOdometry))
	const dt = 10 * time.Millisecond
	g.command(0.3, 0)
	g.run(time.Second, dt)
	_, before, _ := g.robot.Reading("pose.x")
	g.cut[0] = true
	g.run(800*time.Millisecond, dt)
	faults := fmt.Sprint(g.robot.Faults())
	if !strings.Contains(faults, "odom") || !strings.Contains(faults, "left wheel's encoder counted nothing") {
		t.Fatalf("no stall fault: %s", faults)
	}
	_, at, _ := g.robot.Reading("pose.x")
	if lag := g.clock.Now().Sub(at); lag < 200*time.Millisecond {
		t.Errorf("the pose is still updated %v ago with a stalled encoder", lag)
	}
	t.Logf("stall: %s; pose last written %v after the wire came off at %v", faults, at.Sub(before), before.Sub(SimEpoch))
	g.command(0, 0)
	g.run(time.Second, dt)
	if !strings.Contains(fmt.Sprint(g.robot.Faults()), "encoder") {
		t.Error("the stall cleared when the motors stopped")
	}
	g.cut[0] = false
	g.command(0.2, 0)
	g.run(300*time.Millisecond, dt)
	if f := g.robot.Faults(); len(f) > 0 {
		t.Errorf("faults after the encoder counts again: %+v", f)
	}
}

// TestOdometrySingleChannel: encoders with channel A only take their direction from the
// motor: driving backward goes backward.
func TestOdometrySingleChannel(t *testing.T) {
	cfg := strings.NewReplacer(`{a: "13", b: "15"}`, `{a: "13"}`, `{a: "38", b: "40"}`, `{a: "38"}`).Replace(piOdometry)
	g := newPiRig(t, parse(t, cfg))
	const dt = 10 * time.Millisecond
	g.command(-0.2, 0)
	g.run(2*time.Second, dt)
	g.command(0, 0)
	g.run(200*time.Millisecond, dt)
	d, h := g.poseError("pose")
	t.Logf("truth (%.3f, %.3f), odometry (%.3f, %.3f): %.3f m %.2f° off", g.x, g.y, g.reading("pose.x"), g.reading("pose.y"), d, h)
	if g.x > -0.3 || d > 0.02 || h > 1 {
		t.Errorf("backward on single-channel encoders: %.3f m, %.2f° off (truth x %.3f)", d, h, g.x)
	}
}

// BenchmarkOdometrySample is one odometry sample on the mock Pi: read the counts, the written
// duties and the gyro, integrate, store.
func BenchmarkOdometrySample(b *testing.B) {
	g := newPiRig(b, parse(b, piOdometry))
	g.command(0.3, 0.5)
	g.run(time.Second, 10*time.Millisecond)
	d := g.robot.byName["odom"]
	now := g.clock.Now()
	sample := func() {
		now = now.Add(20 * time.Millisecond)
		d.sens.sample(&g.robot.table, now, quiet)
	}
	if n := testing.AllocsPerRun(100, sample); n != 0 {
		b.Fatalf("%v allocations per sample, want 0", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		sample()
	}
}
