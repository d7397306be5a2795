// Package drivertest is what the tests of the device families share: parsing a config of the
// kinds under test, compiling a tree of their leaves, a sink for the leaves' messages, waiting
// for a condition, a free UDP port, and a robot on the sim board in virtual time (SimRig).
// Imported by tests only.
package drivertest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/internal/testutil"
)

// Parse parses a config of kinds, failing the test on an error.
func Parse(t testing.TB, kinds *drivers.Registry, y string) *drivers.Config {
	t.Helper()
	cfg, err := kinds.ParseConfig([]byte(y))
	if err != nil {
		t.Fatalf("config:\n%s\n%v", y, err)
	}
	return cfg
}

// Registry returns the node catalog botd compiles missions with plus the
// device leaves of cfg's kinds.
func Registry(cfg *drivers.Config) *bt.Registry {
	r := catalog.NewRegistry()
	drivers.Register(r, cfg.Kinds, cfg)
	return r
}

// Node is a node of a tree to compile.
func Node(typ, name string, params map[string]any, children ...*bt.NodeDef) *bt.NodeDef {
	return &bt.NodeDef{Type: typ, Name: name, Params: params, Children: children}
}

// CompileTree compiles root as the main tree with the device leaves of cfg and its sensor
// keys, failing the test on an error.
func CompileTree(t testing.TB, cfg *drivers.Config, root *bt.NodeDef) *bt.Tree {
	t.Helper()
	tree, err := Registry(cfg).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": root}, Main: "main", Keys: cfg.SensorKeys()})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return tree
}

// Sink keeps what the leaves emit ("level: message" lines).
type Sink struct {
	mu   sync.Mutex
	msgs []string
}

// Emit implements bt.Sink.
func (s *Sink) Emit(_ *bt.Agent, _ int32, level, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, level+": "+msg)
}

func (s *Sink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.msgs, "\n")
}

// WaitUntil waits until cond holds (testutil.Eventually), failing the
// test after 15 s.
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testutil.Eventually(t, 15*time.Second, what, cond)
}

// FreeUDPPort returns a UDP port on 127.0.0.1 free a moment ago.
func FreeUDPPort(t testing.TB) int {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// SkipOffLinux skips a test that builds a robot: Build needs Linux.
func SkipOffLinux(t testing.TB) {
	if runtime.GOOS != "linux" {
		t.Skip("Build needs Linux (Gobot's gpio and i2c drivers)")
	}
}

// Clock is a settable virtual clock, starting at drivers.SimEpoch.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at drivers.SimEpoch.
func NewClock() *Clock { return &Clock{t: drivers.SimEpoch} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set sets the clock's time.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// SimRig is one robot named "rover" on the sim board of a default world, in virtual time:
// built with Options.Sync, so nothing moves or samples but Advance.
type SimRig struct {
	T     testing.TB
	World *sim.World
	Robot *drivers.Robot
	Sim   *sim.Robot // the simulated robot
	Clock *Clock
}

// NewSimRig builds and starts cfg's robot (skipping off Linux); the test's cleanup closes it.
func NewSimRig(t testing.TB, cfg *drivers.Config) *SimRig {
	t.Helper()
	SkipOffLinux(t)
	w := sim.DefaultWorld()
	c := NewClock()
	r, err := drivers.Build(cfg, drivers.Options{World: w, Name: "rover", Now: c.Now, Sync: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &SimRig{T: t, World: w, Robot: r, Sim: r.SimRobot(), Clock: c}
}

// Advance moves virtual time by d: it steps the world, sets the clock and samples the sensors
// that are due, as drivers.SimFleet does. It returns the new time.
func (g *SimRig) Advance(d time.Duration) time.Time {
	now := g.Clock.Now().Add(d)
	g.World.Step(d)
	g.Clock.Set(now)
	g.Robot.Sample(now)
	return now
}

// Snapshot is every sensor key's latest value (keys never written are left out).
func (g *SimRig) Snapshot() map[string]float64 {
	out := map[string]float64{}
	for _, k := range g.Robot.Config().SensorKeys() {
		if v, _, ok := g.Robot.Reading(k); ok {
			out[k] = v
		}
	}
	return out
}
