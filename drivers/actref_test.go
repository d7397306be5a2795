package drivers

import (
	"errors"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

// TestDeviceResolvedAtCompile: a leaf naming a device the config lacks, or a device of another
// kind, is refused when the mission is compiled, at the node's path.
func TestDeviceResolvedAtCompile(t *testing.T) {
	cfg := parse(t, allKinds)
	noLED := parse(t, `
adaptors: {b: {kind: sim}}
devices:
  - {name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"},
     wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.4, max_angular: 2}
`)
	ok := nd("Succeed", "", nil)
	for _, tc := range []struct {
		name     string
		cfg      *Config
		trees    map[string]*bt.NodeDef
		path     string
		contains string
	}{
		{"missing device", cfg,
			map[string]*bt.NodeDef{"main": nd("Sequence", "", nil, ok, nd("Led", "", kv{"device": "headlight"}))},
			"/trees/main/children/1/params/device", `"headlight" is not one of status`},
		{"wrong kind", cfg,
			map[string]*bt.NodeDef{"main": nd("Sequence", "", nil, ok, nd("Servo", "", kv{"angle": 90, "device": "base"}))},
			"/trees/main/children/1/params/device", `"base" is not one of camera`},
		{"wrong kind, none of the kind", noLED,
			map[string]*bt.NodeDef{"main": nd("Sequence", "", nil, ok, nd("Led", "", kv{"device": "base"}))},
			"/trees/main/children/1", "the robot config has no led device"},
		{"in a subtree", cfg,
			map[string]*bt.NodeDef{
				"main":   nd("SubTree", "", kv{"tree": "lights"}),
				"lights": nd("Sequence", "", nil, nd("Relay", "", kv{"on": true, "device": "status"}))},
			"/trees/lights/children/0/params/device", `"status" is not one of pump`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := registry(tc.cfg).Compile(&bt.Spec{Trees: tc.trees, Main: "main"})
			var ps bt.Problems
			if tree != nil || !errors.As(err, &ps) {
				t.Fatalf("compiled (%v), want problems", err)
			}
			for _, p := range ps {
				if p.Path == tc.path && p.Code == bt.CodeValidation && strings.Contains(p.Message, tc.contains) {
					return
				}
			}
			t.Errorf("want %s: ...%s...; got %v", tc.path, tc.contains, ps)
		})
	}
}

// TestLeavesOnAnotherParseOfTheConfig: the device a leaf resolved at compile time is found on
// any robot built from the same config, here parsed separately.
func TestLeavesOnAnotherParseOfTheConfig(t *testing.T) {
	tree := compileTree(t, parse(t, allKinds), nd("Sequence", "", nil,
		nd("Led", "", kv{"mode": "on"}), nd("Drive", "", kv{"linear": 0.2})))
	g := newRig(t, parse(t, allKinds))
	ar := newAgentRig(t, g, tree, 20)
	if st := ar.tick(); st != bt.Running {
		t.Fatalf("%v %s", st, ar.sink)
	}
	if l, r := g.sim.Wheels(); l != 0.4 || r != 0.4 || g.pin("7") != 1 {
		t.Errorf("wheels %v %v, led %d", l, r, g.pin("7"))
	}
}

// TestLeavesOnARobotWithOtherActuators: a robot whose actuators differ from the config the
// mission was compiled for is never driven by index: the leaves return ERROR and say why once.
func TestLeavesOnARobotWithOtherActuators(t *testing.T) {
	cfg := parse(t, allKinds)
	// Without the camera servo, index 2 (the led "status" in allKinds) is the relay "pump".
	other := parse(t, strings.Replace(allKinds, "  - {name: camera, kind: servo, pin: \"12\", min_angle: 30, max_angle: 150, safe_angle: 90}\n", "", 1))
	g := newRig(t, other)
	ar := newAgentRig(t, g, compileTree(t, cfg, nd("Led", "", kv{"mode": "on"})), 20)
	for k := range 3 {
		if st := ar.tick(); st != bt.Error {
			t.Fatalf("tick %d: %v", k, st)
		}
	}
	if g.pin("36") == 1 || g.pin("7") == 1 {
		t.Errorf("a leaf drove a robot with other actuators: pump %d, status %d", g.pin("36"), g.pin("7"))
	}
	msgs := ar.sink.String()
	if strings.Count(msgs, "\n") != 0 || !strings.Contains(msgs, `Led: robot "rover" has other actuators (diff_drive base, led status, relay pump,`) ||
		!strings.Contains(msgs, `than the hardware config the mission was compiled with (diff_drive base, servo camera, led status,`) {
		t.Errorf("want one message naming both actuator lists, got %q", msgs)
	}
}

// TestLeavesWithoutAConfig: leaves registered without a config compile (catalogs, tools) but
// have nothing to drive.
func TestLeavesWithoutAConfig(t *testing.T) {
	tree, err := registry(nil).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": nd("Drive", "", kv{"linear": 0.1})}, Main: "main"})
	if err != nil {
		t.Fatal(err)
	}
	g := newRig(t, parse(t, allKinds))
	ar := newAgentRig(t, g, tree, 20)
	for range 2 {
		if st := ar.tick(); st != bt.Error {
			t.Fatalf("%v", st)
		}
	}
	if msgs := ar.sink.String(); strings.Count(msgs, "\n") != 0 || !strings.Contains(msgs, "registered without a hardware config") {
		t.Errorf("want one message, got %q", msgs)
	}
	if l, r := g.sim.Wheels(); l != 0 || r != 0 {
		t.Errorf("wheels %v %v", l, r)
	}
}
