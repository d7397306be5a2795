//go:build linux

package drivers

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers/sim"
)

// TestOdometryOnTheSim: the sim board's encoders drive the odometry kind (the same code as on
// a Pi), through the pins' edge events; with noise and slip the fused pose stays near the
// truth, and an encoder whose wires come off is a stall fault.
func TestOdometryOnTheSim(t *testing.T) {
	cfg := loadSimConfig(t)
	cfg.Adaptors["board"].Noise = &sim.NoiseConfig{Encoder: 0.02, SlipLeft: 0.01, SlipRight: 0.04, GyroBias: 0.005, Seed: 2}
	g := newRig(t, cfg)
	drive := func(lin, ang float64, d time.Duration) {
		if err := TestDrive(g.robot, "base", owner{}, lin, ang, false); err != nil {
			t.Fatal(err)
		}
		g.apply()
		for end := g.clock.Now().Add(d); g.clock.Now().Before(end); {
			g.advance(10 * time.Millisecond)
		}
	}
	drive(0, 0, time.Second)
	drive(0.3, 0, 3*time.Second)
	drive(0, 1, 1500*time.Millisecond)
	drive(0.3, 0.3, 3*time.Second)
	drive(0, 0, 500*time.Millisecond)
	x, y, h := g.sim.Pose()
	v := g.snapshot(t, g.clock.Now())
	d, dh := math.Hypot(v["odom.x"]-x, v["odom.y"]-y), math.Abs(WrapAngle(v["odom.heading"]-h))*180/math.Pi
	t.Logf("truth (%.3f, %.3f) %.1f°, odometry (%.3f, %.3f) %.1f°: %.3f m, %.2f° off after %.2f m; quality %v",
		x, y, h*180/math.Pi, v["odom.x"], v["odom.y"], v["odom.heading"]*180/math.Pi, d, dh, g.sim.Odometer(), v["odom.quality"])
	if d > 0.08 || dh > 2 {
		t.Errorf("%.3f m and %.2f° off", d, dh)
	}
	if v["odom.quality"] != 0.7 {
		t.Errorf("quality %v", v["odom.quality"])
	}
	g.sim.SilenceSensor(sim.SensorEncoderRight)
	drive(0.3, 0, time.Second)
	if f := g.robot.Faults(); len(f) != 1 || f[0].Device != "odom" || !strings.Contains(f[0].Message, "right wheel's encoder counted nothing") {
		t.Errorf("faults with the right encoder off: %+v", f)
	}
}

// TestSelfTestChecksTheEncoders: the self-test's drive pulses are counted by the encoders in
// the right directions on the simulated rover.
func TestSelfTestChecksTheEncoders(t *testing.T) {
	w := sim.DefaultWorld()
	stepping(t, w)
	reports, err := SelfTest(context.Background(), loadSimConfig(t), Options{World: w, Name: "rover", Logger: quiet},
		SelfTestOptions{Move: true, Pulse: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	by := reportsByName(reports)
	base, odom := by["base"], by["odom"]
	t.Logf("base: %s\nodom: %s", base.Message, odom.Message)
	if base.Status != TestOK || !strings.Contains(base.Message, "forward 100ms (left +") || !strings.Contains(base.Message, "left 100ms (left -") {
		t.Errorf("base: %+v", base)
	}
	if odom.Status != TestOK || !strings.Contains(odom.Message, "heading fused with imu imu") {
		t.Errorf("odom: %+v", odom)
	}
}
