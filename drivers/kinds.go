package drivers

import "sort"

// Device kinds.
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
	KindOdometry   = "odometry"
	KindMQTTPose   = "mqtt_pose"
	KindGPS        = "gps"
)

// kindInfo registers a device kind by name (Caddy style): the kind decodes its own section into
// the struct newSpec returns.
type kindInfo struct {
	name     string
	actuator bool
	newSpec  func() DeviceSpec
	// boardless kinds are wired to no board (a pose arriving over MQTT).
	boardless bool
}

var kindTable = map[string]kindInfo{
	KindDiffDrive:  {KindDiffDrive, true, func() DeviceSpec { return &DiffDriveConfig{} }, false},
	KindServo:      {KindServo, true, func() DeviceSpec { return &ServoConfig{} }, false},
	KindLED:        {KindLED, true, func() DeviceSpec { return &OutputConfig{kind: KindLED} }, false},
	KindRelay:      {KindRelay, true, func() DeviceSpec { return &OutputConfig{kind: KindRelay} }, false},
	KindBuzzer:     {KindBuzzer, true, func() DeviceSpec { return &OutputConfig{kind: KindBuzzer} }, false},
	KindDigitalOut: {KindDigitalOut, true, func() DeviceSpec { return &OutputConfig{kind: KindDigitalOut} }, false},
	KindPWMOut:     {KindPWMOut, true, func() DeviceSpec { return &PWMOutConfig{} }, false},
	KindRange:      {KindRange, false, func() DeviceSpec { return &RangeConfig{} }, false},
	KindBattery:    {KindBattery, false, func() DeviceSpec { return &BatteryConfig{} }, false},
	KindIMU:        {KindIMU, false, func() DeviceSpec { return &IMUConfig{} }, false},
	KindBump:       {KindBump, false, func() DeviceSpec { return &BumpConfig{} }, false},
	KindPose:       {KindPose, false, func() DeviceSpec { return &PoseConfig{} }, false},
	KindOdometry:   {KindOdometry, false, func() DeviceSpec { return &OdometryConfig{} }, false},
	KindMQTTPose:   {KindMQTTPose, false, func() DeviceSpec { return &MQTTPoseConfig{} }, true},
	KindGPS:        {KindGPS, false, func() DeviceSpec { return &GPSConfig{} }, false},
}

func kindByName(name string) (kindInfo, bool) {
	k, ok := kindTable[name]
	return k, ok
}

func kindNames() []string {
	out := make([]string, 0, len(kindTable))
	for k := range kindTable {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pinMode is what a device does with a pin; boards check that they can do it on that pin.
type pinMode uint8

const (
	pinOut     pinMode = iota // digital output (DigitalWrite)
	pinIn                     // digital input (DigitalRead)
	pinPWM                    // PwmWrite
	pinServo                  // ServoWrite
	pinAnalog                 // AnalogRead
	pinTrigger                // HC-SR04 trigger: a DigitalPin driven as output
	pinEcho                   // HC-SR04 echo: a DigitalPin with edge events
	pinI2C                    // an i2c device (bus, address) rather than a pin
	pinEncoder                // a wheel encoder channel: a DigitalPin input with edge events
	pinUART                   // a pin of the board's serial port
)

var pinModeNames = [...]string{"digital output", "digital input", "PWM output", "servo output",
	"analog input", "HC-SR04 trigger", "HC-SR04 echo (edge events)", "i2c device", "encoder input (edge events)",
	"serial port"}

func (m pinMode) String() string { return pinModeNames[m] }

// pinUse is one pin (or i2c address) a device uses, with the config field naming it.
type pinUse struct {
	field string
	pin   string
	mode  pinMode
	bus   int // pinI2C
	addr  int // pinI2C
}

// SampleConfig is what every sensor section has: where it writes and how often it reads.
type SampleConfig struct {
	// Key is the blackboard key (or key prefix for sensors writing several values).
	Key string `yaml:"key,omitempty"`
	// RateHz is how often the sensor is read.
	RateHz float64 `yaml:"rate_hz,omitempty"`
	// StaleAfterMs: a sensor without a good sample for this long is reported as
	// SENSOR_STALE (default: 3 periods, at least 500 ms).
	StaleAfterMs float64 `yaml:"stale_after_ms,omitempty"`
}

func (s *SampleConfig) defaults(key string, rate float64) {
	if s.Key == "" {
		s.Key = key
	}
	if s.RateHz == 0 {
		s.RateHz = rate
	}
	if s.StaleAfterMs == 0 && s.RateHz > 0 {
		s.StaleAfterMs = max(500, 3000/s.RateHz)
	}
}

func (s *SampleConfig) validate(v *validator, path string) {
	if v.positive(path+".rate_hz", s.RateHz) && s.RateHz > 1000 {
		v.errorf(path+".rate_hz", "must be at most 1000 (got %v)", s.RateHz)
	}
	if v.positive(path+".stale_after_ms", s.StaleAfterMs) && s.RateHz > 0 && s.StaleAfterMs < 1000/s.RateHz {
		v.errorf(path+".stale_after_ms", "%v ms is shorter than one sampling period (%v ms)", s.StaleAfterMs, 1000/s.RateHz)
	}
}
