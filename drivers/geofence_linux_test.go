//go:build linux

package drivers

import (
	"testing"
	"time"
)

// The fence monitor on the simulated rover, on virtual time: driving at the edge at 0.4 m/s,
// the fence trips one reaction time (0.5 s) before the margin, the rover's fence action stops
// the drive, and the rover stands inside the margin line. The check reads Robot.Reading and
// allocates nothing.
func TestFenceStopsTheSimRover(t *testing.T) {
	g := newRig(t, loadSimConfig(t))
	f := localFence(t, [][2]float64{{-1, -1}, {2, -1}, {2, 1}, {-1, 1}}, 0.3)
	m := NewFenceMonitor(f, g.robot.Reading)
	acts := g.robot.FenceActions()
	if len(acts) != 1 {
		t.Fatalf("fence actions of the rover: %v", acts)
	}
	if err := TestDrive(g.robot, "base", owner{}, 0.4, 0, false); err != nil {
		t.Fatal(err)
	}
	g.apply()
	var trip FenceCheck
	for i := 0; i < 200 && trip.State == FenceInside; i++ {
		now := g.advance(50 * time.Millisecond)
		if c := m.Check(now); c.State != FenceInside {
			trip = c
		}
	}
	if trip.State != FenceNear {
		t.Fatalf("the fence did not trip before the edge: %+v", trip)
	}
	if err := acts[0].Hold(); err != nil {
		t.Fatal(err)
	}
	g.apply()
	for i := 0; i < 20; i++ {
		g.advance(50 * time.Millisecond)
	}
	x, _, _ := g.sim.Pose()
	t.Logf("tripped at x = %.3f (clearance %.3f m at %.2f m/s); stopped at x = %.3f (edge 2, margin line 1.7)", trip.X, trip.Clearance, trip.Speed, x)
	if trip.Clearance > 0.3+0.4*0.5+0.05 || x > 1.7 {
		t.Fatalf("tripped at clearance %.3f, stopped at x = %.3f", trip.Clearance, x)
	}
	now := g.clock.Now()
	if c := m.Check(now); c.State != FenceInside || c.Moving() {
		t.Fatalf("standing: %+v", c)
	}
	if n := testing.AllocsPerRun(100, func() { m.Check(now) }); n != 0 {
		t.Fatalf("%v allocations per check", n)
	}
}
