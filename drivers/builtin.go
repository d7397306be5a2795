package drivers

import "github.com/botd-project/botd/bt"

// Device kinds still kept in this package; each moves to its family's package.
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

// AddBuiltin adds the kinds this package still holds to r.
func AddBuiltin(r *Registry) {
	leaves := func(f func(*limits) []bt.NodeType) func(*LeafKit) []bt.NodeType {
		return func(k *LeafKit) []bt.NodeType { return f(newLimits(k)) }
	}
	one := func(f func(*limits) bt.NodeType) func(*LeafKit) []bt.NodeType {
		return leaves(func(l *limits) []bt.NodeType { return []bt.NodeType{f(l)} })
	}
	output := func(kind string) func() Spec { return func() Spec { return &OutputConfig{kind: kind} } }
	for _, k := range []KindInfo{
		{Name: KindDiffDrive, Doc: "a differential drive: two motors on H-bridges", Actuator: true,
			New: func() Spec { return &DiffDriveConfig{} },
			Leaves: leaves(func(l *limits) []bt.NodeType {
				return []bt.NodeType{driveType(l), stopType(l), turnType(l), moveToType(l)}
			})},
		{Name: KindServo, Doc: "a hobby servo", Actuator: true, New: func() Spec { return &ServoConfig{} }, Leaves: one(servoType)},
		{Name: KindLED, Doc: "an LED (on, off, blinking)", Actuator: true, New: output(KindLED), Leaves: one(ledType)},
		{Name: KindRelay, Doc: "a relay", Actuator: true, New: output(KindRelay), Leaves: one(relayType)},
		{Name: KindBuzzer, Doc: "an active buzzer", Actuator: true, New: output(KindBuzzer), Leaves: one(buzzerType)},
		{Name: KindDigitalOut, Doc: "a plain digital output", Actuator: true, New: output(KindDigitalOut), Leaves: one(digitalWriteType)},
		{Name: KindPWMOut, Doc: "a plain PWM output", Actuator: true, New: func() Spec { return &PWMOutConfig{} }, Leaves: one(pwmType)},
		{Name: KindRange, Doc: "an HC-SR04 ultrasonic range finder", New: func() Spec { return &RangeConfig{} }},
		{Name: KindBattery, Doc: "a battery monitor (analog pin or ADS1115)", New: func() Spec { return &BatteryConfig{} }},
		{Name: KindIMU, Doc: "an MPU6050 IMU", New: func() Spec { return &IMUConfig{} }},
		{Name: KindBump, Doc: "a bump switch", New: func() Spec { return &BumpConfig{} }},
		{Name: KindPose, Doc: "the simulator's ground-truth pose", New: func() Spec { return &PoseConfig{} }},
	} {
		k.Build = builtinBuild[k.Name]
		r.Add(k)
	}
}

// Builtin returns a registry of the kinds this package still holds.
func Builtin() *Registry {
	r := NewRegistry()
	AddBuiltin(r)
	return r
}
