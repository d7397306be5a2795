package sim

import (
	"fmt"
	"math"
)

// RobotConfig describes one simulated robot: a round differential-drive rover. Zero fields mean
// "use the default" (see DefaultRobotConfig), so RobotConfig{} is the default robot.
type RobotConfig struct {
	WheelBase     float64       `json:"wheel_base,omitempty" yaml:"wheel_base,omitempty"`           // m between the wheels; default 0.20
	MaxWheelSpeed float64       `json:"max_wheel_speed,omitempty" yaml:"max_wheel_speed,omitempty"` // m/s of a wheel at PWM 255; default 0.5
	Radius        float64       `json:"radius,omitempty" yaml:"radius,omitempty"`                   // m, round body used for collisions; default 0.15
	Pins          PinMap        `json:"pins,omitzero" yaml:"pins,omitempty"`
	Sonar         SonarConfig   `json:"sonar,omitzero" yaml:"sonar,omitempty"`
	Battery       BatteryConfig `json:"battery,omitzero" yaml:"battery,omitempty"`
	IMU           IMUConfig     `json:"imu,omitzero" yaml:"imu,omitempty"`
}

// PinMap says which board pin drives which robot part. Pin ids are strings as Gobot uses them
// (Raspberry Pi header numbers by default). Pins not named here are free: writes to them are
// recorded (LEDs, relays, buzzers; see Adaptor.PinValue and Adaptor.ServoAngle).
//
// A motor has a speed pin (PWM 0-255 from MotorDriver.SetSpeed, or digital on/off in the
// driver's digital mode) and either one direction pin (high = forward; gpio.WithMotorDirectionPin)
// or a forward/backward pair (gpio.WithMotorForwardPin/WithMotorBackwardPin; both low or both
// high = stopped). An unwritten direction pin counts as forward, matching MotorDriver's initial
// Direction() of "forward".
type PinMap struct {
	LeftSpeed     string `json:"left_speed,omitempty" yaml:"left_speed,omitempty"`         // default "11"
	LeftDir       string `json:"left_dir,omitempty" yaml:"left_dir,omitempty"`             // default "13" unless a forward/backward pair is set
	LeftForward   string `json:"left_forward,omitempty" yaml:"left_forward,omitempty"`     // default none
	LeftBackward  string `json:"left_backward,omitempty" yaml:"left_backward,omitempty"`   // default none
	RightSpeed    string `json:"right_speed,omitempty" yaml:"right_speed,omitempty"`       // default "15"
	RightDir      string `json:"right_dir,omitempty" yaml:"right_dir,omitempty"`           // default "16" unless a forward/backward pair is set
	RightForward  string `json:"right_forward,omitempty" yaml:"right_forward,omitempty"`   // default none
	RightBackward string `json:"right_backward,omitempty" yaml:"right_backward,omitempty"` // default none
	SonarTrigger  string `json:"sonar_trigger,omitempty" yaml:"sonar_trigger,omitempty"`   // default "18"
	SonarEcho     string `json:"sonar_echo,omitempty" yaml:"sonar_echo,omitempty"`         // default "22"
	SonarPan      string `json:"sonar_pan,omitempty" yaml:"sonar_pan,omitempty"`           // servo turning the sonar; default none (fixed)
	Battery       string `json:"battery,omitempty" yaml:"battery,omitempty"`               // analog pin; default "A0"
	Bump          string `json:"bump,omitempty" yaml:"bump,omitempty"`                     // digital input, 1 while touching; default "29"
}

// SonarConfig places the HC-SR04. It sits on the rim of the body at MountAngle and looks
// outward, so it reports the distance from the robot's edge, not its centre.
type SonarConfig struct {
	MountAngle float64 `json:"mount_angle,omitempty" yaml:"mount_angle,omitempty"` // rad from the heading, counter-clockwise; default 0 (forward)
	MinRange   float64 `json:"min_range,omitempty" yaml:"min_range,omitempty"`     // m, nearer reads as this; default 0.02
	MaxRange   float64 `json:"max_range,omitempty" yaml:"max_range,omitempty"`     // m, beyond it the echo pulse is 38 ms (≈6.5 m); default 4.0
	BeamWidth  float64 `json:"beam_width,omitempty" yaml:"beam_width,omitempty"`   // rad, full cone (5 rays, nearest wins); default 15°
}

// BatteryConfig models a LiPo pack read through a 12-bit ADC. Counts = volts / ADCFullScale *
// 4095, so aio.AnalogSensorLinearScaler(0, 4095, 0, ADCFullScale) gives volts (with the default,
// AnalogSensorLinearScaler(0, 4095, 0, 16.8)).
type BatteryConfig struct {
	CapacityAh         float64 `json:"capacity_ah,omitempty" yaml:"capacity_ah,omitempty"`                 // default 2.2
	Cells              int     `json:"cells,omitempty" yaml:"cells,omitempty"`                             // series cells, 4.2 V full each; default 3
	InternalResistance float64 `json:"internal_resistance,omitempty" yaml:"internal_resistance,omitempty"` // ohm, voltage sag under load; default 0.06
	IdleCurrent        float64 `json:"idle_current,omitempty" yaml:"idle_current,omitempty"`               // A drawn with motors off; default 0.25
	MotorCurrent       float64 `json:"motor_current,omitempty" yaml:"motor_current,omitempty"`             // A per motor at full duty; default 1.2
	ADCFullScale       float64 `json:"adc_full_scale,omitempty" yaml:"adc_full_scale,omitempty"`           // V at 4095 counts; default 16.8
	InitialCharge      float64 `json:"initial_charge,omitempty" yaml:"initial_charge,omitempty"`           // 0..1; default 1 (use Robot.SetBatteryCharge for empty)
}

// IMUConfig places the MPU6050 (X forward, Y left, Z up).
type IMUConfig struct {
	Bus     int `json:"bus,omitempty" yaml:"bus,omitempty"`         // i2c bus, also the adaptor's DefaultI2cBus; default 1 (the Pi header bus)
	Address int `json:"address,omitempty" yaml:"address,omitempty"` // default 0x68 (0x69 with AD0 high)
}

// ADCMax is the battery ADC's full-scale count (12 bits).
const ADCMax = 4095

// DefaultRobotConfig returns the default robot with every field filled in.
func DefaultRobotConfig() RobotConfig { return RobotConfig{}.withDefaults() }

func (c RobotConfig) withDefaults() RobotConfig {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	defPin := func(p *string, d string) {
		if *p == "" {
			*p = d
		}
	}
	def(&c.WheelBase, 0.20)
	def(&c.MaxWheelSpeed, 0.5)
	def(&c.Radius, 0.15)
	p := &c.Pins
	defPin(&p.LeftSpeed, "11")
	if p.LeftForward == "" && p.LeftBackward == "" {
		defPin(&p.LeftDir, "13")
	}
	defPin(&p.RightSpeed, "15")
	if p.RightForward == "" && p.RightBackward == "" {
		defPin(&p.RightDir, "16")
	}
	defPin(&p.SonarTrigger, "18")
	defPin(&p.SonarEcho, "22")
	defPin(&p.Battery, "A0")
	defPin(&p.Bump, "29")
	def(&c.Sonar.MinRange, 0.02)
	def(&c.Sonar.MaxRange, 4.0)
	def(&c.Sonar.BeamWidth, 15*math.Pi/180)
	b := &c.Battery
	def(&b.CapacityAh, 2.2)
	if b.Cells == 0 {
		b.Cells = 3
	}
	def(&b.InternalResistance, 0.06)
	def(&b.IdleCurrent, 0.25)
	def(&b.MotorCurrent, 1.2)
	def(&b.ADCFullScale, 16.8)
	def(&b.InitialCharge, 1)
	if c.IMU.Bus == 0 {
		c.IMU.Bus = 1
	}
	if c.IMU.Address == 0 {
		c.IMU.Address = 0x68
	}
	return c
}

// Validate reports why the config (after defaults) cannot be simulated, or nil.
func (c RobotConfig) Validate() error {
	c = c.withDefaults()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"wheel_base", c.WheelBase}, {"max_wheel_speed", c.MaxWheelSpeed}, {"radius", c.Radius},
		{"sonar.min_range", c.Sonar.MinRange}, {"sonar.max_range", c.Sonar.MaxRange},
		{"sonar.beam_width", c.Sonar.BeamWidth}, {"battery.capacity_ah", c.Battery.CapacityAh},
		{"battery.internal_resistance", c.Battery.InternalResistance},
		{"battery.idle_current", c.Battery.IdleCurrent}, {"battery.motor_current", c.Battery.MotorCurrent},
		{"battery.adc_full_scale", c.Battery.ADCFullScale}, {"battery.initial_charge", c.Battery.InitialCharge},
	} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return bad("%s = %v must be positive and finite", f.name, f.v)
		}
	}
	if math.IsNaN(c.Sonar.MountAngle) || math.IsInf(c.Sonar.MountAngle, 0) {
		return bad("sonar.mount_angle = %v must be finite", c.Sonar.MountAngle)
	}
	if c.Sonar.MinRange >= c.Sonar.MaxRange {
		return bad("sonar.min_range %v must be below max_range %v", c.Sonar.MinRange, c.Sonar.MaxRange)
	}
	if c.Sonar.BeamWidth >= math.Pi {
		return bad("sonar.beam_width %v must be below pi", c.Sonar.BeamWidth)
	}
	if c.Battery.InitialCharge > 1 {
		return bad("battery.initial_charge %v must be in (0, 1]", c.Battery.InitialCharge)
	}
	if c.Battery.Cells < 1 || c.Battery.Cells > 12 {
		return bad("battery.cells %d must be 1..12", c.Battery.Cells)
	}
	if c.IMU.Bus < 0 || c.IMU.Address < 0x03 || c.IMU.Address > 0x77 {
		return bad("imu bus %d address %#x: bus must be >= 0 and address a 7-bit device address", c.IMU.Bus, c.IMU.Address)
	}
	p := c.Pins
	if (p.LeftForward == "") != (p.LeftBackward == "") || (p.RightForward == "") != (p.RightBackward == "") {
		return bad("pins: a forward pin needs its backward pin and vice versa")
	}
	seen := map[string]string{}
	for _, r := range p.roles() {
		if prev, dup := seen[r.pin]; dup {
			return bad("pin %q is used for both %s and %s", r.pin, prev, r.role)
		}
		seen[r.pin] = r.role.String()
	}
	return nil
}

// pinRole is what a mapped pin does on the robot.
type pinRole int

const (
	roleNone pinRole = iota
	roleLeftSpeed
	roleLeftDir
	roleLeftForward
	roleLeftBackward
	roleRightSpeed
	roleRightDir
	roleRightForward
	roleRightBackward
	roleSonarTrigger
	roleSonarEcho
	roleSonarPan
	roleBattery
	roleBump
)

var roleNames = [...]string{"free pin", "left speed", "left direction", "left forward", "left backward",
	"right speed", "right direction", "right forward", "right backward", "sonar trigger", "sonar echo",
	"sonar pan servo", "battery sense", "bump switch"}

func (r pinRole) String() string { return roleNames[r] }

// side is the motor a role belongs to: 0 left, 1 right, -1 none.
func (r pinRole) side() int {
	switch r {
	case roleLeftSpeed, roleLeftDir, roleLeftForward, roleLeftBackward:
		return 0
	case roleRightSpeed, roleRightDir, roleRightForward, roleRightBackward:
		return 1
	}
	return -1
}

type pinAssignment struct {
	pin  string
	role pinRole
}

func (p PinMap) roles() []pinAssignment {
	all := []pinAssignment{
		{p.LeftSpeed, roleLeftSpeed}, {p.LeftDir, roleLeftDir}, {p.LeftForward, roleLeftForward},
		{p.LeftBackward, roleLeftBackward}, {p.RightSpeed, roleRightSpeed}, {p.RightDir, roleRightDir},
		{p.RightForward, roleRightForward}, {p.RightBackward, roleRightBackward},
		{p.SonarTrigger, roleSonarTrigger}, {p.SonarEcho, roleSonarEcho}, {p.SonarPan, roleSonarPan},
		{p.Battery, roleBattery}, {p.Bump, roleBump},
	}
	out := all[:0]
	for _, a := range all {
		if a.pin != "" {
			out = append(out, a)
		}
	}
	return out
}
