// Package odometry is the wheel odometry device family: a pose integrated from a
// differential drive's wheels (encoders on edge-event pins, or dead reckoning from the duties
// the drive wrote), its heading fused with a gyro. It finds the drive and the gyro by their
// abilities (drivers.Track and drivers.WheelDrive, drivers.GyroSource), never by kind. Add it
// to a drivers.Registry with Register.
package odometry

import (
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
)

// Kind is wheel odometry.
const Kind = "odometry"

// Register adds the odometry kind to r.
func Register(r *drivers.Registry) {
	r.Add(drivers.KindInfo{Name: Kind, Doc: "wheel odometry fused with the IMU's gyro",
		New: func() drivers.Spec { return &Config{} }, Build: build})
}

var (
	_ drivers.PoseSource   = (*Config)(nil)
	_ drivers.DeviceLinker = (*Config)(nil)
	_ drivers.SimPart      = (*Config)(nil)
)

// Config is a pose from a differential drive's wheels: wheel encoders on digital
// inputs with edge events (the pins' edge handlers count, the pose is integrated at rate_hz),
// or, without encoders, dead reckoning from the wheel speeds the drive commands. Either way the
// heading is fused with an IMU's gyro when there is one. It writes, under its key (default
// "pose", which MoveTo and Turn read): x, y (m), heading (rad, counter-clockwise from +x, 0 at
// start), quality (0.7 encoders and gyro, 0.5 encoders alone, 0.3 dead reckoning with the
// gyro, 0.15 without) and sigma (m, the position uncertainty, growing with the distance
// travelled at a rate set by the source).
type Config struct {
	// Drive is the drive (a diff_drive) whose wheels these are (default: the only one). Its written wheel
	// duties give the dead-reckoning speeds, the direction of single-channel encoders and the
	// stall check; its wheel_base is the default track_width.
	Drive string `yaml:"drive,omitempty"`
	// Encoders are the wheel encoders; without them the pose is dead reckoning.
	Encoders *EncodersConfig `yaml:"encoders,omitempty"`
	// WheelRadius is the driven wheels' radius, m (needed with encoders).
	WheelRadius float64 `yaml:"wheel_radius,omitempty"`
	// TrackWidth is the distance between the wheels' contact lines, m (default: the drive's
	// wheel_base).
	TrackWidth float64 `yaml:"track_width,omitempty"`
	// IMU is the device (an imu) whose gyro the heading is fused with (default: the only one;
	// "none": the wheels alone).
	IMU string `yaml:"imu,omitempty"`
	// GyroWeight is the complementary filter's share of each heading change taken from the
	// gyro, 0..1 (default 0.98: the gyro, which wheel slip does not fool, with a little of the
	// wheels against its drift).
	GyroWeight *float64 `yaml:"gyro_weight,omitempty"`
	// MinDuty (dead reckoning): the duty a motor needs before its wheel turns, 0..0.5 (default
	// 0); above it the speed is taken as linear up to max_wheel_speed at full duty.
	MinDuty float64 `yaml:"min_duty,omitempty"`
	// StallMs and StallDuty: an encoder that counts nothing for stall_ms while its motor is
	// driven at stall_duty or more is a fault (default 500 ms at 0.3).
	StallMs              float64 `yaml:"stall_ms,omitempty"`
	StallDuty            float64 `yaml:"stall_duty,omitempty"`
	drivers.SampleConfig `yaml:",inline"`

	// yawKey is the gyro's heading key, found by LinkDevices ("" without a gyro).
	yawKey string
}

// EncodersConfig wires the two wheel encoders.
type EncodersConfig struct {
	Left  EncoderPins `yaml:"left"`
	Right EncoderPins `yaml:"right"`
	// TicksPerRev is how many cycles channel A makes per wheel revolution: the encoder's
	// pulses per revolution times the gear ratio between it and the wheel (a 7-PPR motor
	// encoder on a 1:30 gearbox is 210). Quadrature decoding counts four edges per cycle,
	// a single channel two.
	TicksPerRev float64 `yaml:"ticks_per_rev"`
	// DebounceUs filters contact bounce of mechanical or slotted encoders, µs (default 0: off;
	// keep it below a quarter of the shortest cycle at top speed).
	DebounceUs float64 `yaml:"debounce_us,omitempty"`
	// PullUp turns on the pins' pull-up (open-collector or Hall sensors without their own).
	PullUp bool `yaml:"pull_up,omitempty"`
}

// EncoderPins are one wheel's encoder channels.
type EncoderPins struct {
	A string `yaml:"a"`
	// B is the second (quadrature) channel; without it the direction is the motor's.
	B string `yaml:"b,omitempty"`
	// Reverse: the encoder counts down when its wheel turns forward (mounted mirrored; with
	// both channels only).
	Reverse bool `yaml:"reverse,omitempty"`
}

// Kind implements Spec.
func (*Config) Kind() string { return Kind }

func (c *Config) Defaults(string) {
	if c.GyroWeight == nil {
		w := 0.98
		c.GyroWeight = &w
	}
	if c.StallMs == 0 {
		c.StallMs = 500
	}
	if c.StallDuty == 0 {
		c.StallDuty = 0.3
	}
	c.SampleConfig.SetDefaults("pose", 50)
}

func (c *Config) Validate(v *drivers.Validator, path string) {
	if e := c.Encoders; e != nil {
		v.Positive(path+".encoders.ticks_per_rev", e.TicksPerRev)
		v.Positive(path+".wheel_radius", c.WheelRadius)
		v.Within(path+".encoders.debounce_us", e.DebounceUs, 0, 100_000)
		if e.Left.A == "" {
			v.Errorf(path+".encoders.left.a", "missing pin")
		}
		if e.Right.A == "" {
			v.Errorf(path+".encoders.right.a", "missing pin")
		}
		for side, p := range map[string]EncoderPins{"left": e.Left, "right": e.Right} {
			if p.Reverse && p.B == "" {
				v.Errorf(path+".encoders."+side+".reverse", "a single channel has no direction of its own to reverse (the motor's is used)")
			}
		}
	} else {
		if c.WheelRadius != 0 {
			v.Errorf(path+".wheel_radius", "only used with encoders (dead reckoning takes the drive's max_wheel_speed)")
		}
	}
	if c.TrackWidth != 0 {
		v.Positive(path+".track_width", c.TrackWidth)
	}
	if c.GyroWeight != nil {
		v.Within(path+".gyro_weight", *c.GyroWeight, 0, 1)
	}
	v.Within(path+".min_duty", c.MinDuty, 0, 0.5)
	v.Positive(path+".stall_ms", c.StallMs)
	if v.Positive(path+".stall_duty", c.StallDuty) && c.StallDuty > 1 {
		v.Errorf(path+".stall_duty", "must be at most 1 (got %v)", c.StallDuty)
	}
	c.SampleConfig.Check(v, path)
}

func (c *Config) Pins() []drivers.Pin {
	e := c.Encoders
	if e == nil {
		return nil
	}
	out := []drivers.Pin{{Field: "encoders.left.a", Pin: e.Left.A, Mode: drivers.PinEncoder}}
	if e.Left.B != "" {
		out = append(out, drivers.Pin{Field: "encoders.left.b", Pin: e.Left.B, Mode: drivers.PinEncoder})
	}
	out = append(out, drivers.Pin{Field: "encoders.right.a", Pin: e.Right.A, Mode: drivers.PinEncoder})
	if e.Right.B != "" {
		out = append(out, drivers.Pin{Field: "encoders.right.b", Pin: e.Right.B, Mode: drivers.PinEncoder})
	}
	return out
}

func (c *Config) Keys(string) []drivers.Key {
	out := make([]drivers.Key, len(drivers.PoseKeys))
	for i, k := range drivers.PoseKeys {
		out[i] = drivers.Key{Name: c.Key + "." + k}
	}
	return out
}

// PoseKey implements drivers.PoseSource.
func (c *Config) PoseKey() string { return c.Key }

// LinkDevices implements drivers.DeviceLinker: the drive (default: the only one, whose track
// is the default track_width) and the gyro (default: the only one; "none": the wheels alone).
func (c *Config) LinkDevices(l *drivers.Links) {
	if d, ok := drivers.LinkTo[drivers.Track](l, ".drive", &c.Drive, "drive", true); ok && c.TrackWidth == 0 {
		c.TrackWidth = d.Track()
	}
	c.yawKey = ""
	if c.IMU != "none" {
		if g, ok := drivers.LinkTo[drivers.GyroSource](l, ".imu", &c.IMU, "imu", false); ok {
			c.yawKey = g.YawKey()
		}
	}
}

// WireSim implements drivers.SimPart: the encoders, when the odometry has them.
func (s *Config) WireSim(rc *sim.RobotConfig) {
	if e := s.Encoders; e != nil {
		p := &rc.Pins
		p.LeftEncoderA, p.LeftEncoderB, p.RightEncoderA, p.RightEncoderB = e.Left.A, e.Left.B, e.Right.A, e.Right.B
		rc.Encoders = sim.EncoderConfig{TicksPerRev: e.TicksPerRev, WheelRadius: s.WheelRadius}
	}
}

// CheckSim implements drivers.SimPart.
func (s *Config) CheckSim(v *drivers.Validator, path string, seen map[string]string) {
	if s.Encoders == nil {
		return
	}
	drivers.SimOnce(v, seen, "encoders", path, ".encoders", "pair of wheel encoders")
	if s.Encoders.Left.Reverse || s.Encoders.Right.Reverse {
		v.Errorf(path+".encoders", "the simulated encoders are not mirrored: reverse is for real wiring")
	}
}
