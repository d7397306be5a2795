package mavlink

import (
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/sim/multicopter"
)

// TestCloseHoldsAFlyingVehicle: a robot closed while its vehicle flies a GoTo (botd stopped
// with SIGINT mid-flight) sends the vehicle its safe state, hold, before the link goes down:
// the simulated multicopter ends up loitering where it is instead of flying on.
func TestCloseHoldsAFlyingVehicle(t *testing.T) {
	sim, g := simCopterRig(t, multicopter.Config{Listen: "127.0.0.1:0", TimeScale: 8})
	r, cfg := g.robot, g.robot.Config()
	tree := compileTree(t, cfg, nd("SequenceWithMemory", "", nil,
		nd("Arm", "", nil),
		nd("Takeoff", "", kv{"alt": 8.0}),
		nd("GoTo", "", kv{"x": 500.0, "y": 0.0, "alt": 8.0, "radius": 1.0, "speed": 5.0}),
	))
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	a.Env, a.Sink = r, &sink{}
	bind := r.Bind(tree)
	deadline := time.Now().Add(30 * time.Second)
	for {
		bind.Snapshot(&a.BB)
		if st := a.Tick(time.Now().UnixNano()); st != bt.Running {
			t.Fatalf("the flight ended %v before the GoTo flew", st)
		}
		if err := r.Apply(); err != nil {
			t.Fatal(err)
		}
		if ss := sim.State(); ss.InAir && ss.Mode != "AUTO.LOITER" && ss.Mode != "AUTO.TAKEOFF" && ss.N > 2 {
			break // flying the GoTo
		}
		if time.Now().After(deadline) {
			t.Fatalf("the GoTo never flew: %+v", sim.State())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	g.waitFor("the vehicle to hold after Close", func() bool { return sim.State().Mode == "AUTO.LOITER" })
}
