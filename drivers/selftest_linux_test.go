//go:build linux

package drivers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"gobot.io/x/gobot/v2"

	"github.com/botd-project/botd/drivers/sim"
)

// stepping moves a world on the real clock until the test ends (SelfTest runs in real time).
func stepping(t *testing.T, w *sim.World) {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		last := time.Now()
		for {
			select {
			case <-stop:
				return
			case now := <-tick.C:
				w.Step(now.Sub(last))
				last = now
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

func reportsByName(rs []DeviceReport) map[string]DeviceReport {
	out := map[string]DeviceReport{}
	for _, r := range rs {
		out[r.Device] = r
	}
	return out
}

// TestSelfTest runs the self-test on a simulated rover with a device of every kind: every
// sensor reports its values, every actuator is exercised with Move, and the robot is left
// safe.
func TestSelfTest(t *testing.T) {
	skipOffLinux(t)
	w := sim.DefaultWorld()
	stepping(t, w)
	reports, err := SelfTest(context.Background(), parse(t, allKinds), Options{World: w, Name: "rover", Logger: quiet},
		SelfTestOptions{Move: true, Pulse: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		t.Logf("%-8s %-11s %-10s %-4s %s", r.Device, r.Kind, r.Path, r.Status, r.Message)
		if r.Status != TestOK {
			t.Errorf("%s: %s %s", r.Device, r.Status, r.Message)
		}
	}
	by := reportsByName(reports)
	for dev, want := range map[string]string{
		"front":   "range.front=",
		"imu":     "accel_z=9.80",
		"battery": "percent=",
		"bumper":  "bump.bumper=false",
		"pose":    "x=0",
		"base":    "pulsed forward 50ms; backward 50ms; left 50ms; no encoders to check",
		"camera":  "moved to 30°, 150° and back to 90°",
		"flag":    "switched off", // safe: 1
		"fan":     "duty 0.40",
	} {
		if r := by[dev]; !strings.Contains(r.Message, want) {
			t.Errorf("%s: %q lacks %q", dev, r.Message, want)
		}
	}
	if by["imu"].Path != "devices[9]" {
		t.Errorf("imu path %q", by["imu"].Path)
	}
	rb := w.Robot("rover")
	if l, r := rb.Wheels(); l != 0 || r != 0 {
		t.Errorf("wheels %v %v after the self-test", l, r)
	}
}

// TestSelfTestGoesOnPastAFailure: a device that does not answer (the IMU of the mock Pi is
// not on its bus) is reported with its config path, and the others are still tested.
func TestSelfTestGoesOnPastAFailure(t *testing.T) {
	skipOffLinux(t)
	pi := newMockPi(raspiPWMOptions(parse(t, piOdometry), "pi")...)
	reports, err := SelfTest(context.Background(), parse(t, piOdometry), Options{Name: "rover", Logger: quiet,
		NewBoard: func(string, *AdaptorConfig) (gobot.Adaptor, error) { return pi, nil }}, SelfTestOptions{Wait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		t.Logf("%-5s %-10s %-10s %-4s %s", r.Device, r.Kind, r.Path, r.Status, r.Message)
	}
	by := reportsByName(reports)
	if r := by["imu"]; r.Status != TestFailed || !strings.Contains(r.Message, `devices[1] (imu "imu")`) || !strings.Contains(r.Message, "nothing answers at 0x68") {
		t.Errorf("imu: %+v", r)
	}
	if r := by["base"]; r.Status != TestOK || !strings.Contains(r.Message, "--move exercises it") {
		t.Errorf("base: %+v", r)
	}
	if r := by["odom"]; r.Status != TestOK || !strings.Contains(r.Message, "left encoder 0 counts (quadrature, 0 missed edges)") ||
		!strings.Contains(r.Message, fmt.Sprintf("quality=%v", 0.5)) {
		t.Errorf("odom: %+v", r)
	}
}
