package drivers

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/drivers/sim"
)

// The core's tests run robots with the kinds of device families, which the core cannot
// import (they import it); families_test.go, an external test file that may import them,
// fills these in before the tests run.
var (
	// AddTestFamilies adds the families' kinds to a registry.
	AddTestFamilies func(*Registry)
	// TestOdometry reads an odometry family's section, for the mock Pi's rig.
	TestOdometry func(Spec) (TestOdometrySection, bool)
	// TestDrive sets a drive's command (linear m/s, angular rad/s) as a leaf would.
	TestDrive func(r *Robot, device string, o Owner, linear, angular float64, owned bool) error
	// TestDriveWiring reads a drive's section, for the mock Pi's rig.
	TestDriveWiring func(Spec) (TestDriveSection, bool)
)

// TestDriveSection is what the core's tests see of a differential drive's section.
type TestDriveSection struct {
	Motors                              [2]TestMotorPins // left, right
	WheelBase, MaxWheelSpeed, MaxLinear float64
}

// TestMotorPins wire one motor of a drive.
type TestMotorPins struct {
	Speed, Dir, Forward, Backward string
	Reverse                       bool
}

// TestOdometrySection is what the core's tests see of an odometry section.
type TestOdometrySection struct {
	Encoders *TestEncoderWiring // nil: dead reckoning
	IMU      *string            // the gyro it reads ("none": the wheels alone)
}

// TestEncoderWiring is a pair of wheel encoders as the mock Pi's rig plays them.
type TestEncoderWiring struct {
	A, B                     [2]string // each wheel's channels; B "" for a single channel
	Reverse                  [2]bool
	TicksPerRev, WheelRadius float64
}

// testKinds is the families' kinds (AddTestFamilies): the core holds none.
func testKinds() *Registry {
	r := NewRegistry()
	AddTestFamilies(r)
	return r
}

// testSection is what the core's tests read of a sensor section of a family's kind: the
// section marshalled to YAML and decoded here, by the config's own field names.
type testSection struct {
	Address   int     `yaml:"address"`
	Bus       *int    `yaml:"bus"`
	Pin       string  `yaml:"pin"`
	ActiveLow bool    `yaml:"active_low"`
	Trig      string  `yaml:"trig"`
	Echo      string  `yaml:"echo"`
	RateHz    float64 `yaml:"rate_hz"`
	ADC       *struct {
		Address int `yaml:"address"`
	} `yaml:"adc"`
	Scale struct {
		RawMax   int     `yaml:"raw_max"`
		VoltsMax float64 `yaml:"volts_max"`
	} `yaml:"scale"`
}

// sectionOf reads a device's section (see testSection).
func sectionOf(t testing.TB, s Spec) testSection {
	t.Helper()
	data, err := yaml.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out testSection
	if err := yaml.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// fakeSpec is a kind of the core's own tests: a device on one digital input, writing one key.
type fakeSpec struct {
	kind         string
	Pin          string `yaml:"pin"`
	SampleConfig `yaml:",inline"`
}

func fakeKind(name string) KindInfo {
	return KindInfo{Name: name, New: func() Spec { return &fakeSpec{kind: name} }}
}

func (f *fakeSpec) Kind() string                       { return f.kind }
func (f *fakeSpec) Defaults(string)                    { f.SampleConfig.SetDefaults("", 20) }
func (f *fakeSpec) Validate(v *Validator, path string) { f.SampleConfig.Check(v, path) }
func (f *fakeSpec) Pins() []Pin {
	if f.Pin == "" {
		return nil
	}
	return []Pin{{Field: "pin", Pin: f.Pin, Mode: PinIn}}
}
func (f *fakeSpec) Keys(name string) []Key { return []Key{{Name: f.kind + "." + name}} }

// quiet drops the robots' logs in tests.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func loadSimConfig(t testing.TB) *Config {
	t.Helper()
	cfg, err := testKinds().LoadConfig(filepath.Join("..", "configs", "sim.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// allKinds is a sim config with a device of every kind.
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

func parse(t testing.TB, y string) *Config {
	t.Helper()
	cfg, err := testKinds().ParseConfig([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// clock is a settable virtual clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: SimEpoch} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// simRig is one robot on the sim board, in sync mode on a virtual clock: step moves the world
// and samples, as SimFleet.Advance does.
type simRig struct {
	t     testing.TB
	world *sim.World
	robot *Robot
	board *sim.Adaptor
	sim   *sim.Robot
	clock *clock
}

func newRig(t testing.TB, cfg *Config) *simRig {
	t.Helper()
	rig := buildRig(t, cfg)
	if err := rig.robot.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rig
}

// buildRig builds without starting.
func buildRig(t testing.TB, cfg *Config) *simRig {
	t.Helper()
	skipOffLinux(t)
	w := sim.DefaultWorld()
	c := newClock()
	r, err := Build(cfg, Options{World: w, Name: "rover", Now: c.Now, Sync: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	a, _ := r.Adaptor("board")
	return &simRig{t: t, world: w, robot: r, board: a.(*sim.Adaptor), sim: r.SimRobot(), clock: c}
}

// advance moves virtual time by d, steps the world and samples the sensors.
func (g *simRig) advance(d time.Duration) time.Time {
	now := g.clock.Now().Add(d)
	g.world.Step(d)
	g.clock.Set(now)
	g.robot.Sample(now)
	return now
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

// registry returns the built-ins plus the device leaves for cfg.
func registry(cfg *Config) *bt.Registry {
	r := catalog.NewRegistry()
	Register(r, testKinds(), cfg)
	return r
}

func nd(typ, name string, params map[string]any, children ...*bt.NodeDef) *bt.NodeDef {
	return &bt.NodeDef{Type: typ, Name: name, Params: params, Children: children}
}

type kv = map[string]any

// compileTree compiles root as main with the device leaves of cfg and its sensor keys.
func compileTree(t testing.TB, cfg *Config, root *bt.NodeDef, trees ...any) *bt.Tree {
	t.Helper()
	spec := &bt.Spec{Trees: map[string]*bt.NodeDef{"main": root}, Main: "main", Keys: cfg.SensorKeys()}
	for i := 0; i+1 < len(trees); i += 2 {
		spec.Trees[trees[i].(string)] = trees[i+1].(*bt.NodeDef)
	}
	tree, err := registry(cfg).Compile(spec)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return tree
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
	bind  *Binding
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

// snapshot copies the latest samples into a fresh blackboard of a tree that has every sensor
// key, and returns them by key.
func (g *simRig) snapshot(t testing.TB, now time.Time) map[string]float64 {
	t.Helper()
	tree := compileTree(t, g.robot.Config(), nd("Succeed", "", nil))
	a := bt.NewAgent(tree, 0, now.UnixNano())
	g.robot.Bind(tree).Snapshot(&a.BB)
	out := map[string]float64{}
	for _, k := range g.robot.Config().SensorKeys() {
		s, _ := tree.Slot(k)
		if v := a.BB.Get(s); v.Kind() != bt.KindNone {
			f, _ := v.Number()
			out[k] = f
		}
	}
	return out
}

// skipOffLinux skips tests that build robots: Gobot's gpio and i2c drivers need Linux.
func skipOffLinux(t testing.TB) {
	if runtime.GOOS != "linux" {
		t.Skip("Build needs Linux (Gobot's gpio and i2c drivers)")
	}
}
