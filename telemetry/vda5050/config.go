package vda5050

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the daemon config's `vda5050:` section.
type Config struct {
	// Interface is the first topic level [uagv].
	Interface string `yaml:"interface"`
	// Manufacturer and SerialNumber name the vehicle in the topics and in
	// every message; SerialNumber defaults to the robot id.
	Manufacturer string `yaml:"manufacturer"`
	SerialNumber string `yaml:"serial_number"`
	// MapID is the map the robot's pose is in: orders on another map are
	// refused, and agvPosition carries it [default].
	MapID string `yaml:"map_id"`
	// PoseKey is the key prefix of the pose readings (KEY.x, KEY.y,
	// KEY.heading, KEY.quality) [pose].
	PoseKey string `yaml:"pose_key"`
	// Speed is the driving speed when an edge gives no maxSpeed, m/s
	// [0.3]; an edge's maxSpeed only ever lowers it.
	Speed float64 `yaml:"speed"`
	// Tolerance is how close a node counts as reached when the node gives
	// no allowedDeviationXY, m [0.1].
	Tolerance float64 `yaml:"tolerance"`
	// StartTolerance is how far the robot may be from an order's first
	// node, m [0.5]: farther, the order is refused (noRouteError).
	StartTolerance float64 `yaml:"start_tolerance"`
	// StateEvery is the heartbeat of the state topic [30s]; the state is
	// also sent on every change.
	StateEvery time.Duration `yaml:"state_every"`
	// VisualizationHz is the visualization rate [2]; 0 leaves the default.
	VisualizationHz float64 `yaml:"visualization_hz"`
	// MaxNodes bounds an order's nodes (released and horizon) [500].
	MaxNodes int `yaml:"max_nodes"`
	// Username is the broker user of the adapter's connection, with the
	// broker password of botd's main connection [broker.username]. A
	// broker that takes the client id from the user name (deploy/mosquitto's
	// robot listener) needs a user of its own here, such as ROBOT-vda5050:
	// with the main connection's user, the two connections would have one
	// client id and push each other off the broker.
	Username string `yaml:"username"`
	// StateFile keeps the order's progress across a restart of the daemon
	// (set by the daemon: vda5050.json in its state directory).
	StateFile string `yaml:"-"`
	// Actions maps a node or edge actionType to what botd runs for it.
	Actions map[string]ActionConfig `yaml:"actions"`
}

// ActionConfig is what botd runs for one actionType: a node of a botd
// mission (any node type the robot knows, with its children), given as a
// mapping in the config. The action's actionParameters are written to the
// blackboard as vda5050.param.KEY before it runs.
type ActionConfig struct {
	Node map[string]any `yaml:"node"`
	// Prepare, when given, runs before Node: the action is INITIALIZING
	// while it runs, RUNNING once Node opens.
	Prepare     map[string]any `yaml:"prepare"`
	Description string         `yaml:"description"`
	// unknown are the fields the config gave that ActionConfig has not
	// (Validate reports them).
	unknown []string
}

// UnmarshalYAML notes unknown fields for Validate: the daemon's config
// check does not look inside a map's values.
func (a *ActionConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain ActionConfig
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*a = ActionConfig(p)
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k != "node" && k != "prepare" && k != "description" {
				a.unknown = append(a.unknown, k)
			}
		}
	}
	return nil
}

// The checks below are plain loops, not regular expressions: compiled at
// start-up, this package's three took 58 KB of every daemon's heap, VDA 5050
// configured or not.

// isTopicLevel: one or more of A-Z a-z 0-9 _ . : -.
func isTopicLevel(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("_.:-", r))
	}) < 0
}

// isFreeLevel: the factsheet's idLen and the VDA 5050 manufacturer, free
// text but a topic level: not empty, no '/', '+', '#' or NUL.
func isFreeLevel(s string) bool { return s != "" && !strings.ContainsAny(s, "/+#\x00") }

// SetDefaults fills the zero fields but the serial number, which the
// daemon fills in with the robot id it runs as.
func (c *Config) SetDefaults() {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&c.Interface, "uagv")
	def(&c.Manufacturer, "botd")
	def(&c.MapID, "default")
	def(&c.PoseKey, "pose")
	if c.Speed == 0 {
		c.Speed = 0.3
	}
	if c.Tolerance == 0 {
		c.Tolerance = 0.1
	}
	if c.StartTolerance == 0 {
		c.StartTolerance = 0.5
	}
	if c.StateEvery == 0 {
		c.StateEvery = 30 * time.Second
	}
	if c.VisualizationHz == 0 {
		c.VisualizationHz = 2
	}
	if c.MaxNodes == 0 {
		c.MaxNodes = 500
	}
}

// Validate reports every problem, each with its field path under prefix
// (the section's name in the daemon config).
func (c *Config) Validate(prefix string) error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s.%s: %s", prefix, field, fmt.Sprintf(format, args...)))
	}
	if !isTopicLevel(c.Interface) {
		bad("interface", "%q: want letters, digits and _ . : - (one topic level)", c.Interface)
	}
	if !isFreeLevel(c.Manufacturer) {
		bad("manufacturer", "%q: want a topic level (no / + #)", c.Manufacturer)
	}
	if c.SerialNumber != "" && !isTopicLevel(c.SerialNumber) {
		bad("serial_number", "%q: want letters, digits and _ . : - (VDA 5050 restricts it so)", c.SerialNumber)
	}
	if strings.ContainsAny(c.Username, "/+#\x00") {
		bad("username", "%q: want a broker user name", c.Username)
	}
	if c.MapID == "" {
		bad("map_id", "empty")
	}
	for _, f := range []struct {
		name     string
		v        float64
		min, max float64
	}{
		{"speed", c.Speed, 0.01, 100}, {"tolerance", c.Tolerance, 0.01, 100},
		{"start_tolerance", c.StartTolerance, 0.01, 1000}, {"visualization_hz", c.VisualizationHz, 0.1, 50},
	} {
		if math.IsNaN(f.v) || f.v < f.min || f.v > f.max {
			bad(f.name, "%v is outside [%v, %v]", f.v, f.min, f.max)
		}
	}
	if c.StateEvery < time.Second || c.StateEvery > 30*time.Second {
		bad("state_every", "%v is outside [1s, 30s] (VDA 5050 wants a state at least every 30 s)", c.StateEvery)
	}
	if c.MaxNodes < 2 || c.MaxNodes > 10000 {
		bad("max_nodes", "%d is outside [2, 10000]", c.MaxNodes)
	}
	for name, a := range c.Actions {
		if _, ok := predefined[name]; ok {
			bad("actions."+name, "%s is a predefined instant action botd answers itself", name)
		}
		for _, k := range a.unknown {
			bad("actions."+name+"."+k, "unknown field (known: description, node, prepare)")
		}
		if t, _ := a.Node["type"].(string); t == "" {
			bad("actions."+name+".node", "want a mission node with a type ({type: Wait, params: {ms: 1000}})")
		}
		if t, _ := a.Prepare["type"].(string); a.Prepare != nil && t == "" {
			bad("actions."+name+".prepare", "want a mission node with a type, or no prepare")
		}
	}
	return errors.Join(errs...)
}
