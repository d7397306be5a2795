package gpio

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
	"github.com/botd-project/botd/drivers/sim"
)

// TestLeafValidation: the config's limits and devices are enforced when a mission compiles.
func TestLeafValidation(t *testing.T) {
	cfg := parse(t, allKinds)
	twoServos := parse(t, `
adaptors: {b: {kind: sim}}
devices:
  - {name: pan, kind: servo, pin: "12", min_angle: 0, max_angle: 180}
  - {name: tilt, kind: servo, pin: "32", min_angle: 45, max_angle: 135}
`)
	for _, tc := range []struct {
		name     string
		cfg      *drivers.Config
		node     *bt.NodeDef
		path     string
		code     string
		contains string
	}{
		{"drive too fast", cfg, nd("Drive", "", kv{"linear": 0.5}), "/trees/main/params/linear", bt.CodeLimit, "above the limit 0.4"},
		{"drive backward too fast", cfg, nd("Drive", "", kv{"linear": -0.5}), "/trees/main/params/linear", bt.CodeLimit, "below the limit -0.4"},
		{"turn rate", cfg, nd("Drive", "", kv{"angular": 3}), "/trees/main/params/angular", bt.CodeLimit, "above the limit 2"},
		{"turn angle", cfg, nd("Turn", "", kv{"angle_deg": 270}), "/trees/main/params/angle_deg", bt.CodeLimit, "above the limit 180"},
		{"moveto speed", cfg, nd("MoveTo", "", kv{"x": 1, "y": 1, "speed": 1}), "/trees/main/params/speed", bt.CodeLimit, "above the limit 0.4"},
		{"moveto needs y", cfg, nd("MoveTo", "", kv{"x": 1}), "/trees/main/params/y", bt.CodeValidation, "missing required parameter"},
		{"servo range", cfg, nd("Servo", "", kv{"angle": 170}), "/trees/main/params/angle", bt.CodeLimit, "above the limit 150"},
		{"servo of one device", twoServos, nd("Servo", "", kv{"device": "tilt", "angle": 20}), "/trees/main/params/angle", bt.CodeValidation, "outside servo \"tilt\"'s range [45, 135]"},
		{"several servos", twoServos, nd("Servo", "", kv{"angle": 90}), "/trees/main/params/device", bt.CodeValidation, "there are several servo devices (pan, tilt)"},
		{"no such device", cfg, nd("Led", "", kv{"device": "headlight"}), "/trees/main/params/device", bt.CodeValidation, "\"headlight\" is not one of status"},
		{"no device of the kind", twoServos, nd("Led", "", nil), "/trees/main", bt.CodeValidation, "the robot config has no led device"},
		{"pwm duty", cfg, nd("Pwm", "", kv{"duty": 0.9}), "/trees/main/params/duty", bt.CodeLimit, "above the limit 0.8"},
		{"digital value", cfg, nd("DigitalWrite", "", kv{"value": 0.5}), "/trees/main/params/value", bt.CodeValidation, "want 0 or 1"},
		{"buzzer needs on or ms", cfg, nd("Buzzer", "", nil), "/trees/main", bt.CodeValidation, "give either on or ms"},
		{"led blink rate", cfg, nd("Led", "", kv{"mode": "blink", "hz": 100}), "/trees/main/params/hz", bt.CodeLimit, "above the limit 50"},
		{"led mode", cfg, nd("Led", "", kv{"mode": "strobe"}), "/trees/main/params/mode", bt.CodeValidation, "not one of on, off, toggle, blink"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := registry(tc.cfg).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": tc.node}, Main: "main"})
			var ps bt.Problems
			if !errors.As(err, &ps) {
				t.Fatalf("compile: %v, want problems", err)
			}
			for _, p := range ps {
				if p.Path == tc.path && p.Code == tc.code && strings.Contains(p.Message, tc.contains) {
					return
				}
			}
			t.Errorf("want %s (%s) ...%s...; got %v", tc.path, tc.code, tc.contains, ps)
		})
	}
	// Without a config the leaves have no limits beyond their own.
	if _, err := registry(nil).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": nd("Drive", "", kv{"linear": 5, "device": "any"})}, Main: "main"}); err != nil {
		t.Errorf("nil config: %v", err)
	}
}

func TestDriveForMs(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	ar := newAgentRig(t, g, compileTree(t, cfg, nd("Drive", "", kv{"linear": 0.2, "ms": 1000})), 20)
	st, ticks := ar.run(100)
	if st != bt.Success || ticks != 21 {
		t.Fatalf("%v after %d ticks, want SUCCESS after 21 (opened at tick 1, 1000 ms later)", st, ticks)
	}
	x, y, _ := g.sim.Pose()
	if math.Abs(x-0.2) > 1e-6 || math.Abs(y) > 1e-9 {
		t.Errorf("drove to (%v, %v), want 0.2 m straight ahead", x, y)
	}
	if l, r := g.sim.Wheels(); l != 0 || r != 0 {
		t.Errorf("wheels %v %v after Drive completed", l, r)
	}
}

func TestDriveUntilHalted(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	ar := newAgentRig(t, g, compileTree(t, cfg, nd("Drive", "", kv{"linear": 0.1, "angular": 0.5})), 20)
	for range 10 {
		if st := ar.tick(); st != bt.Running {
			t.Fatalf("Drive returned %v", st)
		}
	}
	if v, w := g.sim.Velocity(); math.Abs(v-0.1) > 0.002 || math.Abs(w-0.5) > 0.01 { // PWM steps of 1/255
		t.Errorf("velocity %v %v", v, w)
	}
	ar.agent.HaltAll()
	g.apply()
	if l, r := g.sim.Wheels(); l != 0 || r != 0 {
		t.Errorf("wheels %v %v after halt", l, r)
	}
}

// TestTakeoverIsNotUndone: a Priority moves from a driving branch to another; the halt of the
// replaced Drive must not stop the Drive that took over (MISSIONS.md section 7).
func TestTakeoverIsNotUndone(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	tree := compileTree(t, cfg, nd("Priority", "", nil,
		nd("Sequence", "", nil,
			nd("Check", "", kv{"key": "go_left", "op": "==", "value": true}),
			nd("Drive", "left", kv{"linear": 0.1, "angular": 1})),
		nd("Drive", "straight", kv{"linear": 0.2})))
	ar := newAgentRig(t, g, tree, 20)
	slot, _ := tree.Slot("go_left")
	ar.agent.BB.Set(slot, bt.BoolValue(false))
	ar.tick()
	if l, r := g.sim.Wheels(); l != 0.4 || r != 0.4 {
		t.Fatalf("straight: wheels %v %v", l, r)
	}
	ar.agent.BB.Set(slot, bt.BoolValue(true))
	ar.tick() // "left" opens and commands, then "straight" is halted (unreached)
	l, r := g.sim.Wheels()
	if math.Abs(l-0) > 1e-9 || math.Abs(r-0.4) > 1e-9 {
		t.Fatalf("after the takeover: wheels %v %v, want 0 and 0.4 (0.1 m/s, 1 rad/s)", l, r)
	}
	ar.agent.HaltAll()
	g.apply()
	if l, r := g.sim.Wheels(); l != 0 || r != 0 {
		t.Errorf("wheels %v %v after halting everything", l, r)
	}
}

func TestEStopMakesLeavesFail(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	ar := newAgentRig(t, g, compileTree(t, cfg, nd("Drive", "", kv{"linear": 0.2})), 20)
	ar.tick()
	if err := g.robot.EStop("operator"); err != nil {
		t.Fatal(err)
	}
	if l, r := g.sim.Wheels(); l != 0 || r != 0 {
		t.Fatalf("wheels %v %v right after EStop", l, r)
	}
	if st := ar.tick(); st != bt.Failure {
		t.Errorf("Drive during e-stop: %v, want FAILURE", st)
	}
	if on, why := g.robot.EStopped(); !on || why != "operator" {
		t.Errorf("EStopped %v %q", on, why)
	}
	for _, leaf := range []*bt.NodeDef{
		nd("Servo", "", kv{"angle": 100}), nd("Led", "", kv{"mode": "on"}), nd("Relay", "", kv{"on": true}),
		nd("Buzzer", "", kv{"on": true}), nd("Buzzer", "", kv{"ms": 100}), nd("DigitalWrite", "", kv{"value": 0}),
		nd("Pwm", "", kv{"duty": 0.5}), nd("Turn", "", kv{"angle_deg": 10}), nd("MoveTo", "", kv{"x": 1, "y": 0}),
	} {
		ar := newAgentRig(t, g, compileTree(t, cfg, leaf), 20)
		if st := ar.tick(); st != bt.Failure {
			t.Errorf("%s during e-stop: %v, want FAILURE (%s)", leaf.Type, st, ar.sink)
		}
	}
	if st := newAgentRig(t, g, compileTree(t, cfg, nd("Stop", "", nil)), 20).tick(); st != bt.Success {
		t.Errorf("Stop during e-stop: %v, want SUCCESS", st)
	}
	g.robot.ReleaseEStop()
	if st := ar.tick(); st != bt.Running {
		t.Errorf("Drive after release: %v", st)
	}
}

// TestDriverErrorIsLeafError: a write that fails makes the owning leaf return ERROR on its next
// tick and raises a DRIVER_ERROR fault until writes work again.
func TestDriverErrorIsLeafError(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	ar := newAgentRig(t, g, compileTree(t, cfg, nd("Drive", "", kv{"linear": 0.2})), 20)
	ar.tick()
	if err := g.board.Finalize(); err != nil { // the board goes away
		t.Fatal(err)
	}
	if x, err := drivers.ActuatorOf[DriveCommand](g.robot, "base"); err == nil {
		_ = x.Command(drivers.OwnerOf(ar.agent, &bt.Node{Index: 0}), DriveCommand{Linear: 0.1}, true)
	}
	if err := g.robot.Apply(); err == nil || !errors.Is(err, sim.ErrNotConnected) {
		t.Fatalf("Apply: %v", err)
	}
	var fault *drivers.Fault
	for _, f := range g.robot.Faults() {
		if f.Device == "base" {
			fault = &f
		}
	}
	if fault == nil || fault.Code != drivers.FaultDriverError {
		t.Fatalf("faults %+v", g.robot.Faults())
	}
	st := ar.agent.Tick(g.advance(50 * 1e6).UnixNano())
	if st != bt.Error || !strings.Contains(ar.sink.String(), "not connected") {
		t.Errorf("Drive after a failed write: %v; log %q", st, ar.sink)
	}
	if err := g.board.Connect(); err != nil {
		t.Fatal(err)
	}
	g.apply()
	for _, f := range g.robot.Faults() {
		if f.Device == "base" {
			t.Errorf("fault after writes work again: %+v", f)
		}
	}
}

func TestTurn(t *testing.T) {
	cfg := parse(t, allKinds)
	for _, tc := range []struct {
		name   string
		angle  float64
		noPose bool
	}{{"left 90 on the pose", 90, false}, {"right 45 on the pose", -45, false}, {"left 180 on the imu", 180, true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			if tc.noPose {
				c = parse(t, strings.Replace(allKinds, "  - {name: pose, kind: pose}\n", "", 1))
			}
			g := newRig(t, c)
			g.sim.SetPose(0, 0, 0.3)
			ar := newAgentRig(t, g, compileTree(t, c, nd("Turn", "", kv{"angle_deg": tc.angle})), 20)
			st, ticks := ar.run(400)
			_, _, h := g.sim.Pose()
			got := drivers.WrapAngle(h-0.3) * 180 / math.Pi
			t.Logf("%v after %d ticks, turned %.2f°", st, ticks, got)
			if st != bt.Success || math.Abs(got-tc.angle) > 1 && math.Abs(math.Abs(got)-180) > 1 {
				t.Errorf("%v, turned %.2f° (want %v ± 1)", st, got, tc.angle)
			}
			if _, w := g.sim.Wheels(); w != 0 {
				t.Errorf("still turning")
			}
		})
	}
}

func TestMoveTo(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	ar := newAgentRig(t, g, compileTree(t, cfg, nd("MoveTo", "", kv{"x": -1, "y": 1.5, "tolerance": 0.05, "speed": 0.4})), 20)
	st, ticks := ar.run(2000)
	x, y, _ := g.sim.Pose()
	t.Logf("%v after %d ticks at (%.3f, %.3f)", st, ticks, x, y)
	if st != bt.Success || math.Hypot(x+1, y-1.5) > 0.05 {
		t.Errorf("%v at (%.3f, %.3f)", st, x, y)
	}
}

func TestMoveToNeedsAFreshPose(t *testing.T) {
	noPose := parse(t, strings.Replace(allKinds, "  - {name: pose, kind: pose}\n", "", 1))
	g := newRig(t, noPose)
	ar := newAgentRig(t, g, compileTree(t, noPose, nd("MoveTo", "", kv{"x": 1, "y": 0})), 20)
	if st := ar.tick(); st != bt.Error || !strings.Contains(ar.sink.String(), "pose.x is missing") {
		t.Errorf("no pose: %v %q", st, ar.sink)
	}

	lost := false
	kinds := kinds()
	addLostPose(kinds, &lost)
	cfg := drivertest.Parse(t, kinds, strings.Replace(allKinds, "{name: pose, kind: pose}", "{name: pose, kind: lost_pose}", 1))
	g = newRig(t, cfg)
	ar = newAgentRig(t, g, compileTree(t, cfg, nd("MoveTo", "", kv{"x": 3, "y": 3, "max_age_ms": 200})), 20)
	if st := ar.tick(); st != bt.Running {
		t.Fatalf("fresh pose: %v %s", st, ar.sink)
	}
	// A pose a little late: the base stops and the leaf waits for a fresh
	// one (stale_grace_ms, 1 s by default), then drives on.
	lost = true
	var st bt.Status
	for range 8 { // 400 ms: past max_age_ms, within the grace
		st = ar.tick()
	}
	if l, r := g.sim.Wheels(); st != bt.Running || l != 0 || r != 0 || !strings.Contains(ar.sink.String(), "stopped, waiting up to 1000 ms for a fresh sample") {
		t.Fatalf("late pose: %v, wheels %v %v, %q", st, l, r, ar.sink)
	}
	lost = false
	for range 3 {
		st = ar.tick()
	}
	if l, r := g.sim.Wheels(); st != bt.Running || (l == 0 && r == 0) {
		t.Fatalf("a fresh pose again: %v, wheels %v %v", st, l, r)
	}

	// A pose lost for good: ERROR once it is older than max_age_ms plus
	// the grace, naming the sensor and its age.
	lost = true
	for range 30 { // 1.5 s
		if st = ar.tick(); st != bt.Running {
			break
		}
	}
	if st != bt.Error || !strings.Contains(ar.sink.String(), "pose.x is stale") || !strings.Contains(ar.sink.String(), "no fresh sample within stale_grace_ms 1000") {
		t.Errorf("stale pose: %v %q", st, ar.sink)
	}
	if l, r := g.sim.Wheels(); l != 0 || r != 0 {
		t.Errorf("wheels %v %v after MoveTo failed", l, r)
	}
}

// TestNoRobot: an agent without a robot makes the device leaves return ERROR; each says why
// once per agent, however often it is ticked.
func TestNoRobot(t *testing.T) {
	cfg := parse(t, allKinds)
	for _, leaf := range []*bt.NodeDef{nd("Drive", "", kv{"linear": 0.1}), nd("Servo", "", kv{"angle": 90}), nd("Buzzer", "", kv{"ms": 10})} {
		a := bt.NewAgent(compileTree(t, cfg, leaf), 0, 0)
		s := &sink{}
		a.Sink = s
		for k := range 3 {
			if st := a.Tick(int64(k + 1)); st != bt.Error {
				t.Errorf("%s, tick %d: %v", leaf.Type, k, st)
			}
		}
		if msgs := s.String(); strings.Count(msgs, "\n") != 0 || !strings.HasPrefix(msgs, "error: "+leaf.Type+": the agent has no robot (Env is <nil>)") {
			t.Errorf("%s: want one message, got %q", leaf.Type, msgs)
		}
	}
}

func TestOutputLeaves(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	seq := nd("MemSequence", "", nil,
		nd("Servo", "", kv{"angle": 120}),
		nd("Relay", "", kv{"on": true}),
		nd("DigitalWrite", "", kv{"value": 0}),
		nd("Pwm", "", kv{"duty": 0.5}),
		nd("Led", "", kv{"mode": "toggle"}),
		nd("Buzzer", "", kv{"ms": 200}))
	ar := newAgentRig(t, g, compileTree(t, cfg, seq), 20)
	if st := ar.tick(); st != bt.Running {
		t.Fatalf("%v %s", st, ar.sink)
	}
	for pin, want := range map[string]int{"36": 1, "40": 1, "32": 128, "7": 1, "38": 1} {
		if got := g.pin(pin); got != want {
			t.Errorf("pin %s = %d, want %d", pin, got, want)
		}
	}
	if got := g.servo("12"); got != 120 {
		t.Errorf("servo %d", got)
	}
	st, _ := ar.run(10)
	if st != bt.Success || g.pin("38") != 0 {
		t.Errorf("buzzer: %v, pin %d", st, g.pin("38"))
	}
	if g.pin("36") != 1 || g.servo("12") != 120 {
		t.Error("latched outputs did not stay")
	}
	if err := g.robot.Safe(); err != nil { // mission end
		t.Fatal(err)
	}
	for pin, want := range map[string]int{"36": 0, "40": 0, "32": 26, "7": 0, "38": 0} {
		if got := g.pin(pin); got != want {
			t.Errorf("after Safe: pin %s = %d, want %d", pin, got, want)
		}
	}
}

func TestLedBlinks(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	ar := newAgentRig(t, g, compileTree(t, cfg, nd("Sequence", "", nil, nd("Led", "", kv{"mode": "blink", "hz": 2}), nd("Running", "", nil))), 20)
	var levels []byte
	for range 20 {
		ar.tick()
		levels = append(levels, byte('0'+g.pin("7")))
	}
	// 2 Hz: 250 ms on, 250 ms off, 5 ticks each at 20 Hz. The Led leaf runs every tick; asking
	// for the same blink again keeps the phase.
	if string(levels) != "11111000001111100000" {
		t.Errorf("blinking %s", levels)
	}
	g.robot.Safe()
	ar2 := newAgentRig(t, g, compileTree(t, cfg, nd("Led", "", kv{"mode": "blink", "hz": 2})), 20)
	ar2.tick()
	levels = levels[:0]
	for range 20 {
		ar2.advance(50 * 1e6)
		ar2.apply()
		levels = append(levels, byte('0'+g.pin("7")))
	}
	if string(levels) != "11110000011111000001" {
		t.Errorf("blinking %s", levels)
	}
}

// TestDriveDurationFromTheBlackboardNeverWraps: a Drive whose ms comes from the blackboard
// holding 1e13 (past the 30-day limit; as nanoseconds it would wrap and end at once) is ERROR
// with a reason, and the wheels do not turn.
func TestDriveDurationFromTheBlackboardNeverWraps(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	tree := compileTree(t, cfg, nd("Drive", "", kv{"linear": 0.2, "ms": "{hold_ms}"}))
	ar := newAgentRig(t, g, tree, 20)
	slot, _ := tree.Slot("hold_ms")
	ar.agent.BB.Set(slot, bt.NumberValue(1e13))
	if st := ar.tick(); st != bt.Error {
		t.Fatalf("Drive for 1e13 ms: %v, want ERROR", st)
	}
	if !strings.Contains(ar.sink.String(), "hold_ms") {
		t.Errorf("no reason naming the key: %q", ar.sink.String())
	}
	if l, r := g.sim.Wheels(); l != 0 || r != 0 {
		t.Errorf("wheels %v %v", l, r)
	}
}
