package drivers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers/sim"
)

func TestBuildDevices(t *testing.T) {
	rig := buildRig(t, parse(t, allKinds))
	r := rig.robot
	if n := len(r.Devices()); n != 12 {
		t.Fatalf("%d devices, want 12", n)
	}
	d, ok := r.Device("imu")
	// The identity check starts before gobot's MPU6050 driver writes anything.
	if !ok || d.Kind() != "imu" || len(d.Keys()) != 8 || d.Keys()[0] != "imu.roll" || len(d.Drivers()) != 2 ||
		d.Drivers()[0].Name() != "imu.whoami" || d.Drivers()[1].Name() != "imu" {
		t.Fatalf("imu device: %v %v %v", ok, d.Kind(), d.Keys())
	}
	base, _ := r.Device("base")
	if names := []string{base.Drivers()[0].Name(), base.Drivers()[1].Name()}; names[0] != "base.left" || names[1] != "base.right" {
		t.Errorf("driver names %v", names)
	}
	if base.Adaptor().Name() != "board" || rig.world.Robot("rover") != rig.sim {
		t.Errorf("board %q, sim robot %v", base.Adaptor().Name(), rig.sim)
	}
	if _, ok := r.Device("nope"); ok {
		t.Error("found a device that does not exist")
	}
	if err := r.Apply(); !errors.Is(err, ErrNotStarted) {
		t.Errorf("Apply before Start: %v", err)
	}
}

func TestBuildErrors(t *testing.T) {
	skipOffLinux(t)
	cfg := parse(t, allKinds)
	if _, err := Build(cfg, Options{Logger: quiet}); err == nil || !strings.Contains(err.Error(), "Options.World is needed") {
		t.Errorf("no world: %v", err)
	}
	w := sim.DefaultWorld()
	w.AddRobot("taken", sim.RobotConfig{})
	if _, err := Build(cfg, Options{World: w, Name: "taken", Logger: quiet}); err == nil || !strings.Contains(err.Error(), "already has a robot named") {
		t.Errorf("duplicate robot: %v", err)
	}
	bad := parse(t, allKinds)
	bad.Adaptors["board"].PWM = "sysfs" // only raspi boards take one
	if _, err := Build(bad, Options{World: w, Logger: quiet}); err == nil || !strings.Contains(err.Error(), "adaptors.board.pwm: only raspi boards take a pwm mode") {
		t.Errorf("invalid config: %v", err)
	}
	if _, err := Build(nil, Options{}); err == nil {
		t.Error("nil config built")
	}
}

// TestStartWiresTheSimRobot: the sim robot is wired as the config says and the sensors read it.
func TestStartWiresTheSimRobot(t *testing.T) {
	rig := newRig(t, parse(t, allKinds))
	rc := rig.sim.Config()
	if rc.WheelBase != 0.2 || rc.MaxWheelSpeed != 0.5 || rc.Pins.SonarTrigger != "18" || rc.Pins.Bump != "29" {
		t.Errorf("sim robot config %+v", rc)
	}
	now := rig.advance(time.Millisecond)
	bb := rig.snapshot(t, now)
	for key, want := range map[string]float64{"pose.x": 0, "pose.heading": 0, "imu.roll": 0, "imu.yaw_rate": 0} {
		if v := bb[key]; v != want {
			t.Errorf("%s = %v, want %v", key, v, want)
		}
	}
	if v := bb["range.front"]; v < 2.8 || v > 2.9 {
		t.Errorf("range.front = %v, want the crate at 2.85 m", v)
	}
	if v := bb["battery.voltage"]; v < 12.4 || v > 12.7 {
		t.Errorf("battery.voltage = %v", v)
	}
	if v := bb["battery.percent"]; v < 95 {
		t.Errorf("battery.percent = %v", v)
	}
	if v := bb["imu.accel_z"]; v < 9.7 || v > 9.9 {
		t.Errorf("imu.accel_z = %v", v)
	}
	if v := bb["bump.bumper"]; v != 0 {
		t.Errorf("bump = %v", v)
	}
	if f := rig.robot.Faults(); len(f) != 0 {
		t.Errorf("faults: %+v", f)
	}
}

func TestStartTwiceAndAfterClose(t *testing.T) {
	rig := newRig(t, parse(t, allKinds))
	if err := rig.robot.Start(context.Background()); err == nil {
		t.Error("second Start succeeded")
	}
	if err := rig.robot.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rig.robot.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := rig.robot.Start(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v", err)
	}
	if err := rig.robot.Apply(); !errors.Is(err, ErrClosed) {
		t.Errorf("Apply after Close: %v", err)
	}
}

func TestStartCancelled(t *testing.T) {
	rig := buildRig(t, parse(t, allKinds))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := rig.robot.Start(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Start: %v", err)
	}
	if err := rig.robot.Close(); err != nil {
		t.Errorf("Close after a cancelled Start: %v", err)
	}
}
