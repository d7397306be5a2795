package multicopter

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"
	"github.com/botd-project/botd/internal/testutil"
)

// gcs is a ground station on the vehicle's UDP port, recording every message it gets.
type gcs struct {
	t    *testing.T
	node *gomavlib.Node
	mu   sync.Mutex
	msgs []message.Message
	more chan struct{}
	recv atomic.Uint64 // frames received
	lost uint64        // what the vehicle sent before this ground station was there
}

func newVehicle(t *testing.T, cfg Config) (*Vehicle, *gcs) {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	v, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	g := &gcs{t: t, more: make(chan struct{}, 1)}
	g.node = &gomavlib.Node{
		Endpoints:        []gomavlib.EndpointConf{gomavlib.EndpointUDPClient{Address: v.Addr().String()}},
		Dialect:          mav.Dialect,
		OutVersion:       gomavlib.V2,
		OutSystemID:      245,
		OutComponentID:   190,
		HeartbeatDisable: true,
	}
	if err := g.node.Initialize(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.node.Close)
	go func() {
		for ev := range g.node.Events() {
			if fr, ok := ev.(*gomavlib.EventFrame); ok {
				g.mu.Lock()
				g.msgs = append(g.msgs, fr.Message())
				g.mu.Unlock()
				g.recv.Add(1)
				select {
				case g.more <- struct{}{}:
				default:
				}
			}
		}
	}()
	// The vehicle answers where a ground station's frames come from: say hello (again, until
	// the client's endpoint is up and the vehicle heard it).
	var hb message.Message
	deadline := time.Now().Add(10 * time.Second)
	for hb == nil {
		if time.Now().After(deadline) {
			t.Fatal("no heartbeat from the vehicle")
		}
		g.write(&mav.MessageHeartbeat{Type: mav.MAV_TYPE_GCS, Autopilot: mav.MAV_AUTOPILOT_INVALID, MavlinkVersion: 3})
		v.Step(time.Second)
		select {
		case <-g.more:
		case <-time.After(50 * time.Millisecond):
		}
		g.mu.Lock()
		for _, m := range g.msgs {
			if _, ok := m.(*mav.MessageHeartbeat); ok {
				hb = m
				break
			}
		}
		g.msgs = g.msgs[:0]
		g.mu.Unlock()
	}
	g.lost = v.Sent() - g.recv.Load() // what went out before the ground station was there
	if h := hb.(*mav.MessageHeartbeat); h.Autopilot != mav.MAV_AUTOPILOT_PX4 || h.Type != mav.MAV_TYPE_QUADROTOR ||
		h.CustomMode != PX4Auto<<16|PX4AutoLoiter<<24 || h.BaseMode&mav.MAV_MODE_FLAG_SAFETY_ARMED != 0 {
		t.Fatalf("first heartbeat %+v: want a disarmed PX4 quadrotor in AUTO.LOITER", h)
	}
	return v, g
}

func (g *gcs) write(m message.Message) {
	g.t.Helper()
	if err := g.node.WriteMessageAll(m); err != nil {
		g.t.Fatal(err)
	}
}

// mark forgets the messages received so far.
func (g *gcs) mark() {
	g.mu.Lock()
	g.msgs = g.msgs[:0]
	g.mu.Unlock()
}

// wait returns (and forgets) the first message received since the last mark that matches; the vehicle's clock is
// stepped (100 ms at a time) while nothing matches, so that periodic telemetry comes. It fails
// after 10 s of wall-clock time without one (a lost UDP datagram on loopback, or a bug).
func (g *gcs) wait(what string, match func(message.Message) bool, v *Vehicle) message.Message {
	g.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.mu.Lock()
		for i, m := range g.msgs {
			if match(m) {
				g.msgs = append(g.msgs[:i], g.msgs[i+1:]...)
				g.mu.Unlock()
				return m
			}
		}
		if len(g.msgs) > 20000 {
			g.msgs = append(g.msgs[:0], g.msgs[len(g.msgs)-10000:]...)
		}
		g.mu.Unlock()
		if time.Now().After(deadline) {
			g.t.Fatalf("no %s", what)
		}
		if v != nil {
			v.Step(100 * time.Millisecond)
		}
		select {
		case <-g.more:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// command sends a COMMAND_LONG and returns the vehicle's COMMAND_ACK result.
func (g *gcs) command(c mav.MAV_CMD, p ...float32) mav.MAV_RESULT {
	g.t.Helper()
	var q [7]float32
	copy(q[:], p)
	g.write(&mav.MessageCommandLong{TargetSystem: 1, TargetComponent: 1, Command: c,
		Param1: q[0], Param2: q[1], Param3: q[2], Param4: q[3], Param5: q[4], Param6: q[5], Param7: q[6]})
	ack := g.wait("COMMAND_ACK for "+c.String(), func(m message.Message) bool {
		a, ok := m.(*mav.MessageCommandAck)
		return ok && a.Command == c
	}, nil)
	a := ack.(*mav.MessageCommandAck)
	if a.TargetSystem != 245 || a.TargetComponent != 190 {
		g.t.Errorf("ack to %d/%d, want the sender 245/190", a.TargetSystem, a.TargetComponent)
	}
	return a.Result
}

func (g *gcs) setMode(main, sub uint32) mav.MAV_RESULT {
	return g.command(mav.MAV_CMD_DO_SET_MODE, float32(mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED), float32(main), float32(sub))
}

// stepUntil moves the simulated clock in 20 ms steps until cond holds, failing after limit of
// simulated time. After each step it lets the ground station read what the step sent (a
// burst of a minute's telemetry would overflow its socket's buffer and lose messages).
func stepUntil(t *testing.T, v *Vehicle, g *gcs, what string, limit time.Duration, cond func(Snapshot) bool) Snapshot {
	t.Helper()
	start := v.State().Time
	for {
		s := v.State()
		if cond(s) {
			return s
		}
		if s.Time-start > limit {
			t.Fatalf("%s: not within %v of simulated time: %+v", what, limit, s)
		}
		v.Step(20 * time.Millisecond)
		g.drain(v)
	}
}

// drain waits (at most a second: a datagram lost on loopback is not waited for again) until
// the ground station has received what the vehicle sent.
func (g *gcs) drain(v *Vehicle) {
	deadline := time.Now().Add(time.Second)
	for g.recv.Load()+g.lost < v.Sent() {
		if time.Now().After(deadline) {
			g.lost = v.Sent() - g.recv.Load()
			return
		}
		select {
		case <-g.more:
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// waitState waits, without moving the simulated clock, until the vehicle's state satisfies
// cond: for what a frame from the ground station does once it arrives.
func waitState(t *testing.T, v *Vehicle, what string, cond func(Snapshot) bool) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, what, func() bool { return cond(v.State()) },
		func() string { return fmt.Sprintf("%+v", v.State()) })
}

const home = 488.0 // the default home's altitude above sea level

// Arming checks, take-off, offboard position targets (local and global) held against the wind,
// yaw, an unsupported command, and a return that lands and disarms at home.
func TestMulticopterFliesWhatAGroundStationSends(t *testing.T) {
	v, g := newVehicle(t, Config{Wind: [2]float64{2, -1}, GPSFix: 1})

	if r := g.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1); r != mav.MAV_RESULT_DENIED {
		t.Fatalf("arm without a GPS fix: %v, want DENIED", r)
	}
	g.wait("the refusal's STATUSTEXT", func(m message.Message) bool {
		s, ok := m.(*mav.MessageStatustext)
		return ok && strings.Contains(s.Text, "GPS")
	}, v)
	v.SetGPSFix(3)
	v.SetBattery(10)
	if r := g.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1); r != mav.MAV_RESULT_DENIED {
		t.Fatalf("arm with 10%% battery: %v, want DENIED", r)
	}
	v.SetBattery(95)
	if r := g.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, float32(math.NaN()), float32(math.NaN()), float32(math.NaN()), home+10); r != mav.MAV_RESULT_DENIED {
		t.Fatalf("take-off disarmed: %v, want DENIED", r)
	}
	if r := g.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("arm: %v", r)
	}
	g.wait("an armed heartbeat", func(m message.Message) bool {
		h, ok := m.(*mav.MessageHeartbeat)
		return ok && h.BaseMode&mav.MAV_MODE_FLAG_SAFETY_ARMED != 0
	}, v)
	if r := g.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, float32(math.NaN()), float32(math.NaN()), float32(math.NaN()), home+10); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("take-off: %v", r)
	}
	s := stepUntil(t, v, g, "the take-off to 10 m, then hold", 30*time.Second, func(s Snapshot) bool { return s.Mode == "AUTO.LOITER" && s.InAir })
	if math.Abs(s.Alt-10) > 0.35 || math.Hypot(s.N, s.E) > 1.5 {
		t.Fatalf("after the take-off: %+v, want 10 m above home", s)
	}
	g.wait("GLOBAL_POSITION_INT 10 m above home", func(m message.Message) bool {
		p, ok := m.(*mav.MessageGlobalPositionInt)
		return ok && math.Abs(float64(p.RelativeAlt)/1000-10) < 0.4 && math.Abs(float64(p.Alt)/1000-home-10) < 0.4
	}, v)
	g.wait("EXTENDED_SYS_STATE in the air", func(m message.Message) bool {
		e, ok := m.(*mav.MessageExtendedSysState)
		return ok && e.LandedState == mav.MAV_LANDED_STATE_IN_AIR
	}, v)
	if r := g.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 0); r != mav.MAV_RESULT_DENIED {
		t.Fatalf("disarm in the air: %v, want DENIED", r)
	}

	// Offboard needs a position target first, as on PX4.
	if r := g.setMode(PX4Offboard, 0); r != mav.MAV_RESULT_DENIED {
		t.Fatalf("offboard without a target: %v, want DENIED", r)
	}
	mask := mav.POSITION_TARGET_TYPEMASK_VX_IGNORE | mav.POSITION_TARGET_TYPEMASK_VY_IGNORE | mav.POSITION_TARGET_TYPEMASK_VZ_IGNORE |
		mav.POSITION_TARGET_TYPEMASK_AX_IGNORE | mav.POSITION_TARGET_TYPEMASK_AY_IGNORE | mav.POSITION_TARGET_TYPEMASK_AZ_IGNORE |
		mav.POSITION_TARGET_TYPEMASK_YAW_RATE_IGNORE
	g.write(&mav.MessageSetPositionTargetLocalNed{TargetSystem: 1, TargetComponent: 1, CoordinateFrame: mav.MAV_FRAME_LOCAL_NED,
		TypeMask: mask, X: 30, Y: -20, Z: -12, Yaw: float32(math.Pi / 2)})
	waitState(t, v, "the position target", func(s Snapshot) bool { return s.Setpoints == 1 })
	if r := g.setMode(PX4Offboard, 0); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("offboard: %v", r)
	}
	s = stepUntil(t, v, g, "at the local target", 60*time.Second, func(s Snapshot) bool {
		return math.Hypot(s.N-30, s.E+20) < 0.3 && math.Abs(s.Alt-12) < 0.3
	})
	if s.Mode != "OFFBOARD" || math.Abs(s.Yaw-math.Pi/2) > 0.01 {
		t.Fatalf("at the target: %+v, want OFFBOARD facing east", s)
	}
	// The wind (3 m/s of it... well, 2.2) does not blow it off the target.
	stepUntil(t, v, g, "20 s of holding", 60*time.Second, func(x Snapshot) bool { return x.Time-s.Time > 20*time.Second })
	if s = v.State(); math.Hypot(s.N-30, s.E+20) > 0.3 || math.Hypot(s.VN, s.VE) > 0.1 {
		t.Fatalf("held against the wind: %+v", s)
	}

	// A global target, relative altitude.
	lat, lon := v.toLatLon(-10, 15)
	g.write(&mav.MessageSetPositionTargetGlobalInt{TargetSystem: 1, TargetComponent: 1, CoordinateFrame: mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT,
		TypeMask: mask | mav.POSITION_TARGET_TYPEMASK_YAW_IGNORE, LatInt: int32(math.Round(lat * 1e7)), LonInt: int32(math.Round(lon * 1e7)), Alt: 8})
	stepUntil(t, v, g, "at the global target", 60*time.Second, func(s Snapshot) bool {
		return math.Hypot(s.N+10, s.E-15) < 0.3 && math.Abs(s.Alt-8) < 0.3
	})

	if r := g.command(mav.MAV_CMD_CONDITION_YAW, 180, 30, 1, 0); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("yaw: %v", r)
	}
	stepUntil(t, v, g, "facing south", 10*time.Second, func(s Snapshot) bool { return math.Abs(math.Abs(s.Yaw)-math.Pi) < 0.01 })
	if r := g.command(mav.MAV_CMD_DO_SET_HOME, 1); r != mav.MAV_RESULT_UNSUPPORTED {
		t.Fatalf("DO_SET_HOME: %v, want UNSUPPORTED", r)
	}
	if r := g.setMode(PX4Manual, 0); r != mav.MAV_RESULT_DENIED {
		t.Fatalf("manual without RC: %v, want DENIED", r)
	}

	// Return: up to the return altitude (30 m), home, down, disarmed.
	g.mark()
	g.write(&mav.MessageCommandInt{TargetSystem: 1, TargetComponent: 1, Command: mav.MAV_CMD_NAV_RETURN_TO_LAUNCH})
	a := g.wait("COMMAND_ACK of the COMMAND_INT", func(m message.Message) bool {
		a, ok := m.(*mav.MessageCommandAck)
		return ok && a.Command == mav.MAV_CMD_NAV_RETURN_TO_LAUNCH
	}, nil).(*mav.MessageCommandAck)
	if a.Result != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("RTL: %v", a.Result)
	}
	maxAlt := 0.0
	s = stepUntil(t, v, g, "home, landed and disarmed", 120*time.Second, func(s Snapshot) bool {
		maxAlt = math.Max(maxAlt, s.Alt)
		return !s.Armed && !s.InAir
	})
	if math.Hypot(s.N, s.E) > 1 || s.Mode != "AUTO.RTL" || math.Abs(maxAlt-30) > 0.5 {
		t.Fatalf("after the return: %+v, highest %.1f m; want home in AUTO.RTL, 30 m on the way", s, maxAlt)
	}
	if s.Battery >= 95 {
		t.Fatalf("battery %.1f%% after a flight", s.Battery)
	}
	g.wait("a disarmed heartbeat", func(m message.Message) bool {
		h, ok := m.(*mav.MessageHeartbeat)
		return ok && h.BaseMode&mav.MAV_MODE_FLAG_SAFETY_ARMED == 0
	}, v)
}

// upload sends items with the mission protocol and returns the vehicle's MISSION_ACK.
func (g *gcs) upload(typ mav.MAV_MISSION_TYPE, items []mav.MessageMissionItemInt) mav.MAV_MISSION_RESULT {
	g.t.Helper()
	g.write(&mav.MessageMissionCount{TargetSystem: 1, TargetComponent: 1, Count: uint16(len(items)), MissionType: typ})
	for {
		m := g.wait("MISSION_REQUEST_INT or MISSION_ACK", func(m message.Message) bool {
			switch m.(type) {
			case *mav.MessageMissionRequestInt, *mav.MessageMissionAck:
				return true
			}
			return false
		}, nil)
		switch m := m.(type) {
		case *mav.MessageMissionAck:
			return m.Type
		case *mav.MessageMissionRequestInt:
			it := items[m.Seq]
			it.TargetSystem, it.TargetComponent, it.Seq, it.MissionType = 1, 1, m.Seq, typ
			g.write(&it)
		}
	}
}

// The mission protocol and a mission flown in AUTO.MISSION: take-off, two waypoints, return;
// every item reported reached; landed and disarmed at the end. Refusals name their reason.
func TestMulticopterMission(t *testing.T) {
	v, g := newVehicle(t, Config{})
	if r := g.setMode(PX4Auto, PX4AutoMission); r != mav.MAV_RESULT_DENIED {
		t.Fatalf("mission mode with no mission: %v, want DENIED", r)
	}
	deg := func(n, e float64) (int32, int32) {
		lat, lon := v.toLatLon(n, e)
		return int32(math.Round(lat * 1e7)), int32(math.Round(lon * 1e7))
	}
	la, lo := deg(0, 0)
	l1, o1 := deg(25, 0)
	l2, o2 := deg(25, 25)
	items := []mav.MessageMissionItemInt{
		{Frame: mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, Command: mav.MAV_CMD_NAV_TAKEOFF, X: la, Y: lo, Z: 12, Param4: float32(math.NaN())},
		{Frame: mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, Command: mav.MAV_CMD_NAV_WAYPOINT, X: l1, Y: o1, Z: 12, Param2: 1},
		{Frame: mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, Command: mav.MAV_CMD_NAV_WAYPOINT, X: l2, Y: o2, Z: 15, Param2: 1},
		{Frame: mav.MAV_FRAME_MISSION, Command: mav.MAV_CMD_NAV_RETURN_TO_LAUNCH},
	}
	bad := append([]mav.MessageMissionItemInt{}, items...)
	bad[2].Command = mav.MAV_CMD_DO_SET_SERVO
	if r := g.upload(mav.MAV_MISSION_TYPE_MISSION, bad); r != mav.MAV_MISSION_UNSUPPORTED {
		t.Fatalf("a mission with DO_SET_SERVO: %v, want MAV_MISSION_UNSUPPORTED", r)
	}
	g.write(&mav.MessageMissionCount{TargetSystem: 1, TargetComponent: 1, Count: MaxMissionItems + 1})
	if a := g.wait("MISSION_ACK", func(m message.Message) bool { _, ok := m.(*mav.MessageMissionAck); return ok }, nil); a.(*mav.MessageMissionAck).Type != mav.MAV_MISSION_NO_SPACE {
		t.Fatalf("too long a mission: %v, want NO_SPACE", a)
	}
	if r := g.upload(mav.MAV_MISSION_TYPE_MISSION, items); r != mav.MAV_MISSION_ACCEPTED {
		t.Fatalf("upload: %v", r)
	}
	if s := v.State(); s.MissionItems != 4 {
		t.Fatalf("%d items stored", s.MissionItems)
	}
	if r := g.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("arm: %v", r)
	}
	if r := g.setMode(PX4Auto, PX4AutoMission); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("mission mode: %v", r)
	}
	reached := map[uint16]bool{}
	var mu sync.Mutex
	high := 0.0
	s := stepUntil(t, v, g, "the mission flown, landed, disarmed", 180*time.Second, func(s Snapshot) bool {
		high = math.Max(high, s.Alt)
		return s.MissionCur == 4 && !s.Armed
	})
	for len(reached) < 4 {
		m := g.wait("MISSION_ITEM_REACHED", func(m message.Message) bool { _, ok := m.(*mav.MessageMissionItemReached); return ok }, nil)
		mu.Lock()
		reached[m.(*mav.MessageMissionItemReached).Seq] = true
		mu.Unlock()
	}
	if math.Hypot(s.N, s.E) > 1 || high < 14.8 || high > 31 {
		t.Fatalf("after the mission: %+v, highest %.1f m", s, high)
	}
}

// A keep-in fence uploaded as FENCE items: flying out of it is reported and the vehicle holds.
func TestMulticopterFence(t *testing.T) {
	v, g := newVehicle(t, Config{})
	var fence []mav.MessageMissionItemInt
	for _, p := range [][2]float64{{-10, -10}, {-10, 10}, {10, 10}, {10, -10}} {
		lat, lon := v.toLatLon(p[0], p[1])
		fence = append(fence, mav.MessageMissionItemInt{Frame: mav.MAV_FRAME_GLOBAL, Command: mav.MAV_CMD_NAV_FENCE_POLYGON_VERTEX_INCLUSION,
			Param1: 4, X: int32(math.Round(lat * 1e7)), Y: int32(math.Round(lon * 1e7))})
	}
	if r := g.upload(mav.MAV_MISSION_TYPE_FENCE, fence); r != mav.MAV_MISSION_ACCEPTED {
		t.Fatalf("fence: %v", r)
	}
	if r := g.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("arm: %v", r)
	}
	if r := g.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, home+5); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("take-off: %v", r)
	}
	stepUntil(t, v, g, "the take-off", 30*time.Second, func(s Snapshot) bool { return s.Mode == "AUTO.LOITER" && s.InAir })
	g.write(&mav.MessageSetPositionTargetLocalNed{TargetSystem: 1, TargetComponent: 1, CoordinateFrame: mav.MAV_FRAME_LOCAL_NED, X: 40, Z: -5,
		TypeMask: mav.POSITION_TARGET_TYPEMASK_YAW_IGNORE})
	waitState(t, v, "the target", func(s Snapshot) bool { return s.Setpoints > 0 })
	if r := g.setMode(PX4Offboard, 0); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("offboard: %v", r)
	}
	s := stepUntil(t, v, g, "the breach", 30*time.Second, func(s Snapshot) bool { return s.FenceBreached })
	g.wait("the breach's STATUSTEXT", func(m message.Message) bool {
		st, ok := m.(*mav.MessageStatustext)
		return ok && strings.Contains(st.Text, "Geofence") && st.Severity == mav.MAV_SEVERITY_CRITICAL
	}, v)
	if s.Mode != "AUTO.LOITER" || s.N < 10 || s.N > 11 {
		t.Fatalf("at the breach: %+v, want AUTO.LOITER just past the edge", s)
	}
	s = stepUntil(t, v, g, "stopped", 20*time.Second, func(s Snapshot) bool { return math.Hypot(s.VN, s.VE) < 0.05 })
	if s.N > 20 {
		t.Fatalf("held at N %.1f: it flew on", s.N)
	}
}

// Forced disarm in the air drops the vehicle; the critical battery lands it.
func TestMulticopterFailures(t *testing.T) {
	v, g := newVehicle(t, Config{Battery: 20, DrainAir: 1})
	if r := g.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("arm: %v", r)
	}
	if r := g.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, home+20); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("take-off: %v", r)
	}
	s := stepUntil(t, v, g, "the critical battery's landing", 60*time.Second, func(s Snapshot) bool { return s.Mode == "AUTO.LAND" })
	if s.Battery > 7 || !s.InAir {
		t.Fatalf("landing at %+v", s)
	}
	stepUntil(t, v, g, "landed and disarmed", 120*time.Second, func(s Snapshot) bool { return !s.InAir && !s.Armed })

	v2, g2 := newVehicle(t, Config{})
	if r := g2.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("arm: %v", r)
	}
	if r := g2.command(mav.MAV_CMD_NAV_TAKEOFF, 0, 0, 0, 0, 0, 0, home+10); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("take-off: %v", r)
	}
	stepUntil(t, v2, g2, "the take-off", 30*time.Second, func(s Snapshot) bool { return s.Mode == "AUTO.LOITER" && s.InAir })
	if r := g2.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 0, forceDisarm); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("forced disarm: %v", r)
	}
	s = stepUntil(t, v2, g2, "the fall", 5*time.Second, func(s Snapshot) bool { return !s.InAir })
	g2.wait("the crash's STATUSTEXT", func(m message.Message) bool {
		st, ok := m.(*mav.MessageStatustext)
		return ok && st.Severity == mav.MAV_SEVERITY_EMERGENCY
	}, v2)

	// Armed and left on the ground, it disarms by itself (COM_DISARM_PRFLT).
	v3, g3 := newVehicle(t, Config{DisarmPreflight: 5})
	if r := g3.command(mav.MAV_CMD_COMPONENT_ARM_DISARM, 1); r != mav.MAV_RESULT_ACCEPTED {
		t.Fatalf("arm: %v", r)
	}
	s = stepUntil(t, v3, g3, "the pre-flight disarm", 10*time.Second, func(s Snapshot) bool { return !s.Armed })
	if s.Time < 5*time.Second {
		t.Fatalf("disarmed after %v, want 5 s", s.Time)
	}
}

// Bad configs are refused, every bad field named.
func TestMulticopterConfig(t *testing.T) {
	err := Config{Listen: "nowhere", TimeScale: 100, Wind: [2]float64{20, 0}, GPSFix: 9, Home: &Home{Lat: 95}}.Validate()
	if err == nil {
		t.Fatal("a bad config passed")
	}
	for _, want := range []string{"listen", "time_scale", "wind[0]", "gps_fix", "home"} {
		if !strings.Contains(err.Error(), want+":") {
			t.Errorf("no %s in %v", want, err)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if _, err := New(Config{Listen: "127.0.0.1:0", MaxSpeed: -1}); err == nil {
		t.Fatal("New took a bad config")
	}
}
