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
	Encoders      EncoderConfig `json:"encoders,omitzero" yaml:"encoders,omitempty"`
	GPS           GPSConfig     `json:"gps,omitzero" yaml:"gps,omitempty"`
	Noise         NoiseConfig   `json:"noise,omitzero" yaml:"noise,omitempty"`
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
	// Wheel encoders (default none): channel A, and B for quadrature. Their pins read the
	// channel's level and fire edge events as the wheels turn (Encoders says how many).
	LeftEncoderA  string `json:"left_encoder_a,omitempty" yaml:"left_encoder_a,omitempty"`
	LeftEncoderB  string `json:"left_encoder_b,omitempty" yaml:"left_encoder_b,omitempty"`
	RightEncoderA string `json:"right_encoder_a,omitempty" yaml:"right_encoder_a,omitempty"`
	RightEncoderB string `json:"right_encoder_b,omitempty" yaml:"right_encoder_b,omitempty"`
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

// EncoderConfig describes the wheel encoders (when the PinMap wires them): channel A makes
// TicksPerRev cycles per wheel revolution, channel B is a quarter cycle behind going forward.
type EncoderConfig struct {
	TicksPerRev float64 `json:"ticks_per_rev,omitempty" yaml:"ticks_per_rev,omitempty"`
	WheelRadius float64 `json:"wheel_radius,omitempty" yaml:"wheel_radius,omitempty"` // m
}

// GPSConfig places a GPS receiver: with a Port, the robot's true position (plus NoiseConfig.GPS)
// is sent as NMEA GGA and RMC sentences at RateHz on that serial port (Adaptor.OpenSerial),
// for a yard whose (0, 0) is at Lat, Lon (x east, y north).
type GPSConfig struct {
	Port   string  `json:"port,omitempty" yaml:"port,omitempty"`
	Lat    float64 `json:"lat,omitempty" yaml:"lat,omitempty"`
	Lon    float64 `json:"lon,omitempty" yaml:"lon,omitempty"`
	RateHz float64 `json:"rate_hz,omitempty" yaml:"rate_hz,omitempty"` // default 5
	Fix    int     `json:"fix,omitempty" yaml:"fix,omitempty"`         // GGA fix quality sent; default 1 (GPS; 4 RTK fixed)
}

// NoiseConfig is what makes a simulated robot imperfect, all zero by default. The random parts
// come from a generator seeded with Seed and the robot's name, so a run is repeatable.
type NoiseConfig struct {
	// Encoder is the relative error of each step's encoder count (standard deviation).
	Encoder float64 `json:"encoder,omitempty" yaml:"encoder,omitempty"`
	// SlipLeft and SlipRight are the shares of each wheel's turn that do not move the robot
	// (0..0.5): the encoders count them, the body and the gyro do not.
	SlipLeft  float64 `json:"slip_left,omitempty" yaml:"slip_left,omitempty"`
	SlipRight float64 `json:"slip_right,omitempty" yaml:"slip_right,omitempty"`
	// GyroBias is added to the IMU's yaw rate, rad/s.
	GyroBias float64 `json:"gyro_bias,omitempty" yaml:"gyro_bias,omitempty"`
	// GPS is the standard deviation of the GPS position, m.
	GPS  float64 `json:"gps,omitempty" yaml:"gps,omitempty"`
	Seed uint64  `json:"seed,omitempty" yaml:"seed,omitempty"`
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
	if c.GPS.Port != "" {
		def(&c.GPS.RateHz, 5)
		if c.GPS.Fix == 0 {
			c.GPS.Fix = 1
		}
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
	if c.hasEncoders() {
		if p.LeftEncoderA == "" || p.RightEncoderA == "" {
			return bad("pins: encoders need channel A on both wheels")
		}
		if !(c.Encoders.TicksPerRev > 0) || !(c.Encoders.WheelRadius > 0) || math.IsInf(c.Encoders.TicksPerRev+c.Encoders.WheelRadius, 0) {
			return bad("encoders: ticks_per_rev %v and wheel_radius %v must be positive", c.Encoders.TicksPerRev, c.Encoders.WheelRadius)
		}
	}
	if c.GPS.Port != "" && (!(c.GPS.Lat >= -89 && c.GPS.Lat <= 89) || !(c.GPS.Lon >= -180 && c.GPS.Lon <= 180) || !(c.GPS.RateHz > 0 && c.GPS.RateHz <= 50) || c.GPS.Fix < 1 || c.GPS.Fix > 5) {
		return bad("gps: lat %v, lon %v, rate_hz %v, fix %d: a latitude within ±89°, a longitude within ±180°, 0 < rate_hz <= 50, fix 1..5", c.GPS.Lat, c.GPS.Lon, c.GPS.RateHz, c.GPS.Fix)
	}
	n := c.Noise
	for _, f := range []struct {
		name   string
		v, max float64
	}{{"encoder", n.Encoder, 0.5}, {"slip_left", n.SlipLeft, 0.5}, {"slip_right", n.SlipRight, 0.5}, {"gps", n.GPS, 100}} {
		if !(f.v >= 0 && f.v <= f.max) {
			return bad("noise.%s = %v must be within [0, %v]", f.name, f.v, f.max)
		}
	}
	if !(math.Abs(n.GyroBias) <= 1) {
		return bad("noise.gyro_bias = %v must be within ±1 rad/s", n.GyroBias)
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
	roleLeftEncA
	roleLeftEncB
	roleRightEncA
	roleRightEncB
)

var roleNames = [...]string{"free pin", "left speed", "left direction", "left forward", "left backward",
	"right speed", "right direction", "right forward", "right backward", "sonar trigger", "sonar echo",
	"sonar pan servo", "battery sense", "bump switch", "left encoder A", "left encoder B",
	"right encoder A", "right encoder B"}

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
		{p.LeftEncoderA, roleLeftEncA}, {p.LeftEncoderB, roleLeftEncB},
		{p.RightEncoderA, roleRightEncA}, {p.RightEncoderB, roleRightEncB},
	}
	out := all[:0]
	for _, a := range all {
		if a.pin != "" {
			out = append(out, a)
		}
	}
	return out
}

func (c RobotConfig) hasEncoders() bool {
	p := c.Pins
	return p.LeftEncoderA != "" || p.LeftEncoderB != "" || p.RightEncoderA != "" || p.RightEncoderB != ""
}

// encoder is the wheel (0 left, 1 right) and channel (false A, true B) of an encoder role.
func (r pinRole) encoder() (side int, chB bool, ok bool) {
	switch r {
	case roleLeftEncA:
		return 0, false, true
	case roleLeftEncB:
		return 0, true, true
	case roleRightEncA:
		return 1, false, true
	case roleRightEncB:
		return 1, true, true
	}
	return 0, false, false
}
