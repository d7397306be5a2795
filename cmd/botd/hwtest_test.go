package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/internal/mqtttest"
)

func skipHWTestOffLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the devices are built on Gobot's gpio and i2c drivers, which need Linux")
	}
}

// TestHWTestSimRover: `botd hwtest -move` on the built-in simulated rover opens every device,
// reads the sensors, exercises the actuators, and says so for each.
func TestHWTestSimRover(t *testing.T) {
	skipHWTestOffLinux(t)
	code, out, stderr := runCmd(t, "hwtest", "-move", "-pulse", "50ms")
	t.Logf("\n%s", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"hardware test of built-in default.yaml (hardware sim.yaml)", "DEVICE", "front         range       devices[1]  ok      range.front=",
		"imu", "accel_z=9.807", "pulsed forward 50ms (left +", "backward 50ms (left -", "left 50ms (left -", "odometry", "left encoder",
		"moved to 30°, 150° and back to 90°", "devices: ", " 0 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !strings.Contains(stderr, "-move: the motors will turn") {
		t.Errorf("no warning that the motors turn: %s", stderr)
	}
}

// TestHWTestMQTTPose: an mqtt_pose device is tested through the daemon config's broker: it
// passes with a tracker publishing, and fails (exit 1, with its config path) without one.
func TestHWTestMQTTPose(t *testing.T) {
	skipHWTestOffLinux(t)
	b := mqtttest.StartBroker(t, "")
	dir := t.TempDir()
	f := filepath.Join(dir, "botd.yaml")
	os.WriteFile(f, []byte(fmt.Sprintf(`robot: r1
broker: {url: %q}
hardware:
  adaptors: {board: {kind: sim}}
  devices:
    - {name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"},
       wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.4, max_angular: 2}
    - {name: tracker, kind: mqtt_pose, topic: lab/r1/pose}
`, b.URL())), 0o644)

	t.Run("no tracker", func(t *testing.T) {
		code, out, _ := runCmd(t, "hwtest", "-config", f, "-wait", "300ms", "-json")
		var reps []drivers.DeviceReport
		if err := json.Unmarshal([]byte(out), &reps); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if code != 1 || len(reps) != 2 || reps[1].Path != "devices[1]" || reps[1].Status != drivers.TestFailed || !strings.Contains(reps[1].Message, "no sample yet") {
			t.Errorf("exit %d: %+v", code, reps)
		}
	})
	t.Run("tracking", func(t *testing.T) {
		pub := mqtttest.NewPublisher(t, b.URL())
		done := make(chan struct{})
		sent := make(chan struct{})
		go func() { // a tracker at 20 Hz
			defer close(sent)
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case now := <-tick.C:
					msg := fmt.Sprintf(`{"x": 1.5, "y": -0.25, "heading": 0.5, "ts": %.6f, "quality": 0.95}`, float64(now.UnixNano())/1e9)
					_ = pub.Publish("lab/r1/pose", 0, false, []byte(msg))
				}
			}
		}()
		code, out, stderr := runCmd(t, "hwtest", "-config", f, "-wait", "10s")
		close(done)
		<-sent
		t.Logf("\n%s", out)
		if code != 0 || !strings.Contains(out, "x=1.5 y=-0.25 heading=0.5 quality=0.95 sigma=0.02; ") || !strings.Contains(out, "poses accepted, 0 rejected") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})
}

// TestHWTestOffAPi: the Pi rover's config on a machine that is no Pi: every device fails,
// each with its place in the config, and the exit status says so; the checks of the machine
// say why first.
func TestHWTestOffAPi(t *testing.T) {
	skipHWTestOffLinux(t)
	if chips, _ := filepath.Glob("/dev/gpiochip*"); len(chips) > 0 {
		t.Skipf("this machine has GPIO chips %v: not driving them from a test", chips)
	}
	// The machine's checks look at an empty one (this one may run other
	// botd processes); the devices are opened for real.
	old := testHost
	t.Cleanup(func() { testHost = old })
	testHost = fakeHost(t, "gpio", nil, nil)
	code, out, _ := runCmd(t, "hwtest", "-hardware", "../../configs/rover-raspi.yaml", "-wait", "200ms")
	t.Logf("\n%s", out)
	if code != 1 || !strings.Contains(out, "hardware test of ../../configs/rover-raspi.yaml") || !strings.Contains(out, " 0 ok") {
		t.Errorf("exit %d", code)
	}
	// what the devices' errors come from, said first
	for _, want := range []string{"problem: /dev/gpiochip0 does not exist", "problem: /dev/i2c-1 does not exist: I2C bus 1 is off"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, p := range []string{"devices[0]", "devices[3]"} {
		if !strings.Contains(out, p) {
			t.Errorf("output lacks %s", p)
		}
	}
}

func TestHWTestUsage(t *testing.T) {
	for _, args := range [][]string{{"hwtest", "extra"}, {"hwtest", "-config", "a", "-hardware", "b"}, {"hwtest", "-speed", "2"}} {
		if code, _, _ := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, stderr := runCmd(t, "hwtest", "-hardware", "nope.yaml"); code != 1 || !strings.Contains(stderr, "nope.yaml") {
		t.Errorf("a missing file: exit %d %s", code, stderr)
	}
}
