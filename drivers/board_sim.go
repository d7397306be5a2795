package drivers

import (
	"fmt"

	"github.com/botd-project/botd/drivers/sim"
)

// SimPart is a Spec whose device is a part of the simulated robot when it is on a sim board.
type SimPart interface {
	Spec
	// WireSim puts the part into the simulated robot's config (its pins into rc.Pins).
	WireSim(rc *sim.RobotConfig)
	// CheckSim reports what the simulator cannot do with the section at path; seen maps the
	// robot's parts already taken to the path of their device (see SimOnce).
	CheckSim(v *Validator, path string, seen map[string]string)
}

// SimOnce takes the simulated robot's one part for the device at path; false (reported at
// path+field) when another device has it.
func SimOnce(v *Validator, seen map[string]string, part, path, field, what string) bool {
	if prev, dup := seen[part]; dup {
		v.Errorf(path+field, "the simulated robot has one %s (already %s)", what, prev)
		return false
	}
	seen[part] = path
	return true
}

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
		if part, ok := d.Spec.(SimPart); ok {
			part.WireSim(&rc)
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
		if part, ok := d.Spec.(SimPart); ok {
			part.CheckSim(v, fmt.Sprintf("devices[%d]", i), seen)
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
