package gpio

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
	"github.com/botd-project/botd/drivers/sim"
)

// allKinds is a sim config with a device of every gpio kind and the sensors of the core.
const allKinds = `
adaptors:
  board: {kind: sim}
devices:
  - {name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"},
     wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.4, max_angular: 2}
  - {name: camera, kind: servo, pin: "12", min_angle: 30, max_angle: 150, safe_angle: 90}
  - {name: status, kind: led, pin: "7"}
  - {name: pump, kind: relay, pin: "36"}
  - {name: horn, kind: buzzer, pin: "38"}
  - {name: flag, kind: digital_out, pin: "40", safe: 1, active_low: true}
  - {name: fan, kind: pwm_out, pin: "32", max_duty: 0.8, safe: 0.1}
  - {name: front, kind: range, trig: "18", echo: "22", key: range.front}
  - {name: battery, kind: battery, pin: A0}
  - {name: imu, kind: imu}
  - {name: bumper, kind: bump, pin: "29"}
  - {name: pose, kind: pose}
`

// simRig is one robot on the sim board, in sync mode on a virtual clock: advance moves the
// world and samples.
type simRig struct {
	t     testing.TB
	world *sim.World
	robot *drivers.Robot
	board *sim.Adaptor
	sim   *sim.Robot
	clock *drivertest.Clock
}

// buildRig builds cfg's robot without starting it; the test's cleanup closes it.
func buildRig(t testing.TB, cfg *drivers.Config) *simRig {
	t.Helper()
	drivertest.SkipOffLinux(t)
	w := sim.DefaultWorld()
	c := drivertest.NewClock()
	r, err := drivers.Build(cfg, drivers.Options{World: w, Name: "rover", Now: c.Now, Sync: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	a, _ := r.Adaptor("board")
	return &simRig{t: t, world: w, robot: r, board: a.(*sim.Adaptor), sim: r.SimRobot(), clock: c}
}

// newRig builds and starts cfg's robot.
func newRig(t testing.TB, cfg *drivers.Config) *simRig {
	t.Helper()
	g := buildRig(t, cfg)
	if err := g.robot.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return g
}

func (g *simRig) apply() {
	g.t.Helper()
	if err := g.robot.Apply(); err != nil {
		g.t.Fatalf("apply: %v", err)
	}
}

// pin reads a pin's last written value (-1 if never written).
func (g *simRig) pin(p string) int {
	v, ok := g.board.PinValue(p)
	if !ok {
		return -1
	}
	return v
}

func (g *simRig) servo(p string) int {
	v, ok := g.board.ServoAngle(p)
	if !ok {
		return -1
	}
	return int(v)
}

// advance moves virtual time by d, steps the world and samples the sensors.
func (g *simRig) advance(d time.Duration) time.Time {
	now := g.clock.Now().Add(d)
	g.world.Step(d)
	g.clock.Set(now)
	g.robot.Sample(now)
	return now
}

func parse(t testing.TB, y string) *drivers.Config { return drivertest.Parse(t, kinds(), y) }

// registry returns the node catalog plus the device leaves for cfg (nil: a catalog's).
func registry(cfg *drivers.Config) *bt.Registry {
	if cfg != nil {
		return drivertest.Registry(cfg)
	}
	r := catalog.NewRegistry()
	drivers.Register(r, kinds(), nil)
	return r
}

func nd(typ, name string, params map[string]any, children ...*bt.NodeDef) *bt.NodeDef {
	return &bt.NodeDef{Type: typ, Name: name, Params: params, Children: children}
}

type kv = map[string]any

// compileTree compiles root as main with the device leaves of cfg and its sensor keys.
func compileTree(t testing.TB, cfg *drivers.Config, root *bt.NodeDef) *bt.Tree {
	t.Helper()
	return drivertest.CompileTree(t, cfg, root)
}

// sink keeps emitted messages.
type sink struct {
	mu   sync.Mutex
	msgs []string
}

func (s *sink) Emit(_ *bt.Agent, _ int32, level, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, level+": "+msg)
}

func (s *sink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.msgs, "\n")
}

// agentRig ticks one agent of a tree on a rig at hz: sample, snapshot, tick, apply.
type agentRig struct {
	*simRig
	tree  *bt.Tree
	agent *bt.Agent
	bind  *drivers.Binding
	sink  *sink
	step  time.Duration
}

func newAgentRig(t testing.TB, rig *simRig, tree *bt.Tree, hz float64) *agentRig {
	a := bt.NewAgent(tree, 0, rig.clock.Now().UnixNano())
	s := &sink{}
	a.Env, a.Sink = rig.robot, s
	return &agentRig{simRig: rig, tree: tree, agent: a, bind: rig.robot.Bind(tree), sink: s, step: time.Duration(float64(time.Second) / hz)}
}

// tick runs one tick: the world moves one period, sensors are sampled, the blackboard gets the
// snapshot, the tree ticks and the commands are applied.
func (g *agentRig) tick() bt.Status {
	g.t.Helper()
	now := g.advance(g.step)
	g.bind.Snapshot(&g.agent.BB)
	st := g.agent.Tick(now.UnixNano())
	g.apply()
	return st
}

// run ticks until the root completes or limit ticks passed; it returns the status and the
// ticks taken.
func (g *agentRig) run(limit int) (bt.Status, int) {
	g.t.Helper()
	for k := 1; k <= limit; k++ {
		if st := g.tick(); st != bt.Running {
			return st, k
		}
	}
	return bt.Running, limit
}

// lostPose is a stand-in pose source (kind lost_pose) whose reads fail while lost is set: a
// pose gone stale, for the motion leaves' tests.
type lostPose struct {
	drivers.SampleConfig `yaml:",inline"`
	lost                 *bool
}

func (*lostPose) Kind() string                                 { return "lost_pose" }
func (p *lostPose) Defaults(string)                            { p.SampleConfig.SetDefaults("pose", 20) }
func (p *lostPose) Validate(v *drivers.Validator, path string) { p.SampleConfig.Check(v, path) }
func (*lostPose) Pins() []drivers.Pin                          { return nil }
func (p *lostPose) Keys(string) []drivers.Key {
	return []drivers.Key{{Name: p.Key + ".x"}, {Name: p.Key + ".y"}, {Name: p.Key + ".heading"}}
}
func (p *lostPose) PoseKey() string { return p.Key }

// addLostPose registers lost_pose, whose devices read the simulator's pose until *lost.
func addLostPose(r *drivers.Registry, lost *bool) {
	r.Add(drivers.KindInfo{Name: "lost_pose", New: func() drivers.Spec { return &lostPose{lost: lost} },
		Build: func(b *drivers.Builder) error {
			robot := b.SimBoard().Robot()
			b.QuickSensor(b.Spec().(*lostPose).SampleConfig, func(_ time.Time, vals []float64) error {
				if *lost {
					return errors.New("lost")
				}
				vals[0], vals[1], vals[2] = robot.Pose()
				return nil
			})
			return nil
		}})
}
