package mavlink

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/internal/mavtest"
	"github.com/botd-project/botd/internal/testutil"
)

// uavRig is a robot with one mavlink_vehicle connected to a fake autopilot, in real time.
type uavRig struct {
	t      *testing.T
	ap     *mavtest.Autopilot
	robot  *drivers.Robot
	v      *Vehicle
	events chan drivers.Event
}

func newUAVRig(t *testing.T, extra string) *uavRig {
	t.Helper()
	skipOffLinux(t)
	ap := mavtest.New(t)
	cfg := parse(t, fmt.Sprintf(`
devices:
  - {name: uav, kind: mavlink_vehicle, connection: %q, heartbeat_hz: 10, heartbeat_timeout_ms: 600, ack_timeout_ms: 300 %s}
`, ap.Addr(), extra))
	g := &uavRig{t: t, ap: ap, events: make(chan drivers.Event, 256)}
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
	// The robot and the daemon find the vehicle by its abilities alone.
	if s, a := drivers.Abilities[drivers.Settler](r), drivers.Abilities[drivers.Autopilot](r); len(s) != 1 || s[0] != drivers.Settler(g.v) || len(a) != 1 || a[0] != drivers.Autopilot(g.v) {
		t.Fatalf("abilities: settlers %v, autopilots %v; want the vehicle", s, a)
	}
	g.waitFor("the vehicle's heartbeat and telemetry", func() bool {
		st, up := g.v.snapshot()
		return up && st.haveGPS && st.haveGlobal && st.haveLanded
	})
	return g
}

// waitFor polls cond until it holds; the bound only catches a hang.
func (g *uavRig) waitFor(what string, cond func() bool) {
	g.t.Helper()
	testutil.Eventually(g.t, 20*time.Second, what, cond)
}

func (g *uavRig) state() vehicleState {
	st, _ := g.v.snapshot()
	return st
}

// fly ticks tree at 50 Hz until it completes.
func (g *uavRig) fly(tree *bt.Tree) (bt.Status, *sink, *bt.Agent) {
	g.t.Helper()
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	s := &sink{}
	a.Env, a.Sink = g.robot, s
	bind := g.robot.Bind(tree)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		bind.Snapshot(&a.BB)
		st := a.Tick(time.Now().UnixNano())
		if err := g.robot.Apply(); err != nil {
			g.t.Fatal(err)
		}
		if st != bt.Running {
			return st, s, a
		}
		time.Sleep(20 * time.Millisecond)
	}
	g.t.Fatalf("the tree still runs after 30 s; %s; state %+v; messages:\n%s", g.v.detail(), g.state(), s)
	return bt.Running, s, a
}

func TestVehicleFliesArmTakeoffGoToLand(t *testing.T) {
	g := newUAVRig(t, "")
	tree := compileTree(t, g.robot.Config(), nd("SequenceWithMemory", "", nil,
		nd("GpsFix", "", nil),
		nd("Arm", "", nil),
		nd("Armed", "", nil),
		nd("Takeoff", "", kv{"alt": 10.0}),
		nd("InAir", "", nil),
		nd("GoTo", "", kv{"x": 30.0, "y": -20.0, "alt": 15.0, "radius": 0.5, "speed": 5.0}),
		nd("Yaw", "", kv{"heading_deg": 90.0}),
		nd("Land", "", nil),
	))
	st, s, _ := g.fly(tree)
	if st != bt.Success {
		t.Fatalf("mission ended %s:\n%s", st, s)
	}
	vs := g.state()
	if vs.armed || vs.inAir() || vs.mode != modeLand {
		t.Fatalf("after Land: armed %v, in air %v, mode %s", vs.armed, vs.inAir(), vs.mode)
	}
	if vs.x != 30 || vs.y != -20 {
		t.Fatalf("landed at (%v, %v), not at the GoTo target (30, -20)", vs.x, vs.y)
	}
	g.ap.Mu.Lock()
	sp := g.ap.Setpoints
	g.ap.Mu.Unlock()
	if sp == 0 {
		t.Fatal("no position target reached the autopilot")
	}
	// Every command was given once (a retry on a busy machine is the same command).
	for _, c := range []mav.MAV_CMD{mav.MAV_CMD_COMPONENT_ARM_DISARM, mav.MAV_CMD_NAV_TAKEOFF, mav.MAV_CMD_DO_CHANGE_SPEED, mav.MAV_CMD_CONDITION_YAW} {
		if got := g.ap.Confirmations(c); g.ap.Commands(c) != 1 {
			t.Errorf("%s: confirmations %v, want one command", c, got)
		}
	}
	// The telemetry reached the blackboard.
	vals := map[string]float64{}
	for _, k := range []string{"uav.armed", "uav.in_air", "uav.mode", "uav.x", "uav.alt", "uav.battery_percent", "uav.gps_fix"} {
		v, _, ok := g.robot.Reading(k)
		if !ok {
			t.Fatalf("no reading for %s", k)
		}
		vals[k] = v
	}
	g.waitFor("the landed state on the blackboard", func() bool {
		v, _, _ := g.robot.Reading("uav.in_air")
		m, _, _ := g.robot.Reading("uav.mode")
		return v == 0 && m == float64(modeLand)
	})
	if vals["uav.battery_percent"] != 90 || vals["uav.gps_fix"] != 3 {
		t.Fatalf("blackboard: %v", vals)
	}
}

func TestVehicleArmDeniedFailsWithTheResult(t *testing.T) {
	g := newUAVRig(t, "")
	g.ap.Set(func(f *mavtest.Autopilot) { f.GPSFix = 1 })
	g.waitFor("no fix", func() bool { return g.state().gpsFix == 1 })
	tree := compileTree(t, g.robot.Config(), nd("Arm", "", nil))
	st, s, _ := g.fly(tree)
	if st != bt.Failure || !strings.Contains(s.String(), "MAV_RESULT_DENIED") || !strings.Contains(s.String(), "MAV_CMD_COMPONENT_ARM_DISARM") {
		t.Fatalf("Arm without a fix: %s, messages:\n%s", st, s)
	}
	err := g.v.Arm()
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Result != mav.MAV_RESULT_DENIED {
		t.Fatalf("Arm() = %v, want a CommandError DENIED", err)
	}
}

func TestVehicleCommandRetriedThenTimesOut(t *testing.T) {
	g := newUAVRig(t, ", retries: 2")
	g.ap.Set(func(f *mavtest.Autopilot) { f.Silent[mav.MAV_CMD_DO_SET_MODE] = true })
	err := g.v.Hold()
	if err == nil || !strings.Contains(err.Error(), "no COMMAND_ACK after 3 tries") {
		t.Fatalf("Hold() on a silent autopilot = %v", err)
	}
	if got := g.ap.Confirmations(mav.MAV_CMD_DO_SET_MODE); fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("confirmations %v, want [0 1 2]", got)
	}
	g.ap.Set(func(f *mavtest.Autopilot) { delete(f.Silent, mav.MAV_CMD_DO_SET_MODE) })
	for name, f := range map[string]func() error{"Hold": g.v.Hold, "ReturnHome": g.v.ReturnHome, "Land": g.v.Land} {
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	g.ap.Set(func(f *mavtest.Autopilot) { f.Answer[mav.MAV_CMD_DO_SET_MODE] = mav.MAV_RESULT_TEMPORARILY_REJECTED })
	if err := g.v.Land(); err == nil || !strings.Contains(err.Error(), "MAV_RESULT_TEMPORARILY_REJECTED") {
		t.Fatalf("Land() refused = %v", err)
	}
}

func TestVehicleLinkLossIsAFaultNotAHang(t *testing.T) {
	g := newUAVRig(t, "")
	fault := func() (drivers.Fault, bool) {
		for _, f := range g.robot.Faults() {
			if f.Device == "uav" {
				return f, true
			}
		}
		return drivers.Fault{}, false
	}
	if f, ok := fault(); ok {
		t.Fatalf("fault with a live link: %+v", f)
	}
	g.ap.Set(func(f *mavtest.Autopilot) { f.Heartbeat = false })
	g.waitFor("the link-loss fault", func() bool { f, ok := fault(); return ok && f.Code == drivers.FaultSensorError })
	start := time.Now()
	err := g.v.Land()
	if !errors.Is(err, ErrVehicleLink) {
		t.Fatalf("Land() without a link = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("Land() without a link took %v", time.Since(start))
	}
	tree := compileTree(t, g.robot.Config(), nd("Takeoff", "", kv{"alt": 5.0}))
	if st, s, _ := g.fly(tree); st != bt.Failure || !strings.Contains(s.String(), "no link to the vehicle") {
		t.Fatalf("Takeoff without a link: %s\n%s", st, s)
	}
	// A failsafe action given while the link is down goes out when it is back, and the
	// safe state that follows (the mission paused) does not turn it into a hold.
	if handled, err := g.robot.Failsafe("return_home"); !handled || err != nil {
		t.Fatalf("Failsafe: %v %v", handled, err)
	}
	g.ap.Set(func(f *mavtest.Autopilot) { f.Heartbeat = true })
	g.waitFor("the fault to clear", func() bool { _, ok := fault(); return !ok })
	g.waitFor("return mode", func() bool { return g.state().mode == modeReturn })
	if err := g.robot.Safe(); err != nil {
		t.Fatal(err)
	}
	if got := g.ap.Confirmations(mav.MAV_CMD_DO_SET_MODE); g.ap.Commands(mav.MAV_CMD_DO_SET_MODE) != 1 {
		t.Fatalf("set-mode commands %v: want the return only", got)
	}
	seen := map[string]bool{}
	for len(g.events) > 0 {
		seen[(<-g.events).Kind] = true
	}
	if !seen["uav.link_lost"] || !seen["uav.link_restored"] {
		t.Fatalf("events %v", seen)
	}
}

func TestVehicleHaltHoldsAndStopsTargets(t *testing.T) {
	g := newUAVRig(t, "")
	if err := g.v.Arm(); err != nil {
		t.Fatal(err)
	}
	tree := compileTree(t, g.robot.Config(), nd("Sequence", "", nil, // reactive: a finished Takeoff is ticked again
		nd("Takeoff", "", kv{"alt": 5.0}),
		nd("GoTo", "", kv{"x": 5000.0, "y": 0.0, "alt": 5.0}),
	))
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	a.Env, a.Sink = g.robot, &sink{}
	bind := g.robot.Bind(tree)
	tick := func() {
		bind.Snapshot(&a.BB)
		a.Tick(time.Now().UnixNano())
		_ = g.robot.Apply()
		time.Sleep(20 * time.Millisecond)
	}
	g.waitFor("offboard flight", func() bool { tick(); return g.state().mode == modeGuided && g.state().x > 1 })
	a.HaltAll()
	_ = g.robot.Apply()
	g.waitFor("hold after the halt", func() bool { return g.state().mode == modeHold })
	g.ap.Mu.Lock()
	n := g.ap.Setpoints
	g.ap.Mu.Unlock()
	time.Sleep(300 * time.Millisecond) // three setpoint periods: none may come
	g.ap.Mu.Lock()
	after := g.ap.Setpoints
	g.ap.Mu.Unlock()
	if after != n {
		t.Fatalf("%d position targets after the halt", after-n)
	}
}

func TestVehicleEStop(t *testing.T) {
	t.Run("in the air: land", func(t *testing.T) {
		g := newUAVRig(t, "")
		g.takeoff(8)
		_ = g.robot.EStop("test")
		g.waitFor("landing", func() bool { return g.state().mode == modeLand })
		g.waitFor("on the ground, disarmed", func() bool { s := g.state(); return !s.inAir() && !s.armed })
		if err := g.v.ReturnHome(); !errors.Is(err, drivers.ErrEStopped) {
			t.Fatalf("ReturnHome during an e-stop = %v", err)
		}
		tree := compileTree(t, g.robot.Config(), nd("Takeoff", "", kv{"alt": 5.0}))
		if st, _, _ := g.fly(tree); st != bt.Failure {
			t.Fatalf("Takeoff during an e-stop: %s", st)
		}
	})
	t.Run("in the air, the link down: land when it is back", func(t *testing.T) {
		g := newUAVRig(t, "")
		g.takeoff(8)
		g.ap.Set(func(f *mavtest.Autopilot) { f.Heartbeat = false })
		g.waitFor("the link down", func() bool { return !g.v.LinkUp() })
		_ = g.robot.EStop("test")
		g.ap.Set(func(f *mavtest.Autopilot) { f.Heartbeat = true })
		g.waitFor("landing", func() bool { return g.state().mode == modeLand })
	})
	t.Run("motors_off on the ground: disarm", func(t *testing.T) {
		g := newUAVRig(t, ", estop: motors_off")
		if err := g.v.Arm(); err != nil {
			t.Fatal(err)
		}
		g.waitFor("armed", func() bool { return g.state().armed })
		_ = g.robot.EStop("test")
		g.waitFor("disarmed", func() bool { return !g.state().armed })
	})
	t.Run("motors_off in the air, not forced: land", func(t *testing.T) {
		g := newUAVRig(t, ", estop: motors_off")
		g.takeoff(8)
		_ = g.robot.EStop("test")
		g.waitFor("landing", func() bool { return g.state().mode == modeLand })
		if c := g.ap.Confirmations(mav.MAV_CMD_COMPONENT_ARM_DISARM); g.ap.Commands(mav.MAV_CMD_COMPONENT_ARM_DISARM) != 1 {
			t.Fatalf("arm/disarm commands %v: a disarm went out in the air", c)
		}
	})
	t.Run("motors_off in the air, forced: disarm", func(t *testing.T) {
		g := newUAVRig(t, ", estop: motors_off, estop_force: true")
		g.takeoff(8)
		_ = g.robot.EStop("test")
		g.waitFor("disarmed in the air", func() bool { return !g.state().armed })
	})
}

func (g *uavRig) takeoff(alt float64) {
	g.t.Helper()
	if err := g.v.Arm(); err != nil {
		g.t.Fatal(err)
	}
	g.waitFor("armed", func() bool { return g.state().armed })
	g.waitFor("a global position", func() bool { return g.state().haveGlobal })
	if err := g.v.wait(g.v.submit(g.v.takeoffOp(alt))); err != nil {
		g.t.Fatal(err)
	}
	g.waitFor("altitude", func() bool { return g.state().relAlt >= alt-0.1 })
}

func TestVehicleStatusTextBecomesAnEvent(t *testing.T) {
	g := newUAVRig(t, "")
	g.ap.StatusText(mav.MAV_SEVERITY_CRITICAL, "Preflight Fail: Accel uncalibrated")
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-g.events:
			if e.Kind == "uav.statustext" {
				if e.Level != "error" || !strings.Contains(e.Message, "Accel uncalibrated") {
					t.Fatalf("event %+v", e)
				}
				return
			}
		case <-deadline:
			t.Fatal("no uav.statustext event")
		}
	}
}

func TestConfig(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{`connection: ""`, "missing connection"},
		{`connection: 127.0.0.1:14540`, "needs a scheme"},
		{`connection: "udp://:14540"`, "unknown scheme"},
		{`connection: "tcp://:5760"`, "which host"},
		{`connection: "serial:///dev/ttyUSB0"`, "want serial://"},
		{`connection: "serial:///dev/ttyUSB0:fast"`, "bad baud rate"},
		{`connection: "udpin://:14540", autopilot: inav`, "not auto, px4 or ardupilot"},
		{`connection: "udpin://:14540", estop: stop`, "not land or motors_off"},
		{`connection: "udpin://:14540", estop_force: true`, "only with estop: motors_off"},
		{`connection: "udpin://:14540", heartbeat_timeout_ms: 100`, "shorter than one heartbeat period"},
	} {
		_, err := kinds().ParseConfig([]byte("devices:\n  - {name: uav, kind: mavlink_vehicle, " + c.yaml + "}\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.yaml, err, c.want)
		}
	}
	for _, ok := range []string{"udpin://0.0.0.0:14540", "udpin://:0", "udpout://10.0.0.2:14550", "tcp://127.0.0.1:5760", "serial:///dev/ttyAMA0:921600"} {
		if _, err := kinds().ParseConfig([]byte("devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"" + ok + "\"}\n")); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestGoToNeedsOnePlace(t *testing.T) {
	cfg := parse(t, "devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"udpin://:14540\", max_altitude: 50}\n")
	for _, c := range []struct {
		params kv
		want   string
	}{
		{kv{"alt": 10.0}, "where to?"},
		{kv{"x": 1.0, "alt": 10.0}, "x and y go together"},
		{kv{"x": 1.0, "y": 1.0, "lat": 47.0, "lon": 8.0, "alt": 10.0}, "not both"},
		{kv{"x": 1.0, "y": 1.0, "alt": 60.0}, "alt"},
	} {
		_, err := registry(cfg).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": nd("GoTo", "", c.params)}, Main: "main"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.params, err, c.want)
		}
	}
}

func TestVehicleFailsafeActionIsNotUndoneByTheSafeState(t *testing.T) {
	g := newUAVRig(t, "")
	g.takeoff(8)
	g.waitFor("hold after the take-off", func() bool { return g.state().mode == modeHold })
	n := g.ap.Commands(mav.MAV_CMD_DO_SET_MODE)
	// The runner pauses the mission (safe state) right after starting the failsafe action,
	// before the vehicle reports the new mode: no hold may follow the return.
	if _, err := g.robot.Failsafe("return_home"); err != nil {
		t.Fatal(err)
	}
	if err := g.robot.Safe(); err != nil {
		t.Fatal(err)
	}
	g.waitFor("return mode", func() bool { return g.state().mode == modeReturn })
	g.waitFor("landed at home", func() bool { return !g.state().inAir() })
	if got := g.ap.Confirmations(mav.MAV_CMD_DO_SET_MODE); g.ap.Commands(mav.MAV_CMD_DO_SET_MODE) != n+1 {
		t.Fatalf("%d set-mode commands after the failsafe, want 1 (the return)", len(got)-n)
	}
}

func TestVehicleUploadsAndFliesAMission(t *testing.T) {
	g := newUAVRig(t, "")
	tree := compileTree(t, g.robot.Config(), nd("SequenceWithMemory", "", nil,
		nd("UploadMission", "", kv{"waypoints": []any{47.4002, 8.5, 12.0, 47.4002, 8.5004, 12.0, 47.4, 8.5004, 12.0}, "takeoff_alt": 12.0}),
		nd("Arm", "", nil),
		nd("RunMission", "", nil),
	))
	st, s, _ := g.fly(tree)
	if st != bt.Success {
		t.Fatalf("mission: %s\n%s", st, s)
	}
	g.ap.Mu.Lock()
	items := g.ap.Stored[mav.MAV_MISSION_TYPE_MISSION]
	g.ap.Mu.Unlock()
	var cmds []string
	for i, it := range items {
		if int(it.Seq) != i {
			t.Fatalf("item %d has seq %d", i, it.Seq)
		}
		cmds = append(cmds, it.Command.String())
	}
	want := "[MAV_CMD_NAV_TAKEOFF MAV_CMD_NAV_WAYPOINT MAV_CMD_NAV_WAYPOINT MAV_CMD_NAV_WAYPOINT MAV_CMD_NAV_RETURN_TO_LAUNCH]"
	if fmt.Sprint(cmds) != want {
		t.Fatalf("uploaded %v, want %s", cmds, want)
	}
	if items[1].X != 474002000 || items[1].Y != 85000000 || items[1].Z != 12 || items[1].Frame != mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT {
		t.Fatalf("first waypoint %+v", items[1])
	}
	if vs := g.state(); vs.inAir() || vs.armed {
		t.Fatalf("after the mission: in air %v, armed %v", vs.inAir(), vs.armed)
	}
}

func TestVehicleMissionUploadRefusedOrUnanswered(t *testing.T) {
	g := newUAVRig(t, ", retries: 1")
	wps := []Waypoint{{47.4, 8.5, 10}}
	g.ap.Set(func(f *mavtest.Autopilot) { f.MissionAck = mav.MAV_MISSION_NO_SPACE })
	err := g.v.UploadMission(wps, 0, 1, true)
	var me *MissionError
	if !errors.As(err, &me) || me.Result != mav.MAV_MISSION_NO_SPACE {
		t.Fatalf("refused upload: %v", err)
	}
	tree := compileTree(t, g.robot.Config(), nd("RunMission", "", nil))
	if st, s, _ := g.fly(tree); st != bt.Failure || !strings.Contains(s.String(), "UploadMission first") {
		t.Fatalf("RunMission without an upload: %s\n%s", st, s)
	}
	g.ap.Set(func(f *mavtest.Autopilot) { f.IgnoreItems = true })
	if err := g.v.UploadMission(wps, 0, 1, true); err == nil || !strings.Contains(err.Error(), "no MISSION_REQUEST after 2 tries") {
		t.Fatalf("unanswered upload: %v", err)
	}
	g.ap.Set(func(f *mavtest.Autopilot) { f.IgnoreItems, f.MissionAck = false, mav.MAV_MISSION_ACCEPTED })
	if err := g.v.UploadFence([][2]float64{{47.39, 8.49}, {47.41, 8.49}, {47.41, 8.51}, {47.39, 8.51}}); err != nil {
		t.Fatal(err)
	}
	g.ap.Mu.Lock()
	fence := g.ap.Stored[mav.MAV_MISSION_TYPE_FENCE]
	g.ap.Mu.Unlock()
	if len(fence) != 4 || fence[2].Command != mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION || fence[2].Param1 != 4 || fence[2].X != 474100000 {
		t.Fatalf("fence %+v", fence)
	}
	if err := g.v.UploadFence([][2]float64{{47.39, 8.49}, {47.41, 8.49}}); err == nil {
		t.Fatal("a two-vertex fence was uploaded")
	}
}

func TestUploadMissionChecksItsWaypoints(t *testing.T) {
	cfg := parse(t, "devices:\n  - {name: uav, kind: mavlink_vehicle, connection: \"udpin://:14540\", max_altitude: 50}\n")
	for _, c := range []struct {
		wps  []any
		want string
	}{
		{[]any{47.4, 8.5}, "not a multiple of 3"},
		{[]any{97.4, 8.5, 10.0}, "is not a latitude and longitude"},
		{[]any{47.4, 8.5, 80.0}, "not within 0 and 50 m"},
	} {
		_, err := registry(cfg).Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": nd("UploadMission", "", kv{"waypoints": c.wps})}, Main: "main"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.wps, err, c.want)
		}
	}
}

func TestVehicleShutdownOverAFlyingVehicleHolds(t *testing.T) {
	g := newUAVRig(t, "")
	g.takeoff(8)
	if err := g.v.wait(g.v.submit(g.v.gotoOp(setpoint{x: 5000, z: -8, yaw: math.NaN()}, 0))); err != nil {
		t.Fatal(err)
	}
	g.waitFor("guided flight", func() bool { return g.state().mode == modeGuided })
	if err := g.robot.Close(); err != nil {
		t.Fatal(err)
	}
	g.waitFor("hold at the autopilot", g.ap.PX4Hold)
}

// A reactive Sequence re-opens a GoTo every tick: the vehicle gets its position target, not a
// flood of commands.
func TestVehicleGoToTickedAgainSendsNoCommands(t *testing.T) {
	g := newUAVRig(t, "")
	g.takeoff(5)
	tree := compileTree(t, g.robot.Config(), nd("Sequence", "", nil,
		nd("InAir", "", nil),
		nd("GoTo", "", kv{"x": 20.0, "y": 0.0, "alt": 5.0, "speed": 4.0, "radius": 0.5}),
		nd("GoTo", "", kv{"x": 20.0, "y": 0.0, "alt": 5.0, "speed": 4.0, "radius": 0.5}),
		nd("Succeed", "", nil),
	))
	if st, s, _ := g.fly(tree); st != bt.Success {
		t.Fatalf("%s\n%s", st, s)
	}
	if n := g.ap.Commands(mav.MAV_CMD_DO_CHANGE_SPEED); n != 1 {
		t.Fatalf("%d speed commands, want 1", n)
	}
	// (The hold that follows the mission's end, the safe state of a flying vehicle, may come
	// or not by now: only the guided ones count.)
	if n := g.ap.ModeCommands(6); n != 1 {
		t.Fatalf("%d commands to PX4 offboard (guided), want 1", n)
	}
}

// A UAV action that runs ticks without allocating (the tick path allocates nothing in steady
// state).
func TestUAVActionTicksWithoutAllocating(t *testing.T) {
	g := newUAVRig(t, "")
	g.takeoff(5)
	tree := compileTree(t, g.robot.Config(), nd("Sequence", "", nil,
		nd("InAir", "", nil), nd("GpsFix", "", nil),
		nd("GoTo", "", kv{"x": 50000.0, "y": 0.0, "alt": 5.0})))
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	a.Env, a.Sink = g.robot, &sink{}
	bind := g.robot.Bind(tree)
	tick := func() {
		bind.Snapshot(&a.BB)
		if st := a.Tick(time.Now().UnixNano()); st != bt.Running {
			t.Fatalf("GoTo: %s", st)
		}
		_ = g.robot.Apply()
	}
	g.waitFor("guided flight", func() bool { tick(); return g.state().mode == modeGuided })
	if n := testing.AllocsPerRun(100, tick); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
}

// The daemon keeps a global geofence uploaded to the autopilot: once the link is up, and the
// outcome reported, a refusal included.
func TestVehicleKeepsTheFenceUploaded(t *testing.T) {
	g := newUAVRig(t, "")
	fence := [][2]float64{{47.39, 8.49}, {47.41, 8.49}, {47.41, 8.51}, {47.39, 8.51}}
	for _, c := range []struct {
		ack     mav.MAV_MISSION_RESULT
		wantErr bool
	}{{mav.MAV_MISSION_ACCEPTED, false}, {mav.MAV_MISSION_UNSUPPORTED, true}} {
		g.ap.Set(func(f *mavtest.Autopilot) { f.MissionAck = c.ack })
		ctx, cancel := context.WithCancel(context.Background())
		results := make(chan error, 4)
		done := make(chan struct{})
		go func() {
			defer close(done)
			g.v.KeepFenceUploaded(ctx, fence, 10*time.Millisecond, func(err error) { results <- err })
		}()
		var err error
		select {
		case err = <-results:
		case <-time.After(20 * time.Second):
			t.Fatal("no fence upload reported")
		}
		cancel()
		<-done
		if (err != nil) != c.wantErr {
			t.Fatalf("ack %v: upload reported %v", c.ack, err)
		}
		if c.wantErr {
			continue
		}
		g.ap.Mu.Lock()
		stored := g.ap.Stored[mav.MAV_MISSION_TYPE_FENCE]
		g.ap.Mu.Unlock()
		if len(stored) != len(fence) || stored[0].Command != mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION {
			t.Fatalf("the autopilot holds %+v", stored)
		}
	}
}

// A GoTo or Takeoff whose target (here from the blackboard, known only when it runs) the
// geofence does not allow fails, and nothing reaches the vehicle.
func TestVehicleTargetOutsideTheFenceIsNotSent(t *testing.T) {
	g := newUAVRig(t, "")
	g.takeoff(5)
	hi := 30.0
	f, err := drivers.CompileFence(&drivers.GeofenceConfig{Frame: "local", MaxAlt: &hi, AltKey: "uav.alt",
		Points: [][2]float64{{-20, -20}, {20, -20}, {20, 20}, {-20, 20}}}, g.robot.Config(), "geofence")
	if err != nil {
		t.Fatal(err)
	}
	g.robot.SetFence(f) // the ticks run on this goroutine
	speeds := g.ap.Commands(mav.MAV_CMD_DO_CHANGE_SPEED)
	for _, c := range []struct {
		what string
		node *bt.NodeDef
		want string
	}{
		{"a GoTo 50 m north", nd("GoTo", "", kv{"x": "{far}", "y": 0.0, "alt": 5.0, "speed": 3.0}), "50.0 m north and 0.0 m east of home"},
		{"a Takeoff above max_alt", nd("Takeoff", "", kv{"alt": "{high}"}), "above the geofence's max_alt"},
	} {
		tree := compileTree(t, g.robot.Config(), nd("Sequence", "", nil, nd("SetBlackboard", "", kv{"key": "far", "value": 50.0}),
			nd("SetBlackboard", "", kv{"key": "high", "value": 40.0}), c.node))
		st, s, _ := g.fly(tree)
		if st != bt.Failure || !strings.Contains(s.String(), c.want) || !strings.Contains(s.String(), "not sent") {
			t.Fatalf("%s: %s\n%s", c.what, st, s)
		}
	}
	if n := g.ap.Commands(mav.MAV_CMD_DO_CHANGE_SPEED); n != speeds {
		t.Fatalf("the refused GoTo reached the vehicle (%d speed commands)", n-speeds)
	}
	// Inside the fence, the same leaf flies.
	tree := compileTree(t, g.robot.Config(), nd("GoTo", "", kv{"x": 10.0, "y": 0.0, "alt": 5.0, "radius": 1.0}))
	if st, s, _ := g.fly(tree); st != bt.Success {
		t.Fatalf("a GoTo inside the fence: %s\n%s", st, s)
	}
}

// A GoTo made right after the safe state's hold was queued, while the
// vehicle still reports guided flight, switches back to guided when it
// starts: the hold ran before it (a return to a rally point after a fence
// hold never flew when the GoTo decided on the mode it was made in).
func TestVehicleGoToAfterAQueuedHoldFlies(t *testing.T) {
	g := newUAVRig(t, "")
	g.takeoff(5)
	if err := g.v.wait(g.v.submit(g.v.gotoOp(setpoint{x: 30, z: -5, yaw: math.NaN()}, 0))); err != nil {
		t.Fatal(err)
	}
	g.waitFor("guided flight", func() bool { return g.state().mode == modeGuided && g.state().x > 1 })
	g.v.safeStop() // queues the hold; the vehicle still reports guided
	if m := g.state().mode; m != modeGuided {
		t.Skipf("the hold took effect before the GoTo was made (mode %v): nothing to check this run", m)
	}
	if err := g.v.wait(g.v.submit(g.v.gotoOp(setpoint{x: 0, y: 10, z: -5, yaw: math.NaN()}, 0))); err != nil {
		t.Fatal(err)
	}
	g.waitFor("the hold, then guided flight to the new target", func() bool {
		s := g.state()
		return s.mode == modeGuided && s.y > 5
	})
}
