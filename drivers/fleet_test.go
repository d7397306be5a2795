package drivers

import (
	"math"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/sim"
)

func TestSimFleet(t *testing.T) {
	skipOffLinux(t)
	cfg := loadSimConfig(t)
	w := sim.DefaultWorld()
	f, err := NewSimFleet(cfg, w, 3, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Len() != 3 || f.Robot(2).Name() != "agent-2" || w.Robot("agent-1") != f.Robot(1).SimRobot() {
		t.Fatalf("fleet of %d: %v", f.Len(), f.Robot(2).Name())
	}
	at := SimEpoch.Add(1234567 * time.Microsecond)
	f.Advance(at)
	if w.Elapsed() != 1234567*time.Microsecond || !f.Now().Equal(at) {
		t.Errorf("elapsed %v, now %v", w.Elapsed(), f.Now())
	}
	f.Advance(at.Add(-time.Second)) // the past: no step
	if w.Elapsed() != 1234567*time.Microsecond {
		t.Errorf("elapsed %v after a step back", w.Elapsed())
	}
	// Each robot drives on its own; they share the world.
	tree := compileTree(t, cfg, nd("Drive", "", kv{"linear": 0.2, "ms": 1000}))
	run := newFleetRun(t, cfg, tree, 20, 2)
	run.run(100)
	for i := range 2 {
		x, _, _ := run.fleet.Robot(i).SimRobot().Pose()
		if run.status[i] != bt.Success || math.Abs(x-0.2) > 1e-6 {
			t.Errorf("agent %d: %v at x=%v", i, run.status[i], x)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestSimFleetErrors(t *testing.T) {
	skipOffLinux(t)
	cfg := loadSimConfig(t)
	if _, err := NewSimFleet(cfg, nil, 1, quiet); err == nil {
		t.Error("nil world")
	}
	if _, err := NewSimFleet(cfg, sim.DefaultWorld(), 0, quiet); err == nil {
		t.Error("no robots")
	}
	w := sim.DefaultWorld()
	w.AddRobot("agent-1", sim.RobotConfig{})
	if _, err := NewSimFleet(cfg, w, 2, quiet); err == nil {
		t.Error("name clash")
	}
}

// TestPatrolFleet: three rovers run the patrol in one world, each on its own.
func TestPatrolFleet(t *testing.T) {
	cfg := loadSimConfig(t)
	tree, hz := loadMission(t, cfg, "patrol.json")
	run := newFleetRun(t, cfg, tree, hz, 3)
	run.run(5000)
	for i := range 3 {
		x, y, _ := run.fleet.Robot(i).SimRobot().Pose()
		if run.status[i] != bt.Success || math.Hypot(x, y) > 0.06 {
			t.Errorf("agent %d: %v at (%.3f, %.3f)", i, run.status[i], x, y)
		}
	}
	t.Logf("%d ticks", run.ticks)
}
