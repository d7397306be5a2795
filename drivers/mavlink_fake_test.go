package drivers

import (
	"math"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/ardupilotmega"
	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
)

// fakePX4 is a scripted PX4-flavoured autopilot on a TCP port for the vehicle device's tests:
// heartbeats, COMMAND_ACK for what it is told to answer, and a point-mass vehicle that climbs,
// flies to position targets and lands fast (real time: the tests wait for states, never for a
// fixed time).
type fakePX4 struct {
	t    testing.TB
	ln   net.Listener
	node *gomavlib.Node
	stop chan struct{}
	done chan struct{}

	mu        sync.Mutex
	heartbeat bool
	gpsFix    uint8
	armed     bool
	main, sub uint32
	x, y, z   float64 // NED
	target    [3]float64
	climbTo   float64
	yaw       float64
	battery   int8
	answer    map[mav.MAV_CMD]mav.MAV_RESULT // what to answer (default ACCEPTED)
	silent    map[mav.MAV_CMD]bool           // never acknowledged
	seen      map[mav.MAV_CMD][]uint8        // confirmation of every COMMAND_LONG received
	setpoints int

	// the mission protocol
	loading     mav.MAV_MISSION_TYPE
	want        int                                                  // items announced
	got         []mav.MessageMissionItemInt                          // items received so far
	stored      map[mav.MAV_MISSION_TYPE][]mav.MessageMissionItemInt // accepted
	missionAck  mav.MAV_MISSION_RESULT                               // what to answer a finished upload
	ignoreItems bool                                                 // never ask for items (a silent vehicle)
	current     int                                                  // mission item flown
}

func newFakePX4(t testing.TB) *fakePX4 {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakePX4{t: t, ln: ln, stop: make(chan struct{}), done: make(chan struct{}), heartbeat: true, gpsFix: 3,
		main: px4Auto, sub: px4AutoLoiter, battery: 90,
		answer: map[mav.MAV_CMD]mav.MAV_RESULT{}, silent: map[mav.MAV_CMD]bool{}, seen: map[mav.MAV_CMD][]uint8{},
		stored: map[mav.MAV_MISSION_TYPE][]mav.MessageMissionItemInt{}}
	f.node = &gomavlib.Node{
		Endpoints:        []gomavlib.EndpointConf{gomavlib.EndpointCustomServer{Listen: func() (net.Listener, error) { return ln, nil }, Label: "tcp"}},
		Dialect:          ardupilotmega.Dialect,
		OutVersion:       gomavlib.V2,
		OutSystemID:      1,
		OutComponentID:   1,
		HeartbeatDisable: true,
	}
	if err := f.node.Initialize(); err != nil {
		t.Fatal(err)
	}
	go f.run()
	t.Cleanup(f.close)
	return f
}

func (f *fakePX4) addr() string { return "tcp://" + f.ln.Addr().String() }

func (f *fakePX4) close() {
	select {
	case <-f.stop:
		return
	default:
	}
	close(f.stop)
	<-f.done
	f.node.Close()
}

func (f *fakePX4) set(fn func(f *fakePX4)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakePX4) confirmations(c mav.MAV_CMD) []uint8 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]uint8(nil), f.seen[c]...)
}

func (f *fakePX4) run() {
	defer close(f.done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-f.stop:
			return
		case ev := <-f.node.Events():
			if fr, ok := ev.(*gomavlib.EventFrame); ok {
				f.frame(fr)
			}
		case <-tick.C:
			f.step(0.02)
		}
	}
}

func (f *fakePX4) frame(fr *gomavlib.EventFrame) {
	f.mu.Lock()
	var reply *mav.MessageCommandAck
	var next *mav.MessageMissionRequestInt
	var done *mav.MessageMissionAck
	switch m := fr.Message().(type) {
	case *mav.MessageCommandLong:
		f.seen[m.Command] = append(f.seen[m.Command], m.Confirmation)
		if f.silent[m.Command] {
			break
		}
		res, ok := f.answer[m.Command]
		if !ok {
			res = f.command(m)
		}
		reply = &mav.MessageCommandAck{Command: m.Command, Result: res, TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID()}
	case *mav.MessageSetPositionTargetLocalNed:
		f.setpoints++
		f.target = [3]float64{float64(m.X), float64(m.Y), float64(m.Z)}
	case *mav.MessageMissionCount:
		f.loading, f.want, f.got = m.MissionType, int(m.Count), nil
		if !f.ignoreItems {
			next = &mav.MessageMissionRequestInt{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(), Seq: 0, MissionType: m.MissionType}
		}
	case *mav.MessageMissionItemInt:
		if m.MissionType != f.loading || int(m.Seq) != len(f.got) {
			break // a repeat
		}
		f.got = append(f.got, *m)
		if len(f.got) < f.want {
			next = &mav.MessageMissionRequestInt{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(), Seq: m.Seq + 1, MissionType: m.MissionType}
			break
		}
		if f.missionAck == mav.MAV_MISSION_ACCEPTED {
			f.stored[f.loading] = f.got
		}
		done = &mav.MessageMissionAck{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(), Type: f.missionAck, MissionType: f.loading}
	}
	f.mu.Unlock()
	if reply != nil {
		_ = f.node.WriteMessageAll(reply)
	}
	if next != nil {
		_ = f.node.WriteMessageAll(next)
	}
	if done != nil {
		_ = f.node.WriteMessageAll(done)
	}
}

func (f *fakePX4) inAir() bool { return f.z < -0.05 || f.climbTo > 0 }

// command carries out a command (f.mu held) and says how it went.
func (f *fakePX4) command(m *mav.MessageCommandLong) mav.MAV_RESULT {
	switch m.Command {
	case mav.MAV_CMD_COMPONENT_ARM_DISARM:
		if m.Param1 == 1 {
			if f.gpsFix < 3 || f.battery < 15 {
				return mav.MAV_RESULT_DENIED
			}
			f.armed = true
		} else {
			if f.inAir() && m.Param2 != 21196 {
				return mav.MAV_RESULT_DENIED
			}
			f.armed = false
		}
	case mav.MAV_CMD_DO_SET_MODE:
		f.main, f.sub = uint32(m.Param2), uint32(m.Param3)
		f.climbTo = 0
		if f.main == px4Auto && f.sub == px4AutoMission {
			f.current = 0
		}
		if f.main == px4Offboard {
			f.target = [3]float64{f.x, f.y, f.z}
		}
	case mav.MAV_CMD_NAV_TAKEOFF:
		if !f.armed {
			return mav.MAV_RESULT_DENIED
		}
		f.climbTo = float64(m.Param7) - 500
		f.main, f.sub = px4Auto, px4AutoTakeoff
	case mav.MAV_CMD_CONDITION_YAW:
		f.yaw = float64(m.Param1) * math.Pi / 180
	case mav.MAV_CMD_DO_CHANGE_SPEED:
	default:
		return mav.MAV_RESULT_UNSUPPORTED
	}
	return mav.MAV_RESULT_ACCEPTED
}

func toward(from, to, maxStep float64) float64 {
	d := to - from
	if math.Abs(d) <= maxStep {
		return to
	}
	return from + math.Copysign(maxStep, d)
}

func (f *fakePX4) step(dt float64) {
	var reached *mav.MessageMissionItemReached
	f.mu.Lock()
	const speed = 20.0 // m/s: the tests wait for states, fast is fine
	switch {
	case f.main == px4Auto && f.sub == px4AutoTakeoff:
		f.z = toward(f.z, -f.climbTo, speed*dt)
		if f.z == -f.climbTo {
			f.climbTo, f.sub = 0, px4AutoLoiter
		}
	case f.main == px4Auto && f.sub == px4AutoMission:
		items := f.stored[mav.MAV_MISSION_TYPE_MISSION]
		if f.current >= len(items) {
			break
		}
		it := items[f.current]
		tx, ty, tz := (float64(it.X)/1e7-47.4)*111111, (float64(it.Y)/1e7-8.5)*75000, -float64(it.Z)
		switch it.Command {
		case mav.MAV_CMD_NAV_TAKEOFF:
			tx, ty = f.x, f.y
		case mav.MAV_CMD_NAV_RETURN_TO_LAUNCH:
			tx, ty, tz = 0, 0, 0
		}
		f.x, f.y, f.z = toward(f.x, tx, speed*dt), toward(f.y, ty, speed*dt), toward(f.z, tz, speed*dt)
		if math.Abs(f.x-tx) < 0.01 && math.Abs(f.y-ty) < 0.01 && math.Abs(f.z-tz) < 0.01 {
			reached = &mav.MessageMissionItemReached{Seq: uint16(f.current)}
			f.current++
			if it.Command == mav.MAV_CMD_NAV_RETURN_TO_LAUNCH {
				f.armed = false
			}
		}
	case f.main == px4Offboard:
		f.x, f.y, f.z = toward(f.x, f.target[0], speed*dt), toward(f.y, f.target[1], speed*dt), toward(f.z, f.target[2], speed*dt)
	case f.main == px4Auto && (f.sub == px4AutoLand || f.sub == px4AutoRTL):
		if f.sub == px4AutoRTL && (f.x != 0 || f.y != 0) {
			f.x, f.y = toward(f.x, 0, speed*dt), toward(f.y, 0, speed*dt)
			break
		}
		f.z = toward(f.z, 0, speed*dt)
		if f.z == 0 && f.armed {
			f.armed = false
		}
	}
	landed := mav.MAV_LANDED_STATE_ON_GROUND
	if f.inAir() {
		landed = mav.MAV_LANDED_STATE_IN_AIR
	}
	base := mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED
	if f.armed {
		base |= mav.MAV_MODE_FLAG_SAFETY_ARMED
	}
	msgs := []mav.MessageHeartbeat{}
	if f.heartbeat {
		msgs = append(msgs, mav.MessageHeartbeat{Type: mav.MAV_TYPE_QUADROTOR, Autopilot: mav.MAV_AUTOPILOT_PX4,
			BaseMode: base, CustomMode: f.main<<16 | f.sub<<24, SystemStatus: mav.MAV_STATE_ACTIVE, MavlinkVersion: 3})
	}
	x, y, z, yaw, fix, batt := f.x, f.y, f.z, f.yaw, f.gpsFix, f.battery
	hb := f.heartbeat
	f.mu.Unlock()
	for i := range msgs {
		_ = f.node.WriteMessageAll(&msgs[i])
	}
	if reached != nil {
		_ = f.node.WriteMessageAll(reached)
	}
	if !hb {
		return
	}
	_ = f.node.WriteMessageAll(&mav.MessageLocalPositionNed{X: float32(x), Y: float32(y), Z: float32(z)})
	_ = f.node.WriteMessageAll(&mav.MessageGlobalPositionInt{Lat: int32((47.4 + x/111111) * 1e7), Lon: int32((8.5 + y/75000) * 1e7),
		Alt: int32((500 - z) * 1000), RelativeAlt: int32(-z * 1000)})
	_ = f.node.WriteMessageAll(&mav.MessageExtendedSysState{LandedState: landed})
	_ = f.node.WriteMessageAll(&mav.MessageAttitude{Yaw: float32(yaw)})
	_ = f.node.WriteMessageAll(&mav.MessageSysStatus{BatteryRemaining: batt, VoltageBattery: 15800})
	_ = f.node.WriteMessageAll(&mav.MessageGpsRawInt{FixType: mav.GPS_FIX_TYPE(fix), SatellitesVisible: 12})
}

// statustext sends a STATUSTEXT.
func (f *fakePX4) statustext(sev mav.MAV_SEVERITY, text string) {
	_ = f.node.WriteMessageAll(&mav.MessageStatustext{Severity: sev, Text: text})
}
