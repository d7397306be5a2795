package drivers

import (
	"errors"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/sim"
)

// sensorCase is one sensor kind: how to break it on the simulated board.
type sensorCase struct {
	dev, key string
	fail     func(g *simRig)
	restore  func(g *simRig)
}

func sensorCases() []sensorCase {
	simFault := func(name string, silence bool) func(g *simRig) {
		return func(g *simRig) {
			if silence {
				g.sim.SilenceSensor(name)
			} else {
				g.sim.FailSensor(name, nil)
			}
		}
	}
	restore := func(name string) func(g *simRig) { return func(g *simRig) { g.sim.RestoreSensor(name) } }
	// The sim has no pose fault: the pose device's read is made to fail instead.
	poseFail := func(g *simRig) {
		s := g.robot.byName["pose"].sens
		read := s.read
		s.read = func(now time.Time, v []float64) error { return errors.New("localization lost") }
		g.t.Cleanup(func() { s.read = read })
	}
	return []sensorCase{
		{dev: "front", key: "range.front", fail: simFault(sim.SensorSonar, false), restore: restore(sim.SensorSonar)},
		{dev: "front/silent", key: "range.front", fail: simFault(sim.SensorSonar, true), restore: restore(sim.SensorSonar)},
		{dev: "battery", key: "battery.voltage", fail: simFault(sim.SensorBattery, false), restore: restore(sim.SensorBattery)},
		{dev: "battery/silent", key: "battery.percent", fail: simFault(sim.SensorBattery, true), restore: restore(sim.SensorBattery)},
		{dev: "imu", key: "imu.roll", fail: simFault(sim.SensorIMU, false), restore: restore(sim.SensorIMU)},
		{dev: "imu/silent", key: "imu.yaw", fail: simFault(sim.SensorIMU, true), restore: restore(sim.SensorIMU)},
		{dev: "bumper", key: "bump.bumper", fail: simFault(sim.SensorBump, false), restore: restore(sim.SensorBump)},
		{dev: "pose", key: "pose.x", fail: poseFail},
	}
}

// TestSensorConformance: a failed or silenced sensor keeps its last timestamp, so a Check with
// max_age_ms fails, and raises a fault until it works again.
func TestSensorConformance(t *testing.T) {
	cfg := parse(t, allKinds)
	for _, tc := range sensorCases() {
		t.Run(tc.dev, func(t *testing.T) {
			dev, _, _ := cut(tc.dev, "/")
			g := newRig(t, cfg)
			check := kv{"key": tc.key, "op": ">", "value": -1e9, "max_age_ms": 700}
			if dev == "bumper" {
				check["op"], check["value"] = "==", false // a boolean
			}
			tree := compileTree(t, cfg, nd("Check", "", check))
			ar := newAgentRig(t, g, tree, 10)
			if st := ar.tick(); st != bt.Success {
				t.Fatalf("healthy: Check is %v", st)
			}
			s, _ := tree.Slot(tc.key)
			stamp, _ := ar.agent.BB.Stamp(s)
			tc.fail(g)
			var st bt.Status
			for range 8 {
				st = ar.tick()
			}
			if st != bt.Failure {
				t.Errorf("broken for 0.8 s: Check is %v, want FAILURE (stale)", st)
			}
			if now, _ := ar.agent.BB.Stamp(s); now != stamp {
				t.Errorf("the stamp moved from %d to %d", stamp, now)
			}
			var found *Fault
			for _, f := range g.robot.Faults() {
				if f.Device == dev {
					found = &f
				}
			}
			switch {
			case found == nil:
				t.Fatalf("no fault for %s: %+v", dev, g.robot.Faults())
			case found.Code != FaultSensorError || found.Key != tc.key && dev != "battery" && dev != "imu":
				t.Errorf("fault %+v", *found)
			case found.Since.IsZero() || found.Message == "":
				t.Errorf("fault without time or message: %+v", *found)
			}
			t.Logf("%s: %s %s", dev, found.Code, found.Message)
			if tc.restore == nil {
				return
			}
			tc.restore(g)
			for range 3 {
				st = ar.tick()
			}
			if st != bt.Success {
				t.Errorf("restored: Check is %v", st)
			}
			if f := g.robot.Faults(); len(f) != 0 {
				t.Errorf("faults after restore: %+v", f)
			}
		})
	}
}

// TestBumpSilenceIsUndetectable documents a limit: a released switch and a cut wire read the
// same, so a silenced bump switch reads "not pressed" with fresh samples and no fault.
func TestBumpSilenceIsUndetectable(t *testing.T) {
	g := newRig(t, parse(t, allKinds))
	g.sim.SilenceSensor(sim.SensorBump)
	now := g.advance(time.Second)
	if v := g.snapshot(t, now)["bump.bumper"]; v != 0 {
		t.Errorf("bump = %v", v)
	}
	if f := g.robot.Faults(); len(f) != 0 {
		t.Errorf("faults %+v", f)
	}
}

// TestSensorStale: a sensor nobody samples goes stale.
func TestSensorStale(t *testing.T) {
	g := newRig(t, parse(t, allKinds))
	g.advance(100 * time.Millisecond)
	if f := g.robot.Faults(); len(f) != 0 {
		t.Fatalf("faults %+v", f)
	}
	g.clock.Set(g.clock.Now().Add(time.Second)) // time passes without Sample
	stale := map[string]bool{}
	for _, f := range g.robot.Faults() {
		if f.Code != FaultSensorStale {
			t.Errorf("fault %+v", f)
		}
		stale[f.Device] = true
	}
	// Stale after: range 500 ms, imu 500 ms, bump 500 ms, pose 500 ms; battery 1.5 s.
	for _, d := range []string{"front", "imu", "bumper", "pose"} {
		if !stale[d] {
			t.Errorf("%s is not stale", d)
		}
	}
	if stale["battery"] {
		t.Error("battery is stale after 1.1 s (stale_after_ms 1500)")
	}
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}
