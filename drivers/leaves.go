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

// Register adds to reg the leaves of every kind in kinds (KindInfo.Leaves; MISSIONS.md section
// 7), whether or not cfg has a device of the kind. A kind's leaves may take their parameter
// limits from cfg (the limits its devices are configured with), so a mission asking more is
// refused with LIMIT_EXCEEDED when it is validated. Each leaf
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

// freshNumber reads a numeric slot written within maxAgeMs of the tick.
func freshNumber(a *bt.Agent, s bt.Slot, maxAgeMs float64) (float64, bool) {
	v, ok := a.BB.Number(s)
	if !ok {
		return 0, false
	}
	ts, _ := a.BB.Stamp(s)
	return v, float64(a.Now()-ts) <= maxAgeMs*1e6
}

// leafMem is what every device leaf's per-agent memory starts with.
type leafMem struct {
	ready    bool // Open found the actuator and read every parameter (leaves that open)
	reported bool // why the agent has no actuator for the leaf was said (actuatorRef.use)
	holding  bool // stopped for a fresh sample (holdStale); said once per hold
}

// startTick is the common start of a long leaf's tick: the robot and the
// actuator it drives and its owner token; ok is false (the leaf returns
// ERROR) when its Open failed (and said why), when the agent has no robot
// with the actuator (said once), or when a driver write of this leaf
// failed.
func startTick(a *bt.Agent, n *bt.Node, ref *actuatorRef, m *leafMem) (r *Robot, act *actuator, o owner, ok bool) {
	if !m.ready {
		return nil, nil, owner{}, false
	}
	r, act = ref.use(a, n, &m.reported)
	if act == nil {
		return nil, nil, owner{}, false
	}
	o = owner{a, n.Index}
	if driverError(a, n, r, act, o) {
		return nil, nil, owner{}, false
	}
	return r, act, o, true
}
