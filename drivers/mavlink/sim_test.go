package mavlink

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim/multicopter"
)

// The vehicle kind against the simulated multicopter over UDP: UploadMission, Arm and
// RunMission fly PX4's mission protocol and AUTO.MISSION to the end, back on the ground and
// disarmed; then a GoTo by latitude and longitude (SET_POSITION_TARGET_GLOBAL_INT) and a Land.
func TestVehicleFliesTheSimMulticopter(t *testing.T) {
	sim, g := simCopterRig(t, multicopter.Config{Listen: "127.0.0.1:0", TimeScale: 8, RTLAlt: 15})
	r := g.robot
	home := sim.Config().Home
	north := home.Lat + 30/6371000.0*180/math.Pi
	east := home.Lon + 20/(6371000.0*math.Cos(home.Lat*math.Pi/180))*180/math.Pi
	tree := compileTree(t, r.Config(), nd("SequenceWithMemory", "", nil,
		nd("GpsFix", "", nil),
		nd("UploadMission", "", kv{"waypoints": []any{north, home.Lon, 10.0, north, east, 12.0}, "takeoff_alt": 10.0}),
		nd("Arm", "", nil),
		nd("RunMission", "", nil),
	))
	st, s, _ := g.fly(tree)
	if st != bt.Success {
		t.Fatalf("mission: %s\n%s", st, s)
	}
	g.waitFor("landed and disarmed", func() bool { vs := g.state(); return !vs.inAir() && !vs.armed })
	if ss := sim.State(); ss.MissionCur != 4 || math.Hypot(ss.N, ss.E) > 1 {
		t.Fatalf("the simulator after the mission: %+v (want 4 items flown, home)", ss)
	}

	tree = compileTree(t, r.Config(), nd("SequenceWithMemory", "", nil,
		nd("Arm", "", nil),
		nd("Takeoff", "", kv{"alt": 8.0}),
		nd("GoTo", "", kv{"lat": north, "lon": east, "alt": 8.0, "radius": 1.0}),
		nd("Land", "", nil),
	))
	if st, s, _ := g.fly(tree); st != bt.Success {
		t.Fatalf("GoTo by lat/lon: %s\n%s", st, s)
	}
	ss := sim.State()
	if math.Hypot(ss.N-30, ss.E-20) > 1.5 || ss.InAir || ss.Mode != "AUTO.LAND" {
		t.Fatalf("the simulator after the GoTo and the landing: %+v", ss)
	}
}

// simCopterRig starts the simulated multicopter and a started robot whose
// mavlink_vehicle device flies it, and waits for the vehicle's heartbeat
// and telemetry.
func simCopterRig(t *testing.T, c multicopter.Config) (*multicopter.Vehicle, *uavRig) {
	t.Helper()
	skipOffLinux(t)
	sim, err := multicopter.New(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sim.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; sim.Close() })

	cfg := parse(t, fmt.Sprintf("devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"udpout://%s\", heartbeat_hz: 10}\n", sim.Addr()))
	g := &uavRig{t: t, events: make(chan drivers.Event, 256)}
	r, err := drivers.Build(cfg, drivers.Options{Name: "drone", Logger: quiet, Events: func(e drivers.Event) {
		select {
		case g.events <- e:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	g.robot = r
	g.v, _ = Of(r, "uav")
	g.waitFor("the simulator's heartbeat and telemetry", func() bool {
		st, up := g.v.snapshot()
		return up && st.haveGPS && st.haveGlobal && st.haveLanded && st.autopilot == apPX4
	})
	return sim, g
}
