package drivers

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/sim/multicopter"
)

// TestCloseHoldsAFlyingVehicle: a robot closed while its vehicle flies a GoTo (botd stopped
// with SIGINT mid-flight) sends the vehicle its safe state, hold, before the link goes down:
// the simulated multicopter ends up loitering where it is instead of flying on.
func TestCloseHoldsAFlyingVehicle(t *testing.T) {
	skipOffLinux(t)
	sim, err := multicopter.New(multicopter.Config{Listen: "127.0.0.1:0", TimeScale: 8})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sim.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; sim.Close() })

	cfg := parse(t, fmt.Sprintf("devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"udpout://%s\", heartbeat_hz: 10}\n", sim.Addr()))
	r, err := Build(cfg, Options{Name: "drone", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	g := &uavRig{t: t, robot: r, events: make(chan Event, 1)}
	g.v, _ = r.Vehicle("uav")
	g.waitFor("the simulator's heartbeat and telemetry", func() bool {
		st, up := g.v.snapshot()
		return up && st.haveGPS && st.haveGlobal && st.haveLanded && st.autopilot == apPX4
	})
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
