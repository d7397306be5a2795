// Package mavtest is a scripted PX4-flavoured autopilot on a loopback TCP port for the tests of
// botd's MAVLink vehicle: heartbeats and telemetry, COMMAND_ACK for what it is told to answer,
// the mission protocol, and a point-mass vehicle that climbs, flies to position targets and
// missions, returns and lands fast (real time: tests wait for states, never for a fixed time).
// Only tests import it.
package mavtest

import (
	"math"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	"github.com/bluenviron/gomavlib/v3/pkg/dialects/ardupilotmega"
	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"
)

// Autopilot is a scripted PX4 autopilot (system 1, component 1).
type Autopilot struct {
	ln   net.Listener
	node *gomavlib.Node
	stop chan struct{}
	done chan struct{}

	// Mu guards the fields below; Set takes it.
	Mu        sync.Mutex
	Heartbeat bool  // heartbeats and telemetry are sent
	GPSFix    uint8 // below 3, arming is refused
	Armed     bool
	Main, Sub uint32  // PX4 custom mode
	X, Y, Z   float64 // NED, m
	Yaw       float64
	Battery   int8                           // %; below 15, arming is refused
	Answer    map[mav.MAV_CMD]mav.MAV_RESULT // what to answer (default: carry it out)
	Silent    map[mav.MAV_CMD]bool           // never acknowledged
	Setpoints int                            // position targets received
	target    [3]float64
	climbTo   float64
	seen      map[mav.MAV_CMD][]uint8 // confirmation of every COMMAND_LONG received
	modes     [][2]uint32             // the PX4 main and sub mode of every DO_SET_MODE first sent

	// the mission protocol
	Stored      map[mav.MAV_MISSION_TYPE][]mav.MessageMissionItemInt // accepted uploads
	MissionAck  mav.MAV_MISSION_RESULT                               // what to answer a finished upload
	IgnoreItems bool                                                 // never ask for items (a silent vehicle)
	loading     mav.MAV_MISSION_TYPE
	want        int                         // items announced
	got         []mav.MessageMissionItemInt // items received so far
	current     int                         // mission item flown
}

// New starts an autopilot on a free loopback port; it stops when the test ends.
func New(t testing.TB) *Autopilot {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &Autopilot{ln: ln, stop: make(chan struct{}), done: make(chan struct{}), Heartbeat: true, GPSFix: 3,
		Main: px4Auto, Sub: px4AutoLoiter, Battery: 90,
		Answer: map[mav.MAV_CMD]mav.MAV_RESULT{}, Silent: map[mav.MAV_CMD]bool{}, seen: map[mav.MAV_CMD][]uint8{},
		Stored: map[mav.MAV_MISSION_TYPE][]mav.MessageMissionItemInt{}}
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
	t.Cleanup(f.Close)
	return f
}

// Addr is the autopilot's connection string for a mavlink_vehicle.
func (f *Autopilot) Addr() string { return "tcp://" + f.ln.Addr().String() }

// Close stops the autopilot.
func (f *Autopilot) Close() {
	select {
	case <-f.stop:
		return
	default:
	}
	close(f.stop)
	<-f.done
	f.node.Close()
}

// Set changes the autopilot under its lock.
func (f *Autopilot) Set(fn func(f *Autopilot)) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	fn(f)
}

// ModeCommands counts the DO_SET_MODE commands (first sends) that asked for PX4 main mode main.
func (f *Autopilot) ModeCommands(main uint32) int {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	n := 0
	for _, m := range f.modes {
		if m[0] == main {
			n++
		}
	}
	return n
}

// Commands counts the COMMAND_LONGs c received as first sends (confirmation 0): the commands
// given, whatever retries a slow acknowledgement caused on a busy machine.
func (f *Autopilot) Commands(c mav.MAV_CMD) int {
	n := 0
	for _, conf := range f.Confirmations(c) {
		if conf == 0 {
			n++
		}
	}
	return n
}

// Confirmations are the confirmation fields of every COMMAND_LONG c received.
func (f *Autopilot) Confirmations(c mav.MAV_CMD) []uint8 {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([]uint8(nil), f.seen[c]...)
}

func (f *Autopilot) run() {
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

func (f *Autopilot) frame(fr *gomavlib.EventFrame) {
	f.Mu.Lock()
	var reply *mav.MessageCommandAck
	var next *mav.MessageMissionRequestInt
	var done *mav.MessageMissionAck
	switch m := fr.Message().(type) {
	case *mav.MessageCommandLong:
		f.seen[m.Command] = append(f.seen[m.Command], m.Confirmation)
		if m.Command == mav.MAV_CMD_DO_SET_MODE && m.Confirmation == 0 {
			f.modes = append(f.modes, [2]uint32{uint32(m.Param2), uint32(m.Param3)})
		}
		if f.Silent[m.Command] {
			break
		}
		res, ok := f.Answer[m.Command]
		if !ok {
			res = f.command(m)
		}
		reply = &mav.MessageCommandAck{Command: m.Command, Result: res, TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID()}
	case *mav.MessageSetPositionTargetLocalNed:
		f.Setpoints++
		f.target = [3]float64{float64(m.X), float64(m.Y), float64(m.Z)}
	case *mav.MessageMissionCount:
		f.loading, f.want, f.got = m.MissionType, int(m.Count), nil
		if !f.IgnoreItems {
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
		if f.MissionAck == mav.MAV_MISSION_ACCEPTED {
			f.Stored[f.loading] = f.got
		}
		done = &mav.MessageMissionAck{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(), Type: f.MissionAck, MissionType: f.loading}
	}
	f.Mu.Unlock()
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

func (f *Autopilot) inAir() bool { return f.Z < -0.05 || f.climbTo > 0 }

// command carries out a command (f.Mu held) and says how it went.
func (f *Autopilot) command(m *mav.MessageCommandLong) mav.MAV_RESULT {
	switch m.Command {
	case mav.MAV_CMD_COMPONENT_ARM_DISARM:
		if m.Param1 == 1 {
			if f.GPSFix < 3 || f.Battery < 15 {
				return mav.MAV_RESULT_DENIED
			}
			f.Armed = true
		} else {
			if f.inAir() && m.Param2 != 21196 {
				return mav.MAV_RESULT_DENIED
			}
			f.Armed = false
		}
	case mav.MAV_CMD_DO_SET_MODE:
		f.Main, f.Sub = uint32(m.Param2), uint32(m.Param3)
		f.climbTo = 0
		if f.Main == px4Auto && f.Sub == px4AutoMission {
			f.current = 0
		}
		if f.Main == px4Offboard {
			f.target = [3]float64{f.X, f.Y, f.Z}
		}
	case mav.MAV_CMD_NAV_TAKEOFF:
		if !f.Armed {
			return mav.MAV_RESULT_DENIED
		}
		f.climbTo = float64(m.Param7) - 500
		f.Main, f.Sub = px4Auto, px4AutoTakeoff
	case mav.MAV_CMD_CONDITION_YAW:
		f.Yaw = float64(m.Param1) * math.Pi / 180
	case mav.MAV_CMD_DO_CHANGE_SPEED:
	default:
		return mav.MAV_RESULT_UNSUPPORTED
	}
	return mav.MAV_RESULT_ACCEPTED
}

// PX4 custom modes (px4_custom_mode.h).
const (
	px4Auto        = 4
	px4Offboard    = 6
	px4AutoTakeoff = 2
	px4AutoLoiter  = 3
	px4AutoMission = 4
	px4AutoRTL     = 5
	px4AutoLand    = 6
)

// PX4Hold reports whether the autopilot is in PX4's Hold (AUTO.LOITER).
func (f *Autopilot) PX4Hold() bool {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return f.Main == px4Auto && f.Sub == px4AutoLoiter
}

func toward(from, to, maxStep float64) float64 {
	d := to - from
	if math.Abs(d) <= maxStep {
		return to
	}
	return from + math.Copysign(maxStep, d)
}

func (f *Autopilot) step(dt float64) {
	var reached *mav.MessageMissionItemReached
	f.Mu.Lock()
	const speed = 20.0 // m/s: the tests wait for states, fast is fine
	switch {
	case f.Main == px4Auto && f.Sub == px4AutoTakeoff:
		f.Z = toward(f.Z, -f.climbTo, speed*dt)
		if f.Z == -f.climbTo {
			f.climbTo, f.Sub = 0, px4AutoLoiter
		}
	case f.Main == px4Auto && f.Sub == px4AutoMission:
		items := f.Stored[mav.MAV_MISSION_TYPE_MISSION]
		if f.current >= len(items) {
			break
		}
		it := items[f.current]
		tx, ty, tz := (float64(it.X)/1e7-47.4)*111111, (float64(it.Y)/1e7-8.5)*75000, -float64(it.Z)
		switch it.Command {
		case mav.MAV_CMD_NAV_TAKEOFF:
			tx, ty = f.X, f.Y
		case mav.MAV_CMD_NAV_RETURN_TO_LAUNCH:
			tx, ty, tz = 0, 0, 0
		}
		f.X, f.Y, f.Z = toward(f.X, tx, speed*dt), toward(f.Y, ty, speed*dt), toward(f.Z, tz, speed*dt)
		if math.Abs(f.X-tx) < 0.01 && math.Abs(f.Y-ty) < 0.01 && math.Abs(f.Z-tz) < 0.01 {
			reached = &mav.MessageMissionItemReached{Seq: uint16(f.current)}
			f.current++
			if it.Command == mav.MAV_CMD_NAV_RETURN_TO_LAUNCH {
				f.Armed = false
			}
		}
	case f.Main == px4Offboard:
		f.X, f.Y, f.Z = toward(f.X, f.target[0], speed*dt), toward(f.Y, f.target[1], speed*dt), toward(f.Z, f.target[2], speed*dt)
	case f.Main == px4Auto && (f.Sub == px4AutoLand || f.Sub == px4AutoRTL):
		if f.Sub == px4AutoRTL && (f.X != 0 || f.Y != 0) {
			f.X, f.Y = toward(f.X, 0, speed*dt), toward(f.Y, 0, speed*dt)
			break
		}
		f.Z = toward(f.Z, 0, speed*dt)
		if f.Z == 0 && f.Armed {
			f.Armed = false
		}
	}
	landed := mav.MAV_LANDED_STATE_ON_GROUND
	if f.inAir() {
		landed = mav.MAV_LANDED_STATE_IN_AIR
	}
	base := mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED
	if f.Armed {
		base |= mav.MAV_MODE_FLAG_SAFETY_ARMED
	}
	msgs := []mav.MessageHeartbeat{}
	if f.Heartbeat {
		msgs = append(msgs, mav.MessageHeartbeat{Type: mav.MAV_TYPE_QUADROTOR, Autopilot: mav.MAV_AUTOPILOT_PX4,
			BaseMode: base, CustomMode: f.Main<<16 | f.Sub<<24, SystemStatus: mav.MAV_STATE_ACTIVE, MavlinkVersion: 3})
	}
	x, y, z, yaw, fix, batt := f.X, f.Y, f.Z, f.Yaw, f.GPSFix, f.Battery
	hb := f.Heartbeat
	f.Mu.Unlock()
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

// Send sends any message, as the autopilot (a test's scripted telemetry).
func (f *Autopilot) Send(m message.Message) { _ = f.node.WriteMessageAll(m) }

// StatusText sends a STATUSTEXT.
func (f *Autopilot) StatusText(sev mav.MAV_SEVERITY, text string) {
	_ = f.node.WriteMessageAll(&mav.MessageStatustext{Severity: sev, Text: text})
}
