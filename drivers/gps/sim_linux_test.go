//go:build linux

package gps

import (
	"math"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
)

// TestGPSOnTheSim: the gps kind reads the simulated receiver's NMEA: its fixes are the rover's
// position in the local frame, within the receiver's noise, and its heading is the course
// while it moves.
func TestGPSOnTheSim(t *testing.T) {
	cfg := drivertest.Parse(t, kinds(), `
adaptors: {board: {kind: sim, noise: {gps: 0.3, seed: 4}}}
devices:
  - {name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"},
     wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.4, max_angular: 2}
  - {name: gps, kind: gps, origin: {lat: 47.3769, lon: 8.5417}, rate_hz: 5}
`)
	g := drivertest.NewSimRig(t, cfg)
	g.Sim.SetPose(1, 2, math.Pi/2)
	// Drive north at 0.3 m/s: one tick of a Drive leaf, as a mission would start it.
	tree := drivertest.CompileTree(t, cfg, drivertest.Node("Drive", "", map[string]any{"linear": 0.3}))
	a := bt.NewAgent(tree, 0, g.Clock.Now().UnixNano())
	a.Env, a.Sink = g.Robot, &drivertest.Sink{}
	g.Robot.Bind(tree).Snapshot(&a.BB)
	if st := a.Tick(g.Clock.Now().UnixNano()); st != bt.Running {
		t.Fatalf("Drive: %v (%s)", st, a.Sink)
	}
	if err := g.Robot.Apply(); err != nil {
		t.Fatal(err)
	}
	var errs []float64
	for range 100 { // 5 s north at 0.3 m/s
		now := g.Advance(50 * time.Millisecond)
		x, y, _ := g.Sim.Pose()
		if gx, at, ok := g.Robot.Reading("gps.x"); ok && now.Sub(at) < 100*time.Millisecond {
			gy, _, _ := g.Robot.Reading("gps.y")
			errs = append(errs, math.Hypot(gx-x, gy-y))
		}
	}
	v := g.Snapshot()
	var sum float64
	for _, e := range errs {
		sum += e * e
	}
	rms := math.Sqrt(sum / float64(len(errs)))
	t.Logf("%d fixes, %.3f m RMS from the truth (noise 0.3 m per axis); last %v", len(errs), rms, v)
	if len(errs) < 20 || rms > 0.6 || rms < 0.1 {
		t.Errorf("%d fixes, RMS error %.3f m", len(errs), rms)
	}
	if math.Abs(drivers.WrapAngle(v["gps.heading"]-math.Pi/2)) > 0.05 || math.Abs(v["gps.speed"]-0.3) > 0.01 || v["gps.fix"] != 1 {
		t.Errorf("heading %v speed %v fix %v", v["gps.heading"], v["gps.speed"], v["gps.fix"])
	}
}
