package drivers

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/botd-project/botd/bt"
)

// Register adds the device leaves (MISSIONS.md section 7) to reg: Drive, Stop, Turn, MoveTo,
// Servo, Led, Relay, Buzzer, DigitalWrite and Pwm. Their parameter limits come from cfg (the
// drive's max_linear and max_angular, the servos' angles, the PWM outputs' max_duty), so a
// mission asking more is refused with LIMIT_EXCEEDED when it is validated; device parameters
// may only name configured devices, and may be left out when there is one device of the kind.
// With a nil cfg the leaves are registered without limits or device checks (catalogs, tools).
//
// The leaves find their robot in Agent.Env (a *Robot) and only ever set commands on its
// actuators through the safety envelope; the tick loop writes them with Robot.Apply.
func Register(reg *bt.Registry, cfg *Config) {
	l := newLimits(cfg)
	for _, t := range []bt.NodeType{
		driveType(l), stopType(l), turnType(l), moveToType(l),
		servoType(l), ledType(l), relayType(l), buzzerType(l), digitalWriteType(l), pwmType(l),
	} {
		reg.Register(t)
	}
}

// limits are what Register reads from the config.
type limits struct {
	cfg                   *Config
	maxLinear, maxAngular float64 // +Inf without a drive
	servoMin, servoMax    float64
	maxDuty               float64
	poseKey, imuKey       string // key prefixes of the pose and IMU sensors
}

func newLimits(cfg *Config) *limits {
	l := &limits{cfg: cfg, maxLinear: math.Inf(1), maxAngular: math.Inf(1), servoMin: 0, servoMax: 180, maxDuty: 1,
		poseKey: "pose", imuKey: "imu"}
	if cfg == nil {
		return l
	}
	_ = cfg.Validate() // fills in defaults; an invalid config only weakens the limits below
	first := true
	for _, d := range cfg.Devices {
		if d == nil || d.Spec == nil {
			continue
		}
		switch s := d.Spec.(type) {
		case *DiffDriveConfig:
			if first || s.MaxLinear > l.maxLinear {
				l.maxLinear = s.MaxLinear
			}
			if first || s.MaxAngular > l.maxAngular {
				l.maxAngular = s.MaxAngular
			}
			first = false
		case *PoseConfig:
			l.poseKey = s.Key
		case *IMUConfig:
			l.imuKey = s.Key
		}
	}
	if servos := cfg.DevicesOfKind(KindServo); len(servos) > 0 {
		l.servoMin, l.servoMax = 180, 0
		for _, d := range servos {
			if s, ok := d.Spec.(*ServoConfig); ok {
				l.servoMin, l.servoMax = math.Min(l.servoMin, s.MinAngle), math.Max(l.servoMax, s.MaxAngle)
			}
		}
	}
	if pwms := cfg.DevicesOfKind(KindPWMOut); len(pwms) > 0 {
		l.maxDuty = 0
		for _, d := range pwms {
			if s, ok := d.Spec.(*PWMOutConfig); ok {
				l.maxDuty = math.Max(l.maxDuty, s.MaxDuty)
			}
		}
	}
	return l
}

// bound returns a pointer for Param.Min/Max, nil for an infinite limit.
func bound(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return bt.Float(v)
}

func (l *limits) names(kind string) []string {
	if l.cfg == nil {
		return nil
	}
	var out []string
	for _, d := range l.cfg.DevicesOfKind(kind) {
		out = append(out, d.Name)
	}
	sort.Strings(out)
	return out
}

// deviceParam declares the optional device parameter of a leaf acting on one kind.
func (l *limits) deviceParam(kind string) bt.Param {
	p := bt.Param{Name: "device", Type: bt.TString, Doc: fmt.Sprintf("the %s device (optional when there is only one)", kind)}
	if names := l.names(kind); len(names) > 0 {
		p.Type, p.Enum = bt.TEnum, names
	}
	return p
}

// device reads the device parameter when the node is compiled and checks that the config has
// such a device.
func (l *limits) device(b *bt.Builder, kind string) string {
	raw, _ := b.Raw("device")
	name, _ := raw.(string)
	if l.cfg == nil {
		return name
	}
	names := l.names(kind)
	switch {
	case len(names) == 0:
		b.Errorf("", "the robot config has no %s device", kind)
	case name == "" && len(names) > 1:
		b.Errorf("device", "there are several %s devices (%s): name one", kind, strings.Join(names, ", "))
	}
	return name
}

// leafDoc appends the shared notes to a leaf's documentation.
func leafDoc(s string) string {
	return s + " During an e-stop it returns FAILURE; a driver error while it owns the actuator makes it return ERROR."
}

// robotOf finds the agent's robot, emitting an error when there is none.
func robotOf(a *bt.Agent, n *bt.Node) *Robot {
	r, ok := a.Env.(*Robot)
	if !ok || r == nil {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: the agent has no robot (Env is %T)", n.Type.Name, a.Env))
		return nil
	}
	return r
}

// actuator finds the actuator a leaf names (or the only one of its kind).
func (r *Robot) actuator(name, kind string) (*actuator, int, error) {
	if name != "" {
		d, ok := r.byName[name]
		switch {
		case !ok:
			return nil, 0, fmt.Errorf("no device %q", name)
		case d.kind != kind || d.act == nil:
			return nil, 0, fmt.Errorf("device %q is a %s, not a %s", name, d.kind, kind)
		}
		for i, act := range r.env.acts {
			if act == d.act {
				return act, i, nil
			}
		}
	}
	found, idx := (*actuator)(nil), 0
	for i, act := range r.env.acts {
		if act.dev.kind != kind {
			continue
		}
		if found != nil {
			return nil, 0, fmt.Errorf("several %s devices: name one with the device parameter", kind)
		}
		found, idx = act, i
	}
	if found == nil {
		return nil, 0, fmt.Errorf("the robot has no %s device", kind)
	}
	return found, idx, nil
}

// actIndex is where a leaf keeps, per agent, the actuator it found when it opened: its index+1
// in the robot's actuators (0: not found, the error was emitted).
type actIndex int

// resolve finds a leaf's actuator when it opens and keeps its index in *at.
func resolve(a *bt.Agent, n *bt.Node, dev, kind string, at *actIndex) (*Robot, *actuator) {
	*at = 0
	r := robotOf(a, n)
	if r == nil {
		return nil, nil
	}
	act, i, err := r.actuator(dev, kind)
	if err != nil {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: %v", n.Type.Name, err))
		return nil, nil
	}
	*at = actIndex(i + 1)
	return r, act
}

// resolved returns the actuator found when the node opened.
func resolved(a *bt.Agent, i actIndex) (*Robot, *actuator) {
	if i == 0 {
		return nil, nil
	}
	r, ok := a.Env.(*Robot)
	if !ok || r == nil || int(i) > len(r.env.acts) {
		return nil, nil
	}
	return r, r.env.acts[i-1]
}

// commandStatus turns a refused command into the leaf's status.
func commandStatus(a *bt.Agent, n *bt.Node, err error, ok bt.Status) bt.Status {
	switch {
	case err == nil:
		return ok
	case errors.Is(err, ErrEStopped):
		return bt.Failure
	}
	a.Emit(n.Index, "error", fmt.Sprintf("%s: %v", n.Type.Name, err))
	return bt.Error
}

// driverError reports a driver error that happened while o owned act.
func driverError(a *bt.Agent, n *bt.Node, r *Robot, act *actuator, o owner) bool {
	if err := r.env.takeErr(act, o); err != nil {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: %s %q: %v", n.Type.Name, act.dev.kind, act.dev.name, err))
		return true
	}
	return false
}

// readNum reads a numeric parameter, emitting an error when a referenced key is missing.
func readNum(a *bt.Agent, n *bt.Node, name string, p bt.Num) (float64, bool) {
	v, ok := p.Get(a)
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: parameter %s: the blackboard has no number there", n.Type.Name, name))
		return 0, false
	}
	return v, true
}
