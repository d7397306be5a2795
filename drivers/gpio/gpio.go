// Package gpio is the device family of parts wired to a board's pins and i2c buses and driven
// by Gobot's gpio, aio and i2c drivers: a differential drive on two H-bridges, a hobby servo,
// on/off outputs (LED, relay, buzzer, plain pin) and a PWM output, each with its typed command
// and its leaves (Drive, Stop, Turn, MoveTo, Servo, Led, Relay, Buzzer, DigitalWrite, Pwm); and
// the sensors an HC-SR04 range finder, a battery monitor (analog pin or ADS1x15), an MPU6050
// IMU, a bump switch and the simulator's ground-truth pose. Add it to a drivers.Registry with
// Register.
package gpio

import (
	"math"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
)

// The family's kinds.
const (
	KindDiffDrive  = "diff_drive"
	KindServo      = "servo"
	KindLED        = "led"
	KindRelay      = "relay"
	KindBuzzer     = "buzzer"
	KindDigitalOut = "digital_out"
	KindPWMOut     = "pwm_out"
	KindRange      = "range"
	KindBattery    = "battery"
	KindIMU        = "imu"
	KindBump       = "bump"
	KindPose       = "pose"
)

// Register adds the family's kinds to r.
func Register(r *drivers.Registry) {
	leaves := func(f func(*limits) []bt.NodeType) func(*drivers.LeafKit) []bt.NodeType {
		return func(k *drivers.LeafKit) []bt.NodeType { return f(newLimits(k)) }
	}
	one := func(f func(*limits) bt.NodeType) func(*drivers.LeafKit) []bt.NodeType {
		return leaves(func(l *limits) []bt.NodeType { return []bt.NodeType{f(l)} })
	}
	output := func(kind string) func() drivers.Spec { return func() drivers.Spec { return &OutputConfig{kind: kind} } }
	for _, k := range []drivers.KindInfo{
		{Name: KindDiffDrive, Doc: "a differential drive: two motors on H-bridges", Actuator: true,
			New: func() drivers.Spec { return &DiffDriveConfig{} },
			Leaves: leaves(func(l *limits) []bt.NodeType {
				return []bt.NodeType{driveType(l), stopType(l), turnType(l), moveToType(l)}
			})},
		{Name: KindServo, Doc: "a hobby servo", Actuator: true, New: func() drivers.Spec { return &ServoConfig{} }, Leaves: one(servoType)},
		{Name: KindLED, Doc: "an LED (on, off, blinking)", Actuator: true, New: output(KindLED), Leaves: one(ledType)},
		{Name: KindRelay, Doc: "a relay", Actuator: true, New: output(KindRelay), Leaves: one(relayType)},
		{Name: KindBuzzer, Doc: "an active buzzer", Actuator: true, New: output(KindBuzzer), Leaves: one(buzzerType)},
		{Name: KindDigitalOut, Doc: "a plain digital output", Actuator: true, New: output(KindDigitalOut), Leaves: one(digitalWriteType)},
		{Name: KindPWMOut, Doc: "a plain PWM output", Actuator: true, New: func() drivers.Spec { return &PWMOutConfig{} }, Leaves: one(pwmType)},
	} {
		k.Build = builds[k.Name]
		r.Add(k)
	}
	for _, k := range []drivers.KindInfo{
		{Name: KindRange, Doc: "an HC-SR04 ultrasonic range finder", New: func() drivers.Spec { return &RangeConfig{} }},
		{Name: KindBattery, Doc: "a battery monitor (analog pin or ADS1115)", New: func() drivers.Spec { return &BatteryConfig{} }},
		{Name: KindIMU, Doc: "an MPU6050 IMU", New: func() drivers.Spec { return &IMUConfig{} }},
		{Name: KindBump, Doc: "a bump switch", New: func() drivers.Spec { return &BumpConfig{} }},
		{Name: KindPose, Doc: "the simulator's ground-truth pose", New: func() drivers.Spec { return &PoseConfig{} }},
	} {
		k.Build = sensorBuilds[k.Name]
		r.Add(k)
	}
}

// bound returns a pointer for Param.Min/Max, nil for an infinite limit.
func bound(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return bt.Float(v)
}

var (
	_ drivers.Track   = (*DiffDriveConfig)(nil)
	_ drivers.SimPart = (*DiffDriveConfig)(nil)
)

// WireSim implements drivers.SimPart.
func (s *DiffDriveConfig) WireSim(rc *sim.RobotConfig) {
	p := &rc.Pins
	rc.WheelBase, rc.MaxWheelSpeed = s.WheelBase, s.MaxWheelSpeed
	p.LeftSpeed, p.LeftDir, p.LeftForward, p.LeftBackward = s.Left.Speed, s.Left.Dir, s.Left.Forward, s.Left.Backward
	p.RightSpeed, p.RightDir, p.RightForward, p.RightBackward = s.Right.Speed, s.Right.Dir, s.Right.Forward, s.Right.Backward
}

// CheckSim implements drivers.SimPart.
func (s *DiffDriveConfig) CheckSim(v *drivers.Validator, path string, seen map[string]string) {
	if !drivers.SimOnce(v, seen, KindDiffDrive, path, ".kind", KindDiffDrive) {
		return
	}
	if s.Left.Reverse || s.Right.Reverse {
		v.Errorf(path+".left", "the simulated motors are not mirrored: reverse is for real wiring")
	}
}
