package drivers

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/sim"
)

// mission is the part of a botd mission document these tests need (drivers does not import
// missions, which imports drivers).
type mission struct {
	TickHz     float64                `json:"tick_hz"`
	Seed       uint64                 `json:"seed"`
	Blackboard map[string]any         `json:"blackboard"`
	Main       string                 `json:"main"`
	Trees      map[string]*bt.NodeDef `json:"trees"`
}

func loadMission(t testing.TB, cfg *Config, name string) (*bt.Tree, float64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "configs", "missions", name))
	if err != nil {
		t.Fatal(err)
	}
	var m mission
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	tree, err := registry(cfg).Compile(&bt.Spec{Trees: m.Trees, Main: m.Main, Blackboard: m.Blackboard, Seed: m.Seed, Keys: cfg.SensorKeys()})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tree, m.TickHz
}

// fleetRun ticks one agent per robot of a SimFleet on virtual time: tick k at k/hz seconds,
// each tick Advance, Snapshot, Tick, Apply.
type fleetRun struct {
	t      testing.TB
	fleet  *SimFleet
	agents []*bt.Agent
	binds  []*Binding
	sinks  []*sink
	hz     float64
	ticks  int
	status []bt.Status
	start  time.Duration // tick k is at start + k/hz
}

func newFleetRun(t testing.TB, cfg *Config, tree *bt.Tree, hz float64, n int) *fleetRun {
	t.Helper()
	skipOffLinux(t)
	f, err := NewSimFleet(cfg, sim.DefaultWorld(), n, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("fleet close: %v", err)
		}
	})
	run := &fleetRun{t: t, fleet: f, hz: hz, status: make([]bt.Status, n)}
	for i := range n {
		a := bt.NewAgent(tree, i, SimEpoch.UnixNano())
		s := &sink{}
		a.Env, a.Sink = f.Robot(i), s
		run.agents = append(run.agents, a)
		run.binds = append(run.binds, f.Robot(i).Bind(tree))
		run.sinks = append(run.sinks, s)
	}
	return run
}

// tick runs one tick of every agent still running; it reports whether any still runs.
func (r *fleetRun) tick() bool {
	r.ticks++
	now := SimEpoch.Add(r.start + time.Duration(float64(r.ticks)*float64(time.Second)/r.hz))
	r.fleet.Advance(now)
	running := false
	for i, a := range r.agents {
		if r.status[i] != bt.Idle && r.status[i] != bt.Running {
			continue
		}
		r.binds[i].Snapshot(&a.BB)
		r.status[i] = a.Tick(now.UnixNano())
		if r.status[i] != bt.Running {
			_ = r.fleet.Robot(i).Safe() // mission end
		}
		if err := r.fleet.Robot(i).Apply(); err != nil {
			r.t.Fatalf("agent %d apply: %v", i, err)
		}
		running = running || r.status[i] == bt.Running
	}
	return running
}

func (r *fleetRun) run(limit int) {
	for r.ticks < limit && r.tick() {
	}
}

// TestPatrolMission runs configs/missions/patrol.json on the default simulated rover: two
// rounds of the patrol, turning away from the crate the range sensor sees, then home.
func TestPatrolMission(t *testing.T) {
	cfg := loadSimConfig(t)
	tree, hz := loadMission(t, cfg, "patrol.json")
	run := newFleetRun(t, cfg, tree, hz, 1)
	run.run(5000)
	rb := run.fleet.Robot(0).SimRobot()
	x, y, h := rb.Pose()
	log := run.sinks[0].String()
	t.Logf("%v after %d ticks (%.1f s): pose (%.3f, %.3f) heading %.1f°, odometer %.2f m, battery %.1f%%\n%s",
		run.status[0], run.ticks, float64(run.ticks)/hz, x, y, h*180/math.Pi, rb.Odometer(), rb.Battery().Charge*100, log)
	if run.status[0] != bt.Success {
		t.Fatalf("mission ended %v after %d ticks", run.status[0], run.ticks)
	}
	if d := math.Hypot(x, y); d > 0.06 {
		t.Errorf("ended %.3f m from home", d)
	}
	if n := strings.Count(log, "obstacle at"); n != 2 {
		t.Errorf("turned away from an obstacle %d times, want 2 (once a round)", n)
	}
	if strings.Contains(log, "battery low") || strings.Contains(log, "error") {
		t.Errorf("unexpected log:\n%s", log)
	}
	if rb.Bumped() {
		t.Error("the rover is touching something")
	}
	if l, r := rb.Wheels(); l != 0 || r != 0 {
		t.Errorf("wheels %v %v after the mission", l, r)
	}
	if run.ticks > 4000 {
		t.Errorf("took %d ticks", run.ticks)
	}
}

// TestPatrolLowBattery: the battery drops mid-patrol and the rover goes home at once.
func TestPatrolLowBattery(t *testing.T) {
	cfg := loadSimConfig(t)
	tree, hz := loadMission(t, cfg, "patrol.json")
	run := newFleetRun(t, cfg, tree, hz, 1)
	rb := run.fleet.Robot(0).SimRobot()
	for run.ticks < 400 && run.tick() {
	}
	x0, y0, _ := rb.Pose()
	if math.Hypot(x0, y0) < 1 {
		t.Fatalf("the rover is still near home at (%.2f, %.2f)", x0, y0)
	}
	rb.SetBatteryCharge(0.03)
	run.run(5000)
	x, y, _ := rb.Pose()
	log := run.sinks[0].String()
	t.Logf("battery dropped at (%.2f, %.2f) after 400 ticks; %v after %d ticks at (%.3f, %.3f)\n%s",
		x0, y0, run.status[0], run.ticks, x, y, log)
	if run.status[0] != bt.Success {
		t.Fatalf("mission ended %v", run.status[0])
	}
	if !strings.Contains(log, "battery low") {
		t.Error("no low-battery message")
	}
	if d := math.Hypot(x, y); d > 0.06 {
		t.Errorf("ended %.3f m from home", d)
	}
	if run.ticks > 400+int(hz)*30 {
		t.Errorf("took %d ticks to get home from (%.2f, %.2f)", run.ticks-400, x0, y0)
	}
}

// TestPatrolOnOdometry runs the same patrol on configs/sim-odometry.yaml: MoveTo and Turn read
// the odometry (quadrature encoders fused with the gyro, on the very code a Pi runs) while the
// simulated rover's encoders are noisy, its wheels slip unevenly and its gyro has a bias. The
// patrol still succeeds; the test reports how far the odometry and the rover drifted apart.
func TestPatrolOnOdometry(t *testing.T) {
	cfg, err := testKinds().LoadConfig(filepath.Join("..", "configs", "sim-odometry.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tree, hz := loadMission(t, cfg, "patrol.json")
	run := newFleetRun(t, cfg, tree, hz, 1)
	// The rover stands still for a second after it starts, as it does before a mission is
	// sent: the odometry learns the gyro's bias (0.3°/s here, 20° over the patrol).
	for i := 1; i <= 50; i++ {
		run.fleet.Advance(SimEpoch.Add(time.Duration(i) * 20 * time.Millisecond))
	}
	run.start = time.Second
	run.run(5000)
	robot := run.fleet.Robot(0)
	rb := robot.SimRobot()
	x, y, h := rb.Pose()
	ox, _, _ := robot.Reading("pose.x")
	oy, _, _ := robot.Reading("pose.y")
	oh, _, _ := robot.Reading("pose.heading")
	sigma, _, _ := robot.Reading("pose.sigma")
	lc, rc, dropped := rb.EncoderCounts()
	log := run.sinks[0].String()
	t.Logf("%v after %d ticks (%.1f s); the rover ends at (%.3f, %.3f) %.1f°, %.3f m from home; its odometry says (%.3f, %.3f) %.1f°: "+
		"%.3f m and %.2f° off after %.2f m (sigma %.3f m); encoders %.0f/%.0f counts, %d edges dropped\n%s",
		run.status[0], run.ticks, float64(run.ticks)/hz, x, y, h*180/math.Pi, math.Hypot(x, y), ox, oy, oh*180/math.Pi,
		math.Hypot(ox-x, oy-y), math.Abs(WrapAngle(oh-h))*180/math.Pi, rb.Odometer(), sigma, lc, rc, dropped, log)
	if run.status[0] != bt.Success {
		t.Fatalf("mission ended %v after %d ticks", run.status[0], run.ticks)
	}
	// Home is reached within 5 cm of what the odometry believes; the rest is its drift.
	if d := math.Hypot(x, y); d > 0.2 {
		t.Errorf("ended %.3f m from home", d)
	}
	if n := strings.Count(log, "obstacle at"); n != 2 {
		t.Errorf("turned away from an obstacle %d times, want 2 (once a round)", n)
	}
	if strings.Contains(log, "error") || rb.Bumped() {
		t.Errorf("an error or a bump:\n%s", log)
	}
	if dropped != 0 {
		t.Errorf("%d encoder edges dropped", dropped)
	}
	if f := robot.Faults(); len(f) > 0 {
		t.Errorf("faults: %+v", f)
	}
}
