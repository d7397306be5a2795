package drivers

import (
	"fmt"
	"math"

	"github.com/botd-project/botd/drivers/sim"
)

// simWiring is what the devices on a sim board make of the simulated robot: its RobotConfig
// (motor, sonar, battery, bump, IMU, encoder and GPS wiring taken from the devices, the
// board's noise) and, for every pin wired
// to a part of the robot, which part.
type simWiring struct {
	robot sim.RobotConfig
	roles map[string]string // default-wired pin -> "sonar trigger", ...
}

// simRobotConfig derives the simulated robot from the devices on board. Parts without a device
// keep the sim's default wiring.
func (c *Config) simRobotConfig(board string) simWiring {
	rc := sim.RobotConfig{}
	p := &rc.Pins
	for _, d := range c.Devices {
		if d == nil || d.Adaptor != board || d.Spec == nil {
			continue
		}
		switch s := d.Spec.(type) {
		case *DiffDriveConfig:
			rc.WheelBase, rc.MaxWheelSpeed = s.WheelBase, s.MaxWheelSpeed
			p.LeftSpeed, p.LeftDir, p.LeftForward, p.LeftBackward = s.Left.Speed, s.Left.Dir, s.Left.Forward, s.Left.Backward
			p.RightSpeed, p.RightDir, p.RightForward, p.RightBackward = s.Right.Speed, s.Right.Dir, s.Right.Forward, s.Right.Backward
		case *RangeConfig:
			p.SonarTrigger, p.SonarEcho = s.Trig, s.Echo
			rc.Sonar.MaxRange = s.MaxRange
		case *BatteryConfig:
			p.Battery = s.Pin
			rc.Battery.Cells = s.Cells
			rc.Battery.ADCFullScale = s.Scale.VoltsMax
		case *BumpConfig:
			p.Bump = s.Pin
		case *IMUConfig:
			rc.IMU.Bus, rc.IMU.Address = derefInt(s.Bus), s.Address
		case *OdometryConfig:
			if e := s.Encoders; e != nil {
				p.LeftEncoderA, p.LeftEncoderB, p.RightEncoderA, p.RightEncoderB = e.Left.A, e.Left.B, e.Right.A, e.Right.B
				rc.Encoders = sim.EncoderConfig{TicksPerRev: e.TicksPerRev, WheelRadius: s.WheelRadius}
			}
		case *GPSConfig:
			rc.GPS = sim.GPSConfig{Port: s.Port, RateHz: math.Max(s.RateHz, 1)}
			if s.Origin != nil {
				rc.GPS.Lat, rc.GPS.Lon = s.Origin.Lat, s.Origin.Lon
			}
		}
	}
	if a := c.Adaptors[board]; a != nil && a.Noise != nil {
		rc.Noise = *a.Noise
	}
	// Parts without a device keep the sim's default pins; a device must not use those.
	w := simWiring{roles: map[string]string{}}
	def := sim.DefaultRobotConfig().Pins
	fill := func(v *string, d, role string) {
		if *v == "" {
			*v = d
			w.roles[d] = role
		}
	}
	fill(&p.LeftSpeed, def.LeftSpeed, "left motor speed")
	fill(&p.RightSpeed, def.RightSpeed, "right motor speed")
	if p.LeftForward == "" {
		fill(&p.LeftDir, def.LeftDir, "left motor direction")
	}
	if p.RightForward == "" {
		fill(&p.RightDir, def.RightDir, "right motor direction")
	}
	fill(&p.SonarTrigger, def.SonarTrigger, "sonar trigger")
	fill(&p.SonarEcho, def.SonarEcho, "sonar echo")
	fill(&p.Battery, def.Battery, "battery sense")
	fill(&p.Bump, def.Bump, "bump switch")
	w.robot = rc
	return w
}

// checkSimWiring reports what the simulated robot cannot be: it has one base, one sonar, one
// battery, one bump switch and one IMU, a 12-bit battery ADC, and pins wired to those parts
// cannot double as anything else.
func (c *Config) checkSimWiring(v *Validator, board string) {
	seen := map[string]string{}
	for i, d := range c.Devices {
		if d == nil || d.Adaptor != board || d.Spec == nil || d.Spec.Kind() != d.Kind {
			continue
		}
		path := fmt.Sprintf("devices[%d]", i)
		switch d.Kind {
		case KindDiffDrive, KindRange, KindBattery, KindBump, KindIMU, KindGPS:
			if prev, dup := seen[d.Kind]; dup {
				v.Errorf(path+".kind", "the simulated robot has one %s (already %s)", d.Kind, prev)
				continue
			}
			seen[d.Kind] = path
		}
		switch s := d.Spec.(type) {
		case *DiffDriveConfig:
			if s.Left.Reverse || s.Right.Reverse {
				v.Errorf(path+".left", "the simulated motors are not mirrored: reverse is for real wiring")
			}
		case *OdometryConfig:
			if s.Encoders == nil {
				break
			}
			if prev, dup := seen["encoders"]; dup {
				v.Errorf(path+".encoders", "the simulated robot has one pair of wheel encoders (already %s)", prev)
			}
			seen["encoders"] = path
			if s.Encoders.Left.Reverse || s.Encoders.Right.Reverse {
				v.Errorf(path+".encoders", "the simulated encoders are not mirrored: reverse is for real wiring")
			}
		case *BatteryConfig:
			if s.ADC != nil {
				v.Errorf(path+".adc", "the sim board reads its battery on its own analog pin; it has no i2c ADC")
			}
			if s.Scale.RawMax != sim.ADCMax {
				v.Errorf(path+".scale.raw_max", "the sim's battery ADC is 12-bit: raw_max must be %d (got %d)", sim.ADCMax, s.Scale.RawMax)
			}
		}
	}
	before := len(v.errs)
	w := c.simRobotConfig(board)
	for i, d := range c.Devices {
		if d == nil || d.Adaptor != board || d.Spec == nil || d.Spec.Kind() != d.Kind {
			continue
		}
		for _, p := range d.Spec.Pins() {
			if role, wired := w.roles[p.Pin]; wired && p.Mode != PinI2C {
				v.Errorf(fmt.Sprintf("devices[%d].%s", i, p.Field),
					"pin %q is wired to the simulated robot's %s (the sim keeps its default wiring for parts no device names)", p.Pin, role)
			}
		}
	}
	if len(v.errs) == before {
		if err := w.robot.Validate(); err != nil {
			v.Errorf("adaptors."+board, "the simulated robot these devices describe is invalid: %v", err)
		}
	}
}
