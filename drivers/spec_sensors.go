package drivers

// RangeConfig is an HC-SR04 ultrasonic range finder (gpio.HCSR04Driver). It writes one key,
// the distance in metres from the sensor (default key range.<name>).
type RangeConfig struct {
	Trig string `yaml:"trig"`
	Echo string `yaml:"echo"`
	// MaxRange: readings beyond it (no echo) are reported as MaxRange, m (default 4).
	MaxRange     float64 `yaml:"max_range,omitempty"`
	SampleConfig `yaml:",inline"`
}

// Kind implements DeviceSpec.
func (*RangeConfig) Kind() string { return KindRange }

func (c *RangeConfig) defaults(string) {
	if c.MaxRange == 0 {
		c.MaxRange = 4
	}
	c.SampleConfig.defaults("", 10)
}

func (c *RangeConfig) validate(v *validator, path string) {
	v.positive(path+".max_range", c.MaxRange)
	c.SampleConfig.validate(v, path)
	if c.RateHz > 20 {
		v.errorf(path+".rate_hz", "an HC-SR04 needs up to 60 ms per reading: at most 20 Hz (got %v)", c.RateHz)
	}
}

func (c *RangeConfig) pins() []pinUse {
	return []pinUse{{field: "trig", pin: c.Trig, mode: pinTrigger}, {field: "echo", pin: c.Echo, mode: pinEcho}}
}

func (c *RangeConfig) keys(name string) []sensorKey {
	return []sensorKey{{name: orDefault(c.Key, "range."+name)}}
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
	Cells        int     `yaml:"cells,omitempty"`
	EmptyVoltage float64 `yaml:"empty_voltage,omitempty"`
	FullVoltage  float64 `yaml:"full_voltage,omitempty"`
	SampleConfig `yaml:",inline"`
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

// Kind implements DeviceSpec.
func (*BatteryConfig) Kind() string { return KindBattery }

func (c *BatteryConfig) defaults(board string) {
	if c.Cells == 0 {
		c.Cells = 3
	}
	if c.EmptyVoltage == 0 {
		c.EmptyVoltage = 3.5 * float64(c.Cells)
	}
	if c.FullVoltage == 0 {
		c.FullVoltage = 4.2 * float64(c.Cells)
	}
	if board == BoardSim && c.Scale == (ScaleConfig{}) {
		c.Scale = ScaleConfig{RawMax: 4095, VoltsMax: 16.8} // the sim's default ADC
	}
	if c.ADC != nil {
		if c.ADC.Bus == nil {
			c.ADC.Bus = intPtr(defaultBus(board))
		}
		if c.ADC.Address == 0 {
			c.ADC.Address = 0x48
		}
		if c.ADC.Gain == nil {
			c.ADC.Gain = intPtr(1)
		}
	}
	c.SampleConfig.defaults("battery", 2)
}

func (c *BatteryConfig) validate(v *validator, path string) {
	if c.Cells < 1 || c.Cells > 12 {
		v.errorf(path+".cells", "must be 1..12 (got %d)", c.Cells)
	}
	okE := v.positive(path+".empty_voltage", c.EmptyVoltage)
	if v.positive(path+".full_voltage", c.FullVoltage) && okE && c.FullVoltage <= c.EmptyVoltage {
		v.errorf(path+".full_voltage", "must be above empty_voltage (%v)", c.EmptyVoltage)
	}
	if c.Scale.RawMax <= 0 {
		v.errorf(path+".scale.raw_max", "must be > 0 (got %d): the count at volts_max", c.Scale.RawMax)
	}
	v.positive(path+".scale.volts_max", c.Scale.VoltsMax)
	if a := c.ADC; a != nil {
		if a.Kind != "ads1115" && a.Kind != "ads1015" {
			v.errorf(path+".adc.kind", "%q is not ads1115 or ads1015", a.Kind)
		}
		checkAddress(v, path+".adc.address", a.Address)
		if a.Gain != nil && (*a.Gain < 0 || *a.Gain > 5) {
			v.errorf(path+".adc.gain", "must be 0..5 (got %d)", *a.Gain)
		}
		switch c.Pin {
		case "0", "1", "2", "3":
		default:
			v.errorf(path+".pin", "an ADS1x15 channel is \"0\"..\"3\" (got %q)", c.Pin)
		}
	}
	c.SampleConfig.validate(v, path)
}

func (c *BatteryConfig) pins() []pinUse {
	if c.ADC != nil {
		return []pinUse{{field: "adc", mode: pinI2C, bus: derefInt(c.ADC.Bus), addr: c.ADC.Address}}
	}
	return []pinUse{{field: "pin", pin: c.Pin, mode: pinAnalog}}
}

func (c *BatteryConfig) keys(string) []sensorKey {
	return []sensorKey{{name: c.Key + ".voltage"}, {name: c.Key + ".percent"}}
}

// IMUConfig is an MPU6050 on i2c (i2c.MPU6050Driver). It writes, under its key prefix (default
// "imu"): roll and pitch (rad, from gravity), yaw (rad, integrated from the gyro since start),
// yaw_rate (rad/s, counter-clockwise), accel_x/y/z (m/s²) and temperature (°C).
type IMUConfig struct {
	Bus          *int `yaml:"bus,omitempty"`     // default: the board's default bus
	Address      int  `yaml:"address,omitempty"` // default 0x68
	SampleConfig `yaml:",inline"`
}

// Kind implements DeviceSpec.
func (*IMUConfig) Kind() string { return KindIMU }

func (c *IMUConfig) defaults(board string) {
	if c.Bus == nil {
		c.Bus = intPtr(defaultBus(board))
	}
	if c.Address == 0 {
		c.Address = 0x68
	}
	c.SampleConfig.defaults("imu", 50)
}

func (c *IMUConfig) validate(v *validator, path string) {
	checkAddress(v, path+".address", c.Address)
	c.SampleConfig.validate(v, path)
}

func (c *IMUConfig) pins() []pinUse {
	return []pinUse{{field: "address", mode: pinI2C, bus: derefInt(c.Bus), addr: c.Address}}
}

// imuKeys are the suffixes an IMU writes, in the order the reader fills them.
var imuKeys = [...]string{"roll", "pitch", "yaw", "yaw_rate", "accel_x", "accel_y", "accel_z", "temperature"}

func (c *IMUConfig) keys(string) []sensorKey {
	out := make([]sensorKey, len(imuKeys))
	for i, k := range imuKeys {
		out[i] = sensorKey{name: c.Key + "." + k}
	}
	return out
}

// BumpConfig is a bump switch on a digital input (gpio.DirectPinDriver.DigitalRead). It writes a
// boolean, true while pressed (default key bump.<name>).
type BumpConfig struct {
	Pin          string `yaml:"pin"`
	ActiveLow    bool   `yaml:"active_low,omitempty"`
	SampleConfig `yaml:",inline"`
}

// Kind implements DeviceSpec.
func (*BumpConfig) Kind() string { return KindBump }

func (c *BumpConfig) defaults(string) { c.SampleConfig.defaults("", 20) }

func (c *BumpConfig) validate(v *validator, path string) { c.SampleConfig.validate(v, path) }

func (c *BumpConfig) pins() []pinUse {
	return []pinUse{{field: "pin", pin: c.Pin, mode: pinIn}}
}

func (c *BumpConfig) keys(name string) []sensorKey {
	return []sensorKey{{name: orDefault(c.Key, "bump."+name), boolean: true}}
}

// PoseConfig is the simulated robot's true pose: <key>.x, <key>.y (m) and <key>.heading (rad,
// counter-clockwise from +x); default key "pose". It is the simulator's stand-in for a
// localization source (odometry fusion, a tag tracker, RTK GPS), which real boards get from a
// device of their own; only the sim board offers it.
type PoseConfig struct {
	SampleConfig `yaml:",inline"`
}

// Kind implements DeviceSpec.
func (*PoseConfig) Kind() string { return KindPose }

func (c *PoseConfig) defaults(string) { c.SampleConfig.defaults("pose", 20) }

func (c *PoseConfig) validate(v *validator, path string) { c.SampleConfig.validate(v, path) }

func (*PoseConfig) pins() []pinUse { return nil }

func (c *PoseConfig) keys(string) []sensorKey {
	return []sensorKey{{name: c.Key + ".x"}, {name: c.Key + ".y"}, {name: c.Key + ".heading"}}
}

func checkAddress(v *validator, path string, addr int) {
	if addr < 0x03 || addr > 0x77 {
		v.errorf(path, "%#x is not a 7-bit i2c device address (0x03..0x77)", addr)
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
