package drivers

import "github.com/botd-project/botd/drivers/sim"

// The simulated robot's parts and the boards' limits, per kind (SimPart, BoardLimited).

// WireSim implements SimPart.
func (s *RangeConfig) WireSim(rc *sim.RobotConfig) {
	rc.Pins.SonarTrigger, rc.Pins.SonarEcho = s.Trig, s.Echo
	rc.Sonar.MaxRange = s.MaxRange
}

// CheckSim implements SimPart.
func (s *RangeConfig) CheckSim(v *Validator, path string, seen map[string]string) {
	SimOnce(v, seen, KindRange, path, ".kind", KindRange)
}

// BoardProblem implements BoardLimited.
func (s *RangeConfig) BoardProblem(board string) string {
	if board == BoardFirmata {
		return "the firmata adaptor has no DigitalPin access with edge events, which gobot's HC-SR04 driver needs"
	}
	return ""
}

// WireSim implements SimPart.
func (s *BatteryConfig) WireSim(rc *sim.RobotConfig) {
	rc.Pins.Battery = s.Pin
	rc.Battery.Cells = s.Cells
	rc.Battery.ADCFullScale = s.Scale.VoltsMax
}

// CheckSim implements SimPart.
func (s *BatteryConfig) CheckSim(v *Validator, path string, seen map[string]string) {
	if !SimOnce(v, seen, KindBattery, path, ".kind", KindBattery) {
		return
	}
	if s.ADC != nil {
		v.Errorf(path+".adc", "the sim board reads its battery on its own analog pin; it has no i2c ADC")
	}
	if s.Scale.RawMax != sim.ADCMax {
		v.Errorf(path+".scale.raw_max", "the sim's battery ADC is 12-bit: raw_max must be %d (got %d)", sim.ADCMax, s.Scale.RawMax)
	}
}

// WireSim implements SimPart.
func (s *BumpConfig) WireSim(rc *sim.RobotConfig) { rc.Pins.Bump = s.Pin }

// CheckSim implements SimPart.
func (s *BumpConfig) CheckSim(v *Validator, path string, seen map[string]string) {
	SimOnce(v, seen, KindBump, path, ".kind", KindBump)
}

// WireSim implements SimPart.
func (s *IMUConfig) WireSim(rc *sim.RobotConfig) {
	rc.IMU.Bus, rc.IMU.Address = derefInt(s.Bus), s.Address
}

// CheckSim implements SimPart.
func (s *IMUConfig) CheckSim(v *Validator, path string, seen map[string]string) {
	SimOnce(v, seen, KindIMU, path, ".kind", KindIMU)
}

// BoardProblem implements BoardLimited: the pose is the simulator's ground truth.
func (s *PoseConfig) BoardProblem(board string) string {
	if board != BoardSim {
		return "pose is the simulator's ground truth; a " + board + " board has no pose source (add a localization device)"
	}
	return ""
}
