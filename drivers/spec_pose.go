package drivers

import (
	"fmt"
	"strings"
)

// OdometryConfig is a pose from a differential drive's wheels: wheel encoders on digital
// inputs with edge events (the pins' edge handlers count, the pose is integrated at rate_hz),
// or, without encoders, dead reckoning from the wheel speeds the drive commands. Either way the
// heading is fused with an IMU's gyro when there is one. It writes, under its key (default
// "pose", which MoveTo and Turn read): x, y (m), heading (rad, counter-clockwise from +x, 0 at
// start), quality (0.7 encoders and gyro, 0.5 encoders alone, 0.3 dead reckoning with the
// gyro, 0.15 without) and sigma (m, the position uncertainty, growing with the distance
// travelled at a rate set by the source).
type OdometryConfig struct {
	// Drive is the diff_drive whose wheels these are (default: the only one). Its written wheel
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
	// IMU is the imu device whose gyro the heading is fused with (default: the only one;
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
	StallMs      float64 `yaml:"stall_ms,omitempty"`
	StallDuty    float64 `yaml:"stall_duty,omitempty"`
	SampleConfig `yaml:",inline"`
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
func (*OdometryConfig) Kind() string { return KindOdometry }

func (c *OdometryConfig) Defaults(string) {
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

func (c *OdometryConfig) Validate(v *Validator, path string) {
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

func (c *OdometryConfig) Pins() []Pin {
	e := c.Encoders
	if e == nil {
		return nil
	}
	out := []Pin{{Field: "encoders.left.a", Pin: e.Left.A, Mode: PinEncoder}}
	if e.Left.B != "" {
		out = append(out, Pin{Field: "encoders.left.b", Pin: e.Left.B, Mode: PinEncoder})
	}
	out = append(out, Pin{Field: "encoders.right.a", Pin: e.Right.A, Mode: PinEncoder})
	if e.Right.B != "" {
		out = append(out, Pin{Field: "encoders.right.b", Pin: e.Right.B, Mode: PinEncoder})
	}
	return out
}

// PoseKeys are what every pose source writes under its key: the pose and how good it is.
var PoseKeys = [...]string{"x", "y", "heading", "quality", "sigma"}

func (c *OdometryConfig) Keys(string) []Key {
	out := make([]Key, len(PoseKeys))
	for i, k := range PoseKeys {
		out[i] = Key{Name: c.Key + "." + k}
	}
	return out
}

// checkLinks resolves and checks what devices say about each other: an odometry's drive and
// IMU. It fills in the defaults that depend on other devices (the only drive, the only IMU,
// the track width).
func (c *Config) checkLinks(v *Validator) {
	byName := map[string]*DeviceConfig{}
	for _, d := range c.Devices {
		if d != nil && d.Name != "" {
			if _, dup := byName[d.Name]; !dup {
				byName[d.Name] = d
			}
		}
	}
	for i, d := range c.Devices {
		if d == nil || d.Spec == nil || d.Spec.Kind() != d.Kind {
			continue
		}
		path := fmt.Sprintf("devices[%d]", i)
		if o, ok := d.Spec.(*OdometryConfig); ok {
			drive := c.link(v, path+".drive", &o.Drive, KindDiffDrive, byName, true)
			if dd, ok := specOf[*DiffDriveConfig](drive); ok && o.TrackWidth == 0 {
				o.TrackWidth = dd.WheelBase
			}
			if o.IMU != "none" {
				c.link(v, path+".imu", &o.IMU, KindIMU, byName, false)
			}
		}
	}
}

// link resolves a reference to another device of kind: name it, or leave it out when there is
// exactly one (required: there must be one).
func (c *Config) link(v *Validator, path string, name *string, kind string, byName map[string]*DeviceConfig, required bool) *DeviceConfig {
	if *name == "" {
		all := c.DevicesOfKind(kind)
		switch {
		case len(all) == 1:
			*name = all[0].Name
		case len(all) > 1:
			var names []string
			for _, d := range all {
				names = append(names, d.Name)
			}
			v.Errorf(path, "there are several %s devices (%s): name one", kind, strings.Join(names, ", "))
			return nil
		case required:
			v.Errorf(path, "needs a %s device, and the config has none", kind)
			return nil
		default:
			return nil
		}
	}
	d, ok := byName[*name]
	switch {
	case !ok:
		v.Errorf(path, "no device %q", *name)
		return nil
	case d.Kind != kind:
		v.Errorf(path, "%q is of kind %s, not %s", *name, d.Kind, kind)
		return nil
	}
	return d
}

// specOf returns a device's section as T.
func specOf[T Spec](d *DeviceConfig) (T, bool) {
	var zero T
	if d == nil || d.Spec == nil {
		return zero, false
	}
	s, ok := d.Spec.(T)
	return s, ok
}

// PoseKey implements PoseSource.
func (c *OdometryConfig) PoseKey() string { return c.Key }
