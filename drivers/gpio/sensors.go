package gpio

import (
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
)

// RangeConfig is an HC-SR04 ultrasonic range finder (gpio.HCSR04Driver). It writes one key,
// the distance in metres from the sensor (default key range.<name>).
type RangeConfig struct {
	Trig string `yaml:"trig"`
	Echo string `yaml:"echo"`
	// MaxRange: readings beyond it (no echo) are reported as MaxRange, m (default 4).
	MaxRange             float64 `yaml:"max_range,omitempty"`
	drivers.SampleConfig `yaml:",inline"`
}

// Kind implements drivers.Spec.
func (*RangeConfig) Kind() string { return KindRange }

func (c *RangeConfig) Defaults(string) {
	if c.MaxRange == 0 {
		c.MaxRange = 4
	}
	c.SampleConfig.SetDefaults("", 10)
}

func (c *RangeConfig) Validate(v *drivers.Validator, path string) {
	v.Positive(path+".max_range", c.MaxRange)
	c.SampleConfig.Check(v, path)
	if c.RateHz > 20 {
		v.Errorf(path+".rate_hz", "an HC-SR04 needs up to 60 ms per reading: at most 20 Hz (got %v)", c.RateHz)
	}
}

func (c *RangeConfig) Pins() []drivers.Pin {
	return []drivers.Pin{{Field: "trig", Pin: c.Trig, Mode: drivers.PinTrigger}, {Field: "echo", Pin: c.Echo, Mode: drivers.PinEcho}}
}

func (c *RangeConfig) Keys(name string) []drivers.Key {
	return []drivers.Key{{Name: orDefault(c.Key, "range."+name)}}
}

// BatteryConfig is a battery monitor: an aio.AnalogSensorDriver on a board's analog pin, or on
// an i2c ADC (the Raspberry Pi has none of its own), with a linear scale from counts to volts.
// It writes <key>.voltage (V) and <key>.percent (0..100, linear between EmptyVoltage and
// FullVoltage); default key "battery".
type BatteryConfig struct {
	// Pin is the board's analog input ("A0" on the sim, "0".."5" on an Arduino), or the ADC
	// channel ("0".."3") when ADC is given.
	Pin string     `yaml:"pin"`
	ADC *ADCConfig `yaml:"adc,omitempty"`
	// Scale maps counts to volts at the battery (divider included).
	Scale ScaleConfig `yaml:"scale,omitempty"`
	// Cells in series (default 3); EmptyVoltage and FullVoltage default to 3.5 and 4.2 V per
	// cell.
	Cells                int     `yaml:"cells,omitempty"`
	EmptyVoltage         float64 `yaml:"empty_voltage,omitempty"`
	FullVoltage          float64 `yaml:"full_voltage,omitempty"`
	drivers.SampleConfig `yaml:",inline"`
}

// ScaleConfig is a linear scale: counts 0..RawMax read as 0..VoltsMax volts.
type ScaleConfig struct {
	RawMax   int     `yaml:"raw_max"`
	VoltsMax float64 `yaml:"volts_max"`
}

// ADCConfig is an i2c analog-to-digital converter in front of an analog sensor.
type ADCConfig struct {
	// Kind is "ads1115" or "ads1015".
	Kind    string `yaml:"kind"`
	Bus     *int   `yaml:"bus,omitempty"`
	Address int    `yaml:"address,omitempty"` // default 0x48
	// Gain is the ADS1x15 programmable gain index: 0 ±6.144 V, 1 ±4.096 V (default), 2 ±2.048 V,
	// 3 ±1.024 V, 4 ±0.512 V, 5 ±0.256 V.
	Gain *int `yaml:"gain,omitempty"`
}

// Kind implements drivers.Spec.
func (*BatteryConfig) Kind() string { return KindBattery }

func (c *BatteryConfig) Defaults(board string) {
	if c.Cells == 0 {
		c.Cells = 3
	}
	if c.EmptyVoltage == 0 {
		c.EmptyVoltage = 3.5 * float64(c.Cells)
	}
	if c.FullVoltage == 0 {
		c.FullVoltage = 4.2 * float64(c.Cells)
	}
	if board == drivers.BoardSim && c.Scale == (ScaleConfig{}) {
		c.Scale = ScaleConfig{RawMax: 4095, VoltsMax: 16.8} // the sim's default ADC
	}
	if c.ADC != nil {
		if c.ADC.Bus == nil {
			c.ADC.Bus = intPtr(drivers.DefaultBus(board))
		}
		if c.ADC.Address == 0 {
			c.ADC.Address = 0x48
		}
		if c.ADC.Gain == nil {
			c.ADC.Gain = intPtr(1)
		}
	}
	c.SampleConfig.SetDefaults("battery", 2)
}

func (c *BatteryConfig) Validate(v *drivers.Validator, path string) {
	if c.Cells < 1 || c.Cells > 12 {
		v.Errorf(path+".cells", "must be 1..12 (got %d)", c.Cells)
	}
	okE := v.Positive(path+".empty_voltage", c.EmptyVoltage)
	if v.Positive(path+".full_voltage", c.FullVoltage) && okE && c.FullVoltage <= c.EmptyVoltage {
		v.Errorf(path+".full_voltage", "must be above empty_voltage (%v)", c.EmptyVoltage)
	}
	if c.Scale.RawMax <= 0 {
		v.Errorf(path+".scale.raw_max", "must be > 0 (got %d): the count at volts_max", c.Scale.RawMax)
	}
	v.Positive(path+".scale.volts_max", c.Scale.VoltsMax)
	if a := c.ADC; a != nil {
		if a.Kind != "ads1115" && a.Kind != "ads1015" {
			v.Errorf(path+".adc.kind", "%q is not ads1115 or ads1015", a.Kind)
		}
		checkAddress(v, path+".adc.address", a.Address)
		if a.Gain != nil && (*a.Gain < 0 || *a.Gain > 5) {
			v.Errorf(path+".adc.gain", "must be 0..5 (got %d)", *a.Gain)
		}
		switch c.Pin {
		case "0", "1", "2", "3":
		default:
			v.Errorf(path+".pin", "an ADS1x15 channel is \"0\"..\"3\" (got %q)", c.Pin)
		}
	}
	c.SampleConfig.Check(v, path)
}

func (c *BatteryConfig) Pins() []drivers.Pin {
	if c.ADC != nil {
		return []drivers.Pin{{Field: "adc", Mode: drivers.PinI2C, Bus: derefInt(c.ADC.Bus), Addr: c.ADC.Address}}
	}
	return []drivers.Pin{{Field: "pin", Pin: c.Pin, Mode: drivers.PinAnalog}}
}

func (c *BatteryConfig) Keys(string) []drivers.Key {
	return []drivers.Key{{Name: c.Key + ".voltage"}, {Name: c.Key + ".percent"}}
}

// IMUConfig is an MPU6050 on i2c (i2c.MPU6050Driver). It writes, under its key prefix (default
// "imu"): roll and pitch (rad, from gravity), yaw (rad, integrated from the gyro since start),
// yaw_rate (rad/s, counter-clockwise), accel_x/y/z (m/s²) and temperature (°C).
type IMUConfig struct {
	Bus                  *int `yaml:"bus,omitempty"`     // default: the board's default bus
	Address              int  `yaml:"address,omitempty"` // default 0x68
	drivers.SampleConfig `yaml:",inline"`
}

// Kind implements drivers.Spec.
func (*IMUConfig) Kind() string { return KindIMU }

func (c *IMUConfig) Defaults(board string) {
	if c.Bus == nil {
		c.Bus = intPtr(drivers.DefaultBus(board))
	}
	if c.Address == 0 {
		c.Address = 0x68
	}
	c.SampleConfig.SetDefaults("imu", 50)
}

func (c *IMUConfig) Validate(v *drivers.Validator, path string) {
	checkAddress(v, path+".address", c.Address)
	c.SampleConfig.Check(v, path)
}

func (c *IMUConfig) Pins() []drivers.Pin {
	return []drivers.Pin{{Field: "address", Mode: drivers.PinI2C, Bus: derefInt(c.Bus), Addr: c.Address}}
}

// imuKeys are the suffixes an IMU writes, in the order the reader fills them.
var imuKeys = [...]string{"roll", "pitch", "yaw", "yaw_rate", "accel_x", "accel_y", "accel_z", "temperature"}

func (c *IMUConfig) Keys(string) []drivers.Key {
	out := make([]drivers.Key, len(imuKeys))
	for i, k := range imuKeys {
		out[i] = drivers.Key{Name: c.Key + "." + k}
	}
	return out
}

// YawKey implements drivers.GyroSource.
func (c *IMUConfig) YawKey() string { return c.Key + ".yaw" }

// BumpConfig is a bump switch on a digital input (gpio.DirectPinDriver.DigitalRead). It writes a
// boolean, true while pressed (default key bump.<name>).
type BumpConfig struct {
	Pin                  string `yaml:"pin"`
	ActiveLow            bool   `yaml:"active_low,omitempty"`
	drivers.SampleConfig `yaml:",inline"`
}

// Kind implements drivers.Spec.
func (*BumpConfig) Kind() string { return KindBump }

func (c *BumpConfig) Defaults(string) { c.SampleConfig.SetDefaults("", 20) }

func (c *BumpConfig) Validate(v *drivers.Validator, path string) { c.SampleConfig.Check(v, path) }

func (c *BumpConfig) Pins() []drivers.Pin {
	return []drivers.Pin{{Field: "pin", Pin: c.Pin, Mode: drivers.PinIn}}
}

func (c *BumpConfig) Keys(name string) []drivers.Key {
	return []drivers.Key{{Name: orDefault(c.Key, "bump."+name), Bool: true}}
}

// PoseConfig is the simulated robot's true pose: <key>.x, <key>.y (m) and <key>.heading (rad,
// counter-clockwise from +x); default key "pose". It is the simulator's stand-in for a
// localization source (wheel encoders fused with a gyro, a tag tracker, RTK GPS), which real boards get from a
// device of their own; only the sim board offers it.
type PoseConfig struct {
	drivers.SampleConfig `yaml:",inline"`
}

// Kind implements drivers.Spec.
func (*PoseConfig) Kind() string { return KindPose }

func (c *PoseConfig) Defaults(string) { c.SampleConfig.SetDefaults("pose", 20) }

func (c *PoseConfig) Validate(v *drivers.Validator, path string) { c.SampleConfig.Check(v, path) }

func (*PoseConfig) Pins() []drivers.Pin { return nil }

func (c *PoseConfig) Keys(string) []drivers.Key {
	return []drivers.Key{{Name: c.Key + ".x"}, {Name: c.Key + ".y"}, {Name: c.Key + ".heading"}}
}

func checkAddress(v *drivers.Validator, path string, addr int) {
	if addr < 0x03 || addr > 0x77 {
		v.Errorf(path, "%#x is not a 7-bit i2c device address (0x03..0x77)", addr)
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func intPtr(i int) *int { return &i }

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// PoseKey implements drivers.PoseSource.
func (c *PoseConfig) PoseKey() string { return c.Key }

// WireSim implements drivers.SimPart.
func (s *RangeConfig) WireSim(rc *sim.RobotConfig) {
	rc.Pins.SonarTrigger, rc.Pins.SonarEcho = s.Trig, s.Echo
	rc.Sonar.MaxRange = s.MaxRange
}

// CheckSim implements drivers.SimPart.
func (s *RangeConfig) CheckSim(v *drivers.Validator, path string, seen map[string]string) {
	drivers.SimOnce(v, seen, KindRange, path, ".kind", KindRange)
}

// BoardProblem implements drivers.BoardLimited.
func (s *RangeConfig) BoardProblem(board string) string {
	if board == drivers.BoardFirmata {
		return "the firmata adaptor has no DigitalPin access with edge events, which gobot's HC-SR04 driver needs"
	}
	return ""
}

// WireSim implements drivers.SimPart.
func (s *BatteryConfig) WireSim(rc *sim.RobotConfig) {
	rc.Pins.Battery = s.Pin
	rc.Battery.Cells = s.Cells
	rc.Battery.ADCFullScale = s.Scale.VoltsMax
}

// CheckSim implements drivers.SimPart.
func (s *BatteryConfig) CheckSim(v *drivers.Validator, path string, seen map[string]string) {
	if !drivers.SimOnce(v, seen, KindBattery, path, ".kind", KindBattery) {
		return
	}
	if s.ADC != nil {
		v.Errorf(path+".adc", "the sim board reads its battery on its own analog pin; it has no i2c ADC")
	}
	if s.Scale.RawMax != sim.ADCMax {
		v.Errorf(path+".scale.raw_max", "the sim's battery ADC is 12-bit: raw_max must be %d (got %d)", sim.ADCMax, s.Scale.RawMax)
	}
}

// WireSim implements drivers.SimPart.
func (s *BumpConfig) WireSim(rc *sim.RobotConfig) { rc.Pins.Bump = s.Pin }

// CheckSim implements drivers.SimPart.
func (s *BumpConfig) CheckSim(v *drivers.Validator, path string, seen map[string]string) {
	drivers.SimOnce(v, seen, KindBump, path, ".kind", KindBump)
}

// WireSim implements drivers.SimPart.
func (s *IMUConfig) WireSim(rc *sim.RobotConfig) {
	rc.IMU.Bus, rc.IMU.Address = derefInt(s.Bus), s.Address
}

// CheckSim implements drivers.SimPart.
func (s *IMUConfig) CheckSim(v *drivers.Validator, path string, seen map[string]string) {
	drivers.SimOnce(v, seen, KindIMU, path, ".kind", KindIMU)
}

// BoardProblem implements drivers.BoardLimited: the pose is the simulator's ground truth.
func (s *PoseConfig) BoardProblem(board string) string {
	if board != drivers.BoardSim {
		return "pose is the simulator's ground truth; a " + board + " board has no pose source (add a localization device)"
	}
	return ""
}
