package gpio

import (
	"math"

	"github.com/botd-project/botd/drivers"
)

// MotorPins wires one motor of a differential drive: a speed pin (PWM) and either a direction
// pin (high = forward) or a forward/backward pair.
type MotorPins struct {
	Speed    string `yaml:"speed"`
	Dir      string `yaml:"dir,omitempty"`
	Forward  string `yaml:"forward,omitempty"`
	Backward string `yaml:"backward,omitempty"`
	// Reverse flips the motor's direction (a motor mounted mirrored).
	Reverse bool `yaml:"reverse,omitempty"`
}

// DriveCommand is what a differential drive is asked to do: Linear m/s forward (negative:
// backward), Angular rad/s counter-clockwise.
type DriveCommand struct{ Linear, Angular float64 }

// AngleCommand is what a servo is asked: an angle, degrees.
type AngleCommand struct{ Degrees float64 }

// LevelCommand is what an on/off output (relay, buzzer, digital_out) is asked: its logical
// level, 0 or 1 (any other number is 1).
type LevelCommand struct{ Level float64 }

// LEDCommand is what an LED is asked: Mode LEDOff, LEDOn or LEDBlink; blinking at Hz, on for
// the first half of each period from T0 (ns).
type LEDCommand struct {
	Mode uint8
	Hz   float64
	T0   int64
}

// LED modes.
const (
	LEDOff uint8 = iota
	LEDOn
	LEDBlink
)

// DutyCommand is what a PWM output is asked: a duty cycle, 0..1.
type DutyCommand struct{ Duty float64 }

// DiffDriveConfig is a two-wheeled differential drive on two gpio.MotorDrivers. Its limits are
// the safety envelope of Drive, Turn and MoveTo: a mission asking more is refused when it is
// validated, and a value read at run time is clamped.
type DiffDriveConfig struct {
	Left  MotorPins `yaml:"left"`
	Right MotorPins `yaml:"right"`
	// WheelBase is the distance between the wheels, m.
	WheelBase float64 `yaml:"wheel_base"`
	// MaxLinear is the fastest forward or backward speed allowed, m/s.
	MaxLinear float64 `yaml:"max_linear"`
	// MaxAngular is the fastest turn rate allowed, rad/s.
	MaxAngular float64 `yaml:"max_angular"`
	// MaxWheelSpeed is a wheel's speed at PWM 255, m/s.
	MaxWheelSpeed float64 `yaml:"max_wheel_speed"`
}

// Kind implements drivers.Spec.
func (*DiffDriveConfig) Kind() string { return KindDiffDrive }

func (*DiffDriveConfig) Defaults(string) {}

func (c *DiffDriveConfig) Validate(v *drivers.Validator, path string) {
	for _, m := range []struct {
		side string
		p    MotorPins
	}{{"left", c.Left}, {"right", c.Right}} {
		paired := m.p.Forward != "" || m.p.Backward != ""
		switch {
		case m.p.Dir != "" && paired:
			v.Errorf(path+"."+m.side, "give either dir or forward and backward, not both")
		case paired && (m.p.Forward == "" || m.p.Backward == ""):
			v.Errorf(path+"."+m.side, "a forward pin needs its backward pin and vice versa")
		case m.p.Dir == "" && !paired:
			v.Errorf(path+"."+m.side, "a motor needs a direction pin (dir) or forward and backward pins, or it cannot reverse")
		}
	}
	okBase := v.Positive(path+".wheel_base", c.WheelBase)
	okWheel := v.Positive(path+".max_wheel_speed", c.MaxWheelSpeed)
	if v.Positive(path+".max_linear", c.MaxLinear) && okWheel && c.MaxLinear > c.MaxWheelSpeed {
		v.Errorf(path+".max_linear", "%v m/s is faster than the wheels go (max_wheel_speed %v)", c.MaxLinear, c.MaxWheelSpeed)
	}
	if v.Positive(path+".max_angular", c.MaxAngular) && okBase && okWheel {
		if top := 2 * c.MaxWheelSpeed / c.WheelBase; c.MaxAngular > top {
			v.Errorf(path+".max_angular", "%v rad/s is faster than the wheels can turn the base (%.3g)", c.MaxAngular, top)
		}
	}
}

func (c *DiffDriveConfig) Pins() []drivers.Pin {
	var out []drivers.Pin
	for _, m := range []struct {
		side string
		p    MotorPins
	}{{"left", c.Left}, {"right", c.Right}} {
		out = append(out, drivers.Pin{Field: m.side + ".speed", Pin: m.p.Speed, Mode: drivers.PinPWM})
		for _, d := range []struct{ field, pin string }{{"dir", m.p.Dir}, {"forward", m.p.Forward}, {"backward", m.p.Backward}} {
			if d.pin != "" {
				out = append(out, drivers.Pin{Field: m.side + "." + d.field, Pin: d.pin, Mode: drivers.PinOut})
			}
		}
	}
	return out
}

func (*DiffDriveConfig) Keys(string) []drivers.Key { return nil }

// Track implements drivers.Track: the wheel base.
func (c *DiffDriveConfig) Track() float64 { return c.WheelBase }

// ServoConfig is a hobby servo on a gpio.ServoDriver.
type ServoConfig struct {
	Pin string `yaml:"pin"`
	// MinAngle and MaxAngle bound the angles a mission may ask for, degrees (default 0 and
	// 180).
	MinAngle float64 `yaml:"min_angle,omitempty"`
	MaxAngle float64 `yaml:"max_angle,omitempty"`
	// SafeAngle is where the servo goes at start, on halt and on e-stop (default: midway).
	SafeAngle *float64 `yaml:"safe_angle,omitempty"`
}

// Kind implements drivers.Spec.
func (*ServoConfig) Kind() string { return KindServo }

func (c *ServoConfig) Defaults(string) {
	if c.MaxAngle == 0 {
		c.MaxAngle = 180
	}
	if c.SafeAngle == nil {
		mid := math.Round((c.MinAngle + c.MaxAngle) / 2)
		c.SafeAngle = &mid
	}
}

func (c *ServoConfig) Validate(v *drivers.Validator, path string) {
	okMin := v.Within(path+".min_angle", c.MinAngle, 0, 180)
	okMax := v.Within(path+".max_angle", c.MaxAngle, 0, 180)
	if okMin && okMax && c.MinAngle >= c.MaxAngle {
		v.Errorf(path+".max_angle", "must be above min_angle (%v)", c.MinAngle)
		return
	}
	if okMin && okMax && c.SafeAngle != nil {
		v.Within(path+".safe_angle", *c.SafeAngle, c.MinAngle, c.MaxAngle)
	}
}

func (c *ServoConfig) Pins() []drivers.Pin {
	return []drivers.Pin{{Field: "pin", Pin: c.Pin, Mode: drivers.PinServo}}
}

func (*ServoConfig) Keys(string) []drivers.Key { return nil }

// OutputConfig is a digital output: an LED (gpio.LedDriver), a relay (gpio.RelayDriver), a
// buzzer (gpio.BuzzerDriver) or a plain pin (digital_out, gpio.DirectPinDriver).
type OutputConfig struct {
	kind string
	Pin  string `yaml:"pin"`
	// Safe is the logical level (0 or 1) at start, on halt and on e-stop (default 0: off).
	Safe int `yaml:"safe,omitempty"`
	// ActiveLow: the device is on when the pin is low.
	ActiveLow bool `yaml:"active_low,omitempty"`
}

// Kind implements drivers.Spec.
func (c *OutputConfig) Kind() string { return c.kind }

func (*OutputConfig) Defaults(string) {}

func (c *OutputConfig) Validate(v *drivers.Validator, path string) {
	if c.Safe != 0 && c.Safe != 1 {
		v.Errorf(path+".safe", "must be 0 or 1 (got %d)", c.Safe)
	}
}

func (c *OutputConfig) Pins() []drivers.Pin {
	return []drivers.Pin{{Field: "pin", Pin: c.Pin, Mode: drivers.PinOut}}
}

func (*OutputConfig) Keys(string) []drivers.Key { return nil }

// PWMOutConfig is a PWM output (gpio.DirectPinDriver.PwmWrite): a fan, a lamp, a pump.
type PWMOutConfig struct {
	Pin string `yaml:"pin"`
	// MaxDuty is the highest duty cycle a mission may ask for, 0..1 (default 1).
	MaxDuty float64 `yaml:"max_duty,omitempty"`
	// Safe is the duty cycle at start, on halt and on e-stop (default 0).
	Safe float64 `yaml:"safe,omitempty"`
}

// Kind implements drivers.Spec.
func (*PWMOutConfig) Kind() string { return KindPWMOut }

func (c *PWMOutConfig) Defaults(string) {
	if c.MaxDuty == 0 {
		c.MaxDuty = 1
	}
}

func (c *PWMOutConfig) Validate(v *drivers.Validator, path string) {
	if v.Positive(path+".max_duty", c.MaxDuty) && c.MaxDuty > 1 {
		v.Errorf(path+".max_duty", "must be at most 1 (got %v)", c.MaxDuty)
		return
	}
	v.Within(path+".safe", c.Safe, 0, c.MaxDuty)
}

func (c *PWMOutConfig) Pins() []drivers.Pin {
	return []drivers.Pin{{Field: "pin", Pin: c.Pin, Mode: drivers.PinPWM}}
}

func (*PWMOutConfig) Keys(string) []drivers.Key { return nil }
