//go:build linux

package drivers

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
)

// TestRaspiPatrol runs configs/missions/patrol.json on configs/rover-raspi.yaml as it is, every
// device on gobot's raspi adaptor parts on its mock system access: the TB6612 bridges' PWM
// through pi-blaster and direction pins, the HC-SR04 through its pins' edge events (its echoes
// ray-cast in the simulator's yard), the ADS1115 and the MPU6050 answering gobot's i2c ioctls,
// the bump switch, and the wheel encoders' edge events, which give the pose MoveTo and Turn
// read, fused with the gyro. The rover's right wheel slips 2% and its gyro has a bias; it
// stands still for a second before the mission, as it would before one is sent.
func TestRaspiPatrol(t *testing.T) {
	cfg, err := testKinds().LoadConfig("../configs/rover-raspi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := newPiRig(t, cfg)
	g.slip = [2]float64{0, 0.02}
	g.gyroBias = 0.4 * math.Pi / 180
	tree, hz := loadMission(t, cfg, "patrol.json")
	const dt = 10 * time.Millisecond
	g.run(time.Second, dt)
	a := bt.NewAgent(tree, 0, g.clock.Now().UnixNano())
	s := &sink{}
	a.Env, a.Sink = g.robot, s
	bind := g.robot.Bind(tree)
	per := int(math.Round(1 / hz / dt.Seconds()))
	st, ticks := bt.Running, 0
	var nearest float64 = math.Inf(1)
	for ticks < 5000 && st == bt.Running {
		ticks++
		var now time.Time
		for range per {
			now = g.step(dt)
		}
		for _, b := range g.world.Spec().Boxes { // how close the rover's centre came to a box
			dx := math.Max(math.Max(b.MinX-g.x, 0), g.x-b.MaxX)
			dy := math.Max(math.Max(b.MinY-g.y, 0), g.y-b.MaxY)
			nearest = math.Min(nearest, math.Hypot(dx, dy))
		}
		bind.Snapshot(&a.BB)
		st = a.Tick(now.UnixNano())
		if st != bt.Running {
			_ = g.robot.Safe()
		}
		if err := g.robot.Apply(); err != nil {
			t.Fatalf("apply: %v", err)
		}
	}
	log := s.String()
	d, dh := g.poseError("pose")
	t.Logf("%v after %d ticks (%.1f s): the rover ends at (%.3f, %.3f) %.1f°, %.3f m from home; odometry %.3f m and %.2f° off "+
		"(quality %v, sigma %.3f m); %d pings, nearest box %.2f m; battery %.1f%%\n%s",
		st, ticks, float64(ticks)/hz, g.x, g.y, g.heading*180/math.Pi, math.Hypot(g.x, g.y), d, dh,
		g.reading("pose.quality"), g.reading("pose.sigma"), g.pings, nearest, g.reading("battery.percent"), log)
	if st != bt.Success {
		t.Fatalf("mission ended %v after %d ticks", st, ticks)
	}
	if dist := math.Hypot(g.x, g.y); dist > 0.2 {
		t.Errorf("ended %.3f m from home", dist)
	}
	if n := strings.Count(log, "obstacle at"); n < 1 {
		t.Errorf("never turned away from an obstacle:\n%s", log)
	}
	if strings.Contains(log, "error") || strings.Contains(log, "battery low") {
		t.Errorf("unexpected log:\n%s", log)
	}
	if g.reading("pose.quality") != 0.7 {
		t.Errorf("the pose is not from the encoders and the gyro: quality %v", g.reading("pose.quality"))
	}
	if f := g.robot.Faults(); len(f) > 0 {
		t.Errorf("faults: %+v", f)
	}
	if g.duty(0) != 0 || g.duty(1) != 0 {
		t.Errorf("wheels %v %v after the mission", g.duty(0), g.duty(1))
	}
}
