package drivers

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/botd-project/botd/bt"
)

// Register adds to reg the leaves of every kind in kinds (MISSIONS.md section 7), whether or
// not cfg has a device of the kind: the drive's Drive, Stop, Turn and MoveTo, Servo, Led, Relay,
// Buzzer, DigitalWrite and Pwm, a vehicle's, a drone's. Their parameter limits come from
// cfg (the drive's max_linear and max_angular, the servos' angles, the PWM outputs' max_duty),
// so a mission asking more is refused with LIMIT_EXCEEDED when it is validated. Each leaf
// resolves its device when the mission is compiled: the device parameter may only name a
// configured device of the leaf's kind, and may be left out when there is one device of the
// kind; a mission naming a device the config lacks, or one of another kind, is refused then,
// at the node's path. With a nil cfg the leaves are registered without limits or devices
// (catalogs, tools): a tree compiled so compiles, but its device leaves return ERROR.
//
// An agent ticking the tree must have in Agent.Env a *Robot built from cfg (or from a config
// with the same actuators: the leaves reach their device by its index there). Every agent of a
// shared tree may have its own robot. An agent without such a robot makes the device leaves
// return ERROR, each saying why once per agent. The leaves only ever set commands on the
// robot's actuators through the safety envelope; the tick loop writes them with Robot.Apply.
func Register(reg *bt.Registry, kinds *Registry, cfg *Config) {
	k := newLeafKit(kinds, cfg)
	for _, name := range kinds.Names() {
		if info := kinds.kinds[name]; info.Leaves != nil {
			for _, t := range info.Leaves(k) {
				reg.Register(t)
			}
		}
	}
}

// LeafKit is what a kind's leaves are made with: the config they are registered for (nil for a
// catalog) and the robot's actuator layout, through which a leaf resolves its device when the
// mission is compiled.
type LeafKit struct {
	cfg *Config
	// layout is the config's actuators, in order; actIndex maps an actuator's name to its
	// index there (and in the actuators of every robot built from the config).
	layout   actuatorLayout
	actIndex map[string]int
	poseKey  string
}

func newLeafKit(kinds *Registry, cfg *Config) *LeafKit {
	k := &LeafKit{cfg: cfg, poseKey: "pose"}
	if cfg == nil {
		return k
	}
	if cfg.Kinds == nil {
		cfg.Kinds = kinds
	}
	_ = cfg.Validate() // fills in defaults; an invalid config only weakens the limits
	var acts []*DeviceConfig
	k.actIndex = map[string]int{}
	var sources []string
	for _, d := range cfg.Devices {
		if d == nil {
			continue
		}
		if info, ok := kinds.Kind(d.Kind); ok && info.Actuator {
			k.actIndex[d.Name] = len(acts)
			acts = append(acts, d)
		}
		if ps, ok := d.Spec.(PoseSource); ok && ps.PoseKey() != "" {
			sources = append(sources, ps.PoseKey())
		}
	}
	k.layout = layoutOf(acts, func(d *DeviceConfig) (string, string) { return d.Kind, d.Name })
	// The drive leaves read the pose a source writes under "pose"; without one, the first
	// source's (a rover whose only pose source writes elsewhere).
	if len(sources) > 0 && !slices.Contains(sources, "pose") {
		k.poseKey = sources[0]
	}
	return k
}

// Config is the config the leaves are registered for, nil for a catalog.
func (k *LeafKit) Config() *Config { return k.cfg }

// PoseKey is the key prefix of the robot's pose: "pose" when a pose source writes there (or
// there is none), else the first source's key.
func (k *LeafKit) PoseKey() string { return k.poseKey }

// limits are what the drive and output leaves read from the config.
type limits struct {
	*LeafKit
	maxLinear, maxAngular float64 // +Inf without a drive
	servoMin, servoMax    float64
	maxDuty               float64
	imuKey                string // key prefix of the IMU
}

func newLimits(k *LeafKit) *limits {
	l := &limits{LeafKit: k, maxLinear: math.Inf(1), maxAngular: math.Inf(1), servoMin: 0, servoMax: 180, maxDuty: 1, imuKey: "imu"}
	cfg := k.cfg
	if cfg == nil {
		return l
	}
	for i, d := range cfg.DevicesOfKind(KindDiffDrive) {
		if s, ok := d.Spec.(*DiffDriveConfig); ok {
			if i == 0 || s.MaxLinear > l.maxLinear {
				l.maxLinear = s.MaxLinear
			}
			if i == 0 || s.MaxAngular > l.maxAngular {
				l.maxAngular = s.MaxAngular
			}
		}
	}
	for _, d := range cfg.DevicesOfKind(KindIMU) {
		if s, ok := d.Spec.(*IMUConfig); ok {
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

func (l *LeafKit) names(kind string) []string {
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
func (l *LeafKit) deviceParam(kind string) bt.Param {
	p := bt.Param{Name: "device", Type: bt.TString, Doc: fmt.Sprintf("the %s device (optional when there is only one)", kind)}
	if names := l.names(kind); len(names) > 0 {
		p.Type, p.Enum = bt.TEnum, names
	}
	return p
}

// device resolves a leaf's actuator when the node is compiled, from its device parameter (or
// the only device of the kind), reporting at the node's path what cannot be resolved. (The
// parameter's declaration already refuses a name that is not a device of the kind.)
func (l *LeafKit) device(b *bt.Builder, kind string) actuatorRef {
	raw, _ := b.Raw("device")
	name, _ := raw.(string)
	ref := actuatorRef{index: -1, layout: l.layout, name: name}
	if l.cfg == nil {
		return ref
	}
	names := l.names(kind)
	switch {
	case len(names) == 0:
		b.Errorf("", "the robot config has no %s device", kind)
		return ref
	case name == "" && len(names) > 1:
		b.Errorf("device", "there are several %s devices (%s): name one", kind, strings.Join(names, ", "))
		return ref
	case name == "":
		name = names[0]
	}
	i, ok := l.actIndex[name]
	if !ok || !slices.Contains(names, name) {
		b.Errorf("device", "the robot config has no %s device %q (%s devices: %s)", kind, name, kind, strings.Join(names, ", "))
		return ref
	}
	ref.index, ref.name = i, name
	return ref
}

// leafDoc appends the shared notes to a leaf's documentation.
func leafDoc(s string) string {
	return s + " During an e-stop it returns FAILURE; a driver error while it owns the actuator makes it return ERROR."
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
		a.Emit(n.Index, "error", fmt.Sprintf("%s: parameter %s: %s", n.Type.Name, name, a.NumProblem(p, "a finite number")))
		return 0, false
	}
	return v, true
}
