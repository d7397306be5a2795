// Package multicopter is a simulated PX4 multicopter that speaks MAVLink 2 on UDP, the way PX4
// SITL does, so botd's mavlink_vehicle device (and any ground station) flies it over a real
// socket: heartbeats with PX4's custom modes, arming checks, take-off, position targets
// (offboard), hold, return to launch, landing, the mission protocol and missions flown in
// AUTO.MISSION, fences (inclusion and exclusion polygons and circles) and rally points, a
// battery that drains, and the telemetry a ground station reads.
//
// The vehicle is a point mass with speed and acceleration limits and a constant wind that its
// position controller fights; no attitude dynamics, no sensors noise, no RC. Time moves only in
// Step: Run steps it on the wall clock (TimeScale times faster), a test steps it itself.
//
// It depends on gomavlib and the standard library only (nothing of botd).
package multicopter

import (
	"context"
	"fmt"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"
	"github.com/pion/transport/v2/udp"
)

// PX4 custom modes (px4_custom_mode.h): the main mode in bits 16..23 of the heartbeat's custom
// mode, the sub mode (of AUTO) in bits 24..31.
const (
	PX4Manual     = 1
	PX4AltCtl     = 2
	PX4PosCtl     = 3
	PX4Auto       = 4
	PX4Acro       = 5
	PX4Offboard   = 6
	PX4Stabilized = 7

	PX4AutoTakeoff = 2
	PX4AutoLoiter  = 3
	PX4AutoMission = 4
	PX4AutoRTL     = 5
	PX4AutoLand    = 6
)

// ModeName is PX4's name of a custom mode (main, sub), as QGroundControl shows it.
func ModeName(main, sub uint32) string {
	switch main {
	case PX4Manual:
		return "MANUAL"
	case PX4AltCtl:
		return "ALTCTL"
	case PX4PosCtl:
		return "POSCTL"
	case PX4Acro:
		return "ACRO"
	case PX4Offboard:
		return "OFFBOARD"
	case PX4Stabilized:
		return "STABILIZED"
	case PX4Auto:
		switch sub {
		case PX4AutoTakeoff:
			return "AUTO.TAKEOFF"
		case PX4AutoLoiter:
			return "AUTO.LOITER"
		case PX4AutoMission:
			return "AUTO.MISSION"
		case PX4AutoRTL:
			return "AUTO.RTL"
		case PX4AutoLand:
			return "AUTO.LAND"
		}
	}
	return fmt.Sprintf("%d.%d", main, sub)
}

// Limits on what a ground station can make the vehicle hold.
const (
	MaxMissionItems = 1000 // a longer MISSION_COUNT is answered MAV_MISSION_NO_SPACE
	MaxFenceItems   = 64
)

// forceDisarm is param2 of MAV_CMD_COMPONENT_ARM_DISARM that disarms in the air.
const forceDisarm = 21196

const (
	earthRadius  = 6371000.0
	gravity      = 9.81
	hbPeriod     = time.Second
	fastPeriod   = 100 * time.Millisecond // position, attitude: 10 Hz
	slowPeriod   = 500 * time.Millisecond // battery, GPS, landed state, mission: 2 Hz
	disarmLanded = 2 * time.Second        // PX4 COM_DISARM_LAND
	stepReal     = 10 * time.Millisecond  // Run's wall-clock step
	arriveHoriz  = 0.3                    // m: a take-off or hold is there
	landSlowAlt  = 5.0                    // m: a landing slows to land_speed below this height
)

// item is a mission item the vehicle flies.
type item struct {
	cmd    mav.MAV_CMD
	n, e   float64 // NED from home, m
	alt    float64 // m above home
	radius float64 // acceptance radius, m
	speed  float64 // DO_CHANGE_SPEED's, m/s
}

// Vehicle is the simulated multicopter.
type Vehicle struct {
	cfg  Config
	ln   net.Listener
	node *gomavlib.Node
	done chan struct{}

	sent atomic.Uint64

	mu  sync.Mutex
	out []message.Message // to send once mu is released
	s   state
}

type state struct {
	t           time.Duration // simulated time since boot
	pos, vel    [3]float64    // NED from home, m and m/s (over the ground)
	air         [3]float64    // velocity through the air, m/s
	yaw, yawTo  float64       // rad, 0 north, clockwise
	inAir       bool
	armed       bool
	armedAt     time.Duration
	groundSince time.Duration
	main, sub   uint32
	hold        [3]float64 // where hold, takeoff and land aim
	target      [3]float64 // the offboard position target
	haveTarget  bool       // a target arrived since the vehicle last left offboard
	setpoints   int
	cruise      float64 // mission and return speed, m/s
	rtlAlt      float64 // the altitude this return flies at
	battery     float64
	lowSaid     bool
	critSaid    bool
	mission     []item
	current     int
	zones       []zone // the fence
	fenceItems  int
	rally       int // rally points stored
	breached    bool
	stored      map[mav.MAV_MISSION_TYPE][]mav.MessageMissionItemInt // as uploaded, for downloads
	commands    map[mav.MAV_CMD]int

	// a mission upload in progress
	loading  bool
	loadType mav.MAV_MISSION_TYPE
	want     int
	got      []mav.MessageMissionItemInt

	nextHB, nextFast, nextSlow time.Duration
}

// New opens the vehicle's UDP socket and starts answering frames; time does not move until
// Step or Run. Close it when done.
func New(cfg Config) (*Vehicle, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.Defaults()
	addr, err := net.ResolveUDPAddr("udp4", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	ln, err := udp.Listen("udp4", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	v := &Vehicle{cfg: cfg, ln: ln, done: make(chan struct{})}
	v.s = state{main: PX4Auto, sub: PX4AutoLoiter, battery: cfg.Battery, cruise: cfg.MaxSpeed,
		commands: map[mav.MAV_CMD]int{}, yawTo: math.NaN()}
	v.node = &gomavlib.Node{
		Endpoints: []gomavlib.EndpointConf{gomavlib.EndpointCustomServer{
			Listen: func() (net.Listener, error) { return ln, nil }, Label: "udp"}},
		Dialect:          simDialect,
		OutVersion:       gomavlib.V2,
		OutSystemID:      byte(cfg.SystemID),
		OutComponentID:   1,
		HeartbeatDisable: true,
	}
	if err := v.node.Initialize(); err != nil {
		_ = ln.Close()
		return nil, err
	}
	go v.events()
	return v, nil
}

// Addr is the UDP address the vehicle listens on (the port chosen when Listen's was 0).
func (v *Vehicle) Addr() *net.UDPAddr { return v.ln.Addr().(*net.UDPAddr) }

// Config is the vehicle's config, defaults filled in.
func (v *Vehicle) Config() Config { return v.cfg }

// Close stops the vehicle and closes its socket.
func (v *Vehicle) Close() {
	v.node.Close()
	<-v.done
}

// Run steps the vehicle on the wall clock, TimeScale times faster, until ctx is done.
func (v *Vehicle) Run(ctx context.Context) {
	t := time.NewTicker(stepReal)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			// A late tick (a busy machine) moves the time it missed, in steps of at most 50 ms
			// of simulated time so that the controllers stay stable.
			dt := time.Duration(float64(now.Sub(last)) * v.cfg.TimeScale)
			last = now
			for dt > 0 {
				d := min(dt, 50*time.Millisecond)
				v.Step(d)
				dt -= d
			}
		}
	}
}

func (v *Vehicle) events() {
	defer close(v.done)
	for ev := range v.node.Events() {
		if fr, ok := ev.(*gomavlib.EventFrame); ok {
			v.frame(fr)
		}
	}
}

// flush sends what was queued; call it without mu.
func (v *Vehicle) flush(msgs []message.Message) {
	for _, m := range msgs {
		_ = v.node.WriteMessageAll(m)
	}
	v.sent.Add(uint64(len(msgs)))
}

// Sent is how many messages the vehicle has written (to every ground station it knows).
func (v *Vehicle) Sent() uint64 { return v.sent.Load() }

func (v *Vehicle) unlockAndFlush() {
	msgs := v.out
	v.out = nil
	v.mu.Unlock()
	v.flush(msgs)
}

func (v *Vehicle) send(m message.Message) { v.out = append(v.out, m) }

func (v *Vehicle) say(sev mav.MAV_SEVERITY, text string) {
	v.send(&mav.MessageStatustext{Severity: sev, Text: text})
}

// Snapshot is what a test can see of the vehicle.
type Snapshot struct {
	Time          time.Duration // simulated time since boot
	Armed, InAir  bool
	Main, Sub     uint32 // PX4 custom mode
	Mode          string // its name
	N, E, D       float64
	VN, VE, VD    float64
	Alt           float64 // above home, m
	Yaw           float64
	Battery       float64 // %
	Setpoints     int     // position targets received
	MissionItems  int     // items of the stored mission
	MissionCur    int     // the item flown
	FenceItems    int     // items of the stored fence
	FenceZones    int     // its polygons and circles
	RallyPoints   int
	FenceBreached bool
}

// State is the vehicle's state now.
func (v *Vehicle) State() Snapshot {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := &v.s
	return Snapshot{Time: s.t, Armed: s.armed, InAir: s.inAir, Main: s.main, Sub: s.sub, Mode: ModeName(s.main, s.sub),
		N: s.pos[0], E: s.pos[1], D: s.pos[2], VN: s.vel[0], VE: s.vel[1], VD: s.vel[2], Alt: -s.pos[2], Yaw: s.yaw,
		Battery: s.battery, Setpoints: s.setpoints, MissionItems: len(s.mission), MissionCur: s.current,
		FenceItems: s.fenceItems, FenceZones: len(s.zones), RallyPoints: s.rally, FenceBreached: s.breached}
}

// Commands is how many COMMAND_LONG/COMMAND_INT of kind c the vehicle received.
func (v *Vehicle) Commands(c mav.MAV_CMD) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.s.commands[c]
}

// SetGPSFix changes the GPS fix type the vehicle has (GPS_FIX_TYPE: 3 is a 3-D fix).
func (v *Vehicle) SetGPSFix(fix int) {
	v.mu.Lock()
	v.cfg.GPSFix = fix
	v.mu.Unlock()
}

// SetBattery sets the battery's charge, %.
func (v *Vehicle) SetBattery(pct float64) {
	v.mu.Lock()
	v.s.battery = math.Max(0, math.Min(100, pct))
	v.mu.Unlock()
}

// StatusText sends a STATUSTEXT now.
func (v *Vehicle) StatusText(sev mav.MAV_SEVERITY, text string) {
	v.mu.Lock()
	v.say(sev, text)
	v.unlockAndFlush()
}

// --- geography: a flat Earth around home, as PX4's local frame is ---

func (v *Vehicle) toNE(lat, lon float64) (n, e float64) {
	h := v.cfg.Home
	n = (lat - h.Lat) * math.Pi / 180 * earthRadius
	e = (lon - h.Lon) * math.Pi / 180 * earthRadius * math.Cos(h.Lat*math.Pi/180)
	return n, e
}

func (v *Vehicle) toLatLon(n, e float64) (lat, lon float64) {
	h := v.cfg.Home
	lat = h.Lat + n/earthRadius*180/math.Pi
	lon = h.Lon + e/(earthRadius*math.Cos(h.Lat*math.Pi/180))*180/math.Pi
	return lat, lon
}

// --- frames in ---

func (v *Vehicle) frame(fr *gomavlib.EventFrame) {
	v.mu.Lock()
	defer v.unlockAndFlush()
	mine := func(sys uint8) bool { return sys == 0 || int(sys) == v.cfg.SystemID }
	switch m := fr.Message().(type) {
	case *mav.MessageCommandLong:
		if !mine(m.TargetSystem) {
			return
		}
		p := [7]float64{float64(m.Param1), float64(m.Param2), float64(m.Param3), float64(m.Param4),
			float64(m.Param5), float64(m.Param6), float64(m.Param7)}
		v.ack(fr, m.Command, v.command(m.Command, p))
	case *mav.MessageCommandInt:
		if !mine(m.TargetSystem) {
			return
		}
		p := [7]float64{float64(m.Param1), float64(m.Param2), float64(m.Param3), float64(m.Param4),
			float64(m.X) / 1e7, float64(m.Y) / 1e7, float64(m.Z)}
		v.ack(fr, m.Command, v.command(m.Command, p))
	case *mav.MessageSetPositionTargetLocalNed:
		if !mine(m.TargetSystem) || m.TypeMask&(mav.POSITION_TARGET_TYPEMASK_X_IGNORE|mav.POSITION_TARGET_TYPEMASK_Y_IGNORE|mav.POSITION_TARGET_TYPEMASK_Z_IGNORE) != 0 {
			return // the simulator flies position targets only
		}
		if m.CoordinateFrame != mav.MAV_FRAME_LOCAL_NED {
			return
		}
		v.setTarget(float64(m.X), float64(m.Y), float64(m.Z), m.TypeMask, float64(m.Yaw))
	case *mav.MessageSetPositionTargetGlobalInt:
		if !mine(m.TargetSystem) || m.TypeMask&(mav.POSITION_TARGET_TYPEMASK_X_IGNORE|mav.POSITION_TARGET_TYPEMASK_Y_IGNORE|mav.POSITION_TARGET_TYPEMASK_Z_IGNORE) != 0 {
			return
		}
		alt := float64(m.Alt)
		switch m.CoordinateFrame {
		case mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, mav.MAV_FRAME_GLOBAL_RELATIVE_ALT:
		case mav.MAV_FRAME_GLOBAL_INT, mav.MAV_FRAME_GLOBAL:
			alt -= v.cfg.Home.Alt
		default:
			return
		}
		n, e := v.toNE(float64(m.LatInt)/1e7, float64(m.LonInt)/1e7)
		v.setTarget(n, e, -alt, m.TypeMask, float64(m.Yaw))
	case *mav.MessageMissionCount:
		if !mine(m.TargetSystem) {
			return
		}
		v.missionCount(fr, m)
	case *mav.MessageMissionItemInt:
		if !mine(m.TargetSystem) {
			return
		}
		v.missionItem(fr, m)
	case *mav.MessageMissionRequestList:
		if !mine(m.TargetSystem) {
			return
		}
		v.requestList(fr, m.MissionType)
	case *mav.MessageMissionRequestInt:
		if !mine(m.TargetSystem) {
			return
		}
		v.requestItem(fr, m.Seq, m.MissionType)
	case *mav.MessageMissionRequest:
		if !mine(m.TargetSystem) {
			return
		}
		v.requestItem(fr, m.Seq, m.MissionType)
	case *mav.MessageMissionClearAll:
		if !mine(m.TargetSystem) {
			return
		}
		v.store(m.MissionType, nil)
		v.send(&mav.MessageMissionAck{TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID(),
			Type: mav.MAV_MISSION_ACCEPTED, MissionType: m.MissionType})
	}
}

func (v *Vehicle) setTarget(n, e, d float64, mask mav.POSITION_TARGET_TYPEMASK, yaw float64) {
	s := &v.s
	if !finite(n, e, d) || math.Abs(n) > 1e6 || math.Abs(e) > 1e6 || math.Abs(d) > 1e5 {
		return
	}
	s.setpoints++
	s.target = [3]float64{n, e, d}
	s.haveTarget = true
	if mask&mav.POSITION_TARGET_TYPEMASK_YAW_IGNORE == 0 && finite(yaw) {
		s.yawTo = yaw
	}
}

func (v *Vehicle) ack(fr *gomavlib.EventFrame, c mav.MAV_CMD, res mav.MAV_RESULT) {
	v.s.commands[c]++
	v.send(&mav.MessageCommandAck{Command: c, Result: res, TargetSystem: fr.SystemID(), TargetComponent: fr.ComponentID()})
}

// setMode switches the flight mode (mu held); the heartbeat goes out at once.
func (v *Vehicle) setMode(main, sub uint32) {
	s := &v.s
	if s.main == main && s.sub == sub {
		return
	}
	if main != PX4Offboard {
		s.haveTarget = false
	}
	s.main, s.sub = main, sub
	switch {
	case main == PX4Auto && sub == PX4AutoLoiter, main == PX4PosCtl, main == PX4AltCtl:
		s.hold = s.pos
	case main == PX4Auto && sub == PX4AutoLand:
		s.hold = [3]float64{s.pos[0], s.pos[1], 0}
	case main == PX4Auto && sub == PX4AutoRTL:
		s.rtlAlt = math.Max(v.cfg.RTLAlt, -s.pos[2])
	case main == PX4Auto && sub == PX4AutoMission:
		s.current = 0
	}
	s.nextHB = s.t
}

// command carries out a COMMAND_LONG or COMMAND_INT (mu held). p[4..6] are the position
// (COMMAND_INT's x, y in degrees, z).
func (v *Vehicle) command(c mav.MAV_CMD, p [7]float64) mav.MAV_RESULT {
	s := &v.s
	switch c {
	case mav.MAV_CMD_COMPONENT_ARM_DISARM:
		if p[0] == 1 {
			switch {
			case s.armed:
				return mav.MAV_RESULT_ACCEPTED
			case v.cfg.GPSFix < 3:
				v.say(mav.MAV_SEVERITY_CRITICAL, "Arming denied: no GPS 3D fix")
				return mav.MAV_RESULT_DENIED
			case s.battery < v.cfg.MinArmBattery:
				v.say(mav.MAV_SEVERITY_CRITICAL, fmt.Sprintf("Arming denied: battery %.0f%% low", s.battery))
				return mav.MAV_RESULT_DENIED
			case s.main == PX4Manual || s.main == PX4Stabilized || s.main == PX4Acro:
				v.say(mav.MAV_SEVERITY_CRITICAL, "Arming denied: no manual control input")
				return mav.MAV_RESULT_DENIED
			}
			s.armed, s.armedAt, s.nextHB = true, s.t, s.t
			v.say(mav.MAV_SEVERITY_INFO, "Armed by external command")
			return mav.MAV_RESULT_ACCEPTED
		}
		if p[0] != 0 {
			return mav.MAV_RESULT_DENIED
		}
		if s.inAir && p[1] != forceDisarm {
			v.say(mav.MAV_SEVERITY_CRITICAL, "Disarming denied: not landed")
			return mav.MAV_RESULT_DENIED
		}
		v.disarm("Disarmed by external command")
		return mav.MAV_RESULT_ACCEPTED
	case mav.MAV_CMD_DO_SET_MODE:
		if int(p[0])&int(mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED) == 0 {
			return mav.MAV_RESULT_UNSUPPORTED // PX4 takes its modes as custom modes only
		}
		return v.requestMode(uint32(p[1]), uint32(p[2]))
	case mav.MAV_CMD_NAV_TAKEOFF:
		if !s.armed {
			return mav.MAV_RESULT_DENIED
		}
		alt := v.cfg.TakeoffAlt
		if finite(p[6]) {
			alt = p[6] - v.cfg.Home.Alt // PX4 takes the altitude above sea level
		}
		if alt < 0.5 || alt > 1000 {
			return mav.MAV_RESULT_DENIED
		}
		v.setMode(PX4Auto, PX4AutoTakeoff)
		s.hold = [3]float64{s.pos[0], s.pos[1], -alt}
		v.say(mav.MAV_SEVERITY_INFO, fmt.Sprintf("Takeoff to %.1f meters above home started", alt))
		return mav.MAV_RESULT_ACCEPTED
	case mav.MAV_CMD_NAV_LAND:
		return v.requestMode(PX4Auto, PX4AutoLand)
	case mav.MAV_CMD_NAV_RETURN_TO_LAUNCH:
		return v.requestMode(PX4Auto, PX4AutoRTL)
	case mav.MAV_CMD_NAV_LOITER_UNLIM:
		return v.requestMode(PX4Auto, PX4AutoLoiter)
	case mav.MAV_CMD_MISSION_START:
		return v.requestMode(PX4Auto, PX4AutoMission)
	case mav.MAV_CMD_DO_CHANGE_SPEED:
		if finite(p[1]) && p[1] > 0 {
			s.cruise = math.Min(p[1], v.cfg.MaxSpeed)
		}
		return mav.MAV_RESULT_ACCEPTED
	case mav.MAV_CMD_CONDITION_YAW:
		if !finite(p[0]) {
			return mav.MAV_RESULT_DENIED
		}
		to := p[0] * math.Pi / 180
		if p[3] != 0 {
			dir := 1.0
			if p[2] < 0 {
				dir = -1
			}
			to = s.yaw + dir*to
		}
		s.yawTo = wrap(to)
		return mav.MAV_RESULT_ACCEPTED
	}
	return mav.MAV_RESULT_UNSUPPORTED
}

// requestMode switches to a mode a ground station asked for, when the vehicle can fly it.
func (v *Vehicle) requestMode(main, sub uint32) mav.MAV_RESULT {
	s := &v.s
	switch main {
	case PX4Manual, PX4Stabilized, PX4Acro:
		v.say(mav.MAV_SEVERITY_CRITICAL, "Switching to "+ModeName(main, 0)+" denied: no manual control input")
		return mav.MAV_RESULT_DENIED
	case PX4AltCtl, PX4PosCtl:
	case PX4Offboard:
		if !s.haveTarget {
			v.say(mav.MAV_SEVERITY_CRITICAL, "Switching to OFFBOARD denied: no offboard signal")
			return mav.MAV_RESULT_DENIED
		}
	case PX4Auto:
		switch sub {
		case PX4AutoLoiter, PX4AutoRTL, PX4AutoLand:
		case PX4AutoTakeoff:
			s.hold = [3]float64{s.pos[0], s.pos[1], -math.Max(v.cfg.TakeoffAlt, -s.pos[2])}
		case PX4AutoMission:
			if len(s.mission) == 0 {
				v.say(mav.MAV_SEVERITY_CRITICAL, "Switching to AUTO.MISSION denied: no valid mission")
				return mav.MAV_RESULT_DENIED
			}
		default:
			return mav.MAV_RESULT_UNSUPPORTED
		}
	default:
		return mav.MAV_RESULT_UNSUPPORTED
	}
	hold := s.hold
	v.setMode(main, sub)
	if main == PX4Auto && sub == PX4AutoTakeoff {
		s.hold = hold
	}
	return mav.MAV_RESULT_ACCEPTED
}

func (v *Vehicle) disarm(why string) {
	s := &v.s
	if !s.armed {
		return
	}
	s.armed, s.nextHB = false, s.t
	v.say(mav.MAV_SEVERITY_INFO, why)
}

// --- time ---

// Step moves the simulated time on by dt: the vehicle flies, its battery drains, and the
// telemetry due goes out.
func (v *Vehicle) Step(dt time.Duration) {
	if dt <= 0 {
		return
	}
	v.mu.Lock()
	v.step(dt.Seconds())
	v.s.t += dt
	v.telemetry()
	v.unlockAndFlush()
}

func (v *Vehicle) step(dt float64) {
	s := &v.s
	c := &v.cfg
	// the battery
	switch {
	case s.inAir:
		s.battery -= c.DrainAir * dt
	case s.armed:
		s.battery -= c.DrainGround * dt
	}
	s.battery = math.Max(0, s.battery)
	if s.battery <= c.LowBattery && !s.lowSaid {
		s.lowSaid = true
		v.say(mav.MAV_SEVERITY_WARNING, fmt.Sprintf("Low battery level! %.0f%% remaining", s.battery))
	}
	if s.battery <= c.CriticalBattery && s.inAir && !s.critSaid {
		s.critSaid = true
		v.say(mav.MAV_SEVERITY_CRITICAL, "Critical battery level! Landing")
		v.setMode(PX4Auto, PX4AutoLand)
	}
	// a vehicle armed and left on the ground disarms
	if s.armed && !s.inAir && c.DisarmPreflight > 0 && s.groundSince <= s.armedAt &&
		s.t-s.armedAt > time.Duration(c.DisarmPreflight*float64(time.Second)) {
		v.disarm("Disarmed: no takeoff")
	}
	if !s.inAir && s.armed && s.groundSince > s.armedAt && s.t-s.groundSince >= disarmLanded {
		v.disarm("Disarmed by landing")
	}

	if !s.armed {
		if s.inAir { // forced disarm in the air: it falls
			s.vel[2] += gravity * dt
			s.air = s.vel
			v.integrate(dt)
		}
		return
	}
	target, maxH, maxDown := v.guidance()
	if !s.inAir && target[2] >= -0.1 {
		return // nothing asks it up
	}
	v.control(dt, target, maxH, maxDown)
	v.integrate(dt)
	v.afterMove()
}

// guidance is where the flight mode wants the vehicle, and how fast.
func (v *Vehicle) guidance() (target [3]float64, maxH, maxDown float64) {
	s := &v.s
	c := &v.cfg
	maxH, maxDown = c.MaxSpeed, c.MaxDescent
	switch {
	case s.main == PX4Offboard:
		target = s.target
	case s.main == PX4Auto && s.sub == PX4AutoTakeoff:
		target = s.hold
	case s.main == PX4Auto && s.sub == PX4AutoLand:
		target, maxDown = s.hold, v.landSpeed()
	case s.main == PX4Auto && s.sub == PX4AutoRTL:
		target, maxH, maxDown = v.rtlTarget(), s.cruise, c.MaxDescent
		if math.Hypot(s.pos[0], s.pos[1]) < 1 {
			maxDown = v.landSpeed()
		}
	case s.main == PX4Auto && s.sub == PX4AutoMission:
		target, maxH, maxDown = v.missionTarget()
	default: // hold, position, altitude
		target = s.hold
	}
	return target, maxH, maxDown
}

// rtlTarget: climb to the return altitude, fly home at it, land.
func (v *Vehicle) rtlTarget() [3]float64 {
	s := &v.s
	d := math.Hypot(s.pos[0], s.pos[1])
	switch {
	case d < 1:
		return [3]float64{0, 0, 0}
	case -s.pos[2] < s.rtlAlt-0.5 && d > 2:
		return [3]float64{s.pos[0], s.pos[1], -s.rtlAlt}
	}
	return [3]float64{0, 0, -s.rtlAlt}
}

func (v *Vehicle) missionTarget() (target [3]float64, maxH, maxDown float64) {
	s := &v.s
	maxH, maxDown = s.cruise, v.cfg.MaxDescent
	if s.current >= len(s.mission) {
		return s.hold, maxH, maxDown
	}
	it := s.mission[s.current]
	switch it.cmd {
	case mav.MAV_CMD_NAV_TAKEOFF:
		if math.IsNaN(it.n) {
			it.n, it.e = s.pos[0], s.pos[1]
			s.mission[s.current] = it
		}
		return [3]float64{it.n, it.e, -it.alt}, maxH, maxDown
	case mav.MAV_CMD_NAV_WAYPOINT:
		if math.IsNaN(it.n) {
			it.n, it.e = s.pos[0], s.pos[1]
			s.mission[s.current] = it
		}
		return [3]float64{it.n, it.e, -it.alt}, maxH, maxDown
	case mav.MAV_CMD_NAV_LAND:
		if math.IsNaN(it.n) {
			it.n, it.e = s.pos[0], s.pos[1]
			s.mission[s.current] = it
		}
		if math.Hypot(s.pos[0]-it.n, s.pos[1]-it.e) > it.radius {
			return [3]float64{it.n, it.e, s.pos[2]}, maxH, maxDown
		}
		return [3]float64{it.n, it.e, 0}, maxH, v.landSpeed()
	case mav.MAV_CMD_NAV_RETURN_TO_LAUNCH:
		if s.rtlAlt == 0 {
			s.rtlAlt = math.Max(v.cfg.RTLAlt, -s.pos[2])
		}
		t := v.rtlTarget()
		if math.Hypot(s.pos[0], s.pos[1]) < 1 {
			maxDown = v.landSpeed()
		}
		return t, maxH, maxDown
	}
	return s.hold, maxH, maxDown
}

// landSpeed is how fast a landing descends: max_descent down to landSlowAlt above home, then
// land_speed (PX4's MPC_LAND_ALT2).
func (v *Vehicle) landSpeed() float64 {
	if -v.s.pos[2] > landSlowAlt {
		return v.cfg.MaxDescent
	}
	return v.cfg.LandSpeed
}

// control: a position controller with speed and acceleration limits, flying through the wind.
func (v *Vehicle) control(dt float64, target [3]float64, maxH, maxDown float64) {
	s := &v.s
	c := &v.cfg
	// the ground velocity wanted: towards the target, slowing down in time to stop there
	var want [3]float64
	dn, de := target[0]-s.pos[0], target[1]-s.pos[1]
	dh := math.Hypot(dn, de)
	if dh > 1e-6 {
		sp := math.Min(maxH, math.Min(1.5*dh, math.Sqrt(2*c.MaxAccel*0.7*dh)))
		want[0], want[1] = dn/dh*sp, de/dh*sp
	}
	dz := target[2] - s.pos[2]
	vz := math.Min(1.5*math.Abs(dz), math.Sqrt(2*c.MaxAccel*0.7*math.Abs(dz)))
	if dz > 0 {
		vz = math.Min(vz, maxDown)
		if target[2] >= 0 && -s.pos[2] <= landSlowAlt {
			vz = maxDown // a landing keeps descending until touchdown
		}
	} else {
		vz = -math.Min(vz, c.MaxClimb)
	}
	want[2] = vz
	// through the air: the controller asks the air velocity that makes the wanted ground
	// velocity, and the vehicle gets there as fast as its acceleration allows
	wind := [3]float64{c.Wind[0], c.Wind[1], 0}
	if !s.inAir {
		wind = [3]float64{}
	}
	var dv [3]float64
	for i := range 3 {
		dv[i] = want[i] - wind[i] - s.air[i]
	}
	norm := math.Sqrt(dv[0]*dv[0] + dv[1]*dv[1] + dv[2]*dv[2])
	if lim := c.MaxAccel * dt; norm > lim {
		for i := range dv {
			dv[i] *= lim / norm
		}
	}
	for i := range 3 {
		s.air[i] += dv[i]
		s.vel[i] = s.air[i] + wind[i]
	}
	// yaw: to the commanded heading at 45°/s
	if !math.IsNaN(s.yawTo) {
		d := wrap(s.yawTo - s.yaw)
		step := math.Pi / 4 * dt
		if math.Abs(d) <= step {
			s.yaw = s.yawTo
		} else {
			s.yaw = wrap(s.yaw + math.Copysign(step, d))
		}
	}
}

func (v *Vehicle) integrate(dt float64) {
	s := &v.s
	for i := range 3 {
		s.pos[i] += s.vel[i] * dt
	}
	if s.pos[2] < -0.05 && !s.inAir {
		s.inAir = true
		s.nextHB = s.t
	}
	if s.pos[2] >= 0 && s.inAir {
		// touchdown
		s.pos[2], s.vel, s.air = 0, [3]float64{}, [3]float64{}
		s.inAir, s.groundSince = false, s.t
		if !s.armed {
			v.say(mav.MAV_SEVERITY_EMERGENCY, "Crashed: fell to the ground disarmed")
		} else {
			v.say(mav.MAV_SEVERITY_INFO, "Landing detected")
		}
	}
}

// afterMove: take-offs finish, mission items are reached, landed vehicles disarm, the fence.
func (v *Vehicle) afterMove() {
	s := &v.s
	switch {
	case s.main == PX4Auto && s.sub == PX4AutoTakeoff:
		if math.Abs(s.pos[2]-s.hold[2]) < arriveHoriz {
			v.setMode(PX4Auto, PX4AutoLoiter)
		}
	case s.main == PX4Auto && s.sub == PX4AutoMission && s.current < len(s.mission):
		it := s.mission[s.current]
		done := false
		switch it.cmd {
		case mav.MAV_CMD_NAV_TAKEOFF:
			done = math.Abs(-s.pos[2]-it.alt) < arriveHoriz
		case mav.MAV_CMD_NAV_WAYPOINT:
			d := [3]float64{s.pos[0] - it.n, s.pos[1] - it.e, -s.pos[2] - it.alt}
			done = math.Sqrt(d[0]*d[0]+d[1]*d[1]+d[2]*d[2]) <= it.radius
		case mav.MAV_CMD_NAV_LAND, mav.MAV_CMD_NAV_RETURN_TO_LAUNCH:
			done = !s.inAir
		case mav.MAV_CMD_DO_CHANGE_SPEED:
			if finite(it.speed) && it.speed > 0 {
				s.cruise = math.Min(it.speed, v.cfg.MaxSpeed)
			}
			done = true
		}
		if done {
			v.send(&mav.MessageMissionItemReached{Seq: uint16(s.current)})
			s.current++
			s.rtlAlt = 0
			if s.current >= len(s.mission) {
				v.say(mav.MAV_SEVERITY_INFO, "Mission finished")
				if s.inAir {
					v.setMode(PX4Auto, PX4AutoLoiter)
				}
			}
		}
	}
	// the fence: PX4's GF_ACTION 2, hold
	if len(s.zones) > 0 && s.inAir {
		in := !breached(s.zones, s.pos[0], s.pos[1])
		if !in && !s.breached {
			s.breached = true
			v.say(mav.MAV_SEVERITY_CRITICAL, "Geofence breached, holding")
			if s.main != PX4Auto || (s.sub != PX4AutoRTL && s.sub != PX4AutoLand) {
				v.setMode(PX4Auto, PX4AutoLoiter)
			}
		}
		if in {
			s.breached = false
		}
	}
}

// --- telemetry out ---

func (v *Vehicle) telemetry() {
	s := &v.s
	c := &v.cfg
	boot := uint32(s.t.Milliseconds())
	if s.t >= s.nextHB {
		s.nextHB = s.t + hbPeriod
		base := mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED | mav.MAV_MODE_FLAG_STABILIZE_ENABLED
		if s.main == PX4Auto || s.main == PX4Offboard {
			base |= mav.MAV_MODE_FLAG_AUTO_ENABLED | mav.MAV_MODE_FLAG_GUIDED_ENABLED
		}
		status := mav.MAV_STATE_STANDBY
		if s.armed {
			base |= mav.MAV_MODE_FLAG_SAFETY_ARMED
			status = mav.MAV_STATE_ACTIVE
		}
		if s.battery <= c.CriticalBattery {
			status = mav.MAV_STATE_CRITICAL
		}
		v.send(&mav.MessageHeartbeat{Type: mav.MAV_TYPE_QUADROTOR, Autopilot: mav.MAV_AUTOPILOT_PX4, BaseMode: base,
			CustomMode: s.main<<16 | s.sub<<24, SystemStatus: status, MavlinkVersion: 3})
	}
	if s.t >= s.nextFast {
		s.nextFast = s.t + fastPeriod
		lat, lon := v.toLatLon(s.pos[0], s.pos[1])
		hdg := uint16(math.MaxUint16)
		if h := math.Mod(s.yaw*180/math.Pi+360, 360); finite(h) {
			hdg = uint16(h * 100)
		}
		v.send(&mav.MessageLocalPositionNed{TimeBootMs: boot, X: float32(s.pos[0]), Y: float32(s.pos[1]), Z: float32(s.pos[2]),
			Vx: float32(s.vel[0]), Vy: float32(s.vel[1]), Vz: float32(s.vel[2])})
		v.send(&mav.MessageGlobalPositionInt{TimeBootMs: boot, Lat: int32(math.Round(lat * 1e7)), Lon: int32(math.Round(lon * 1e7)),
			Alt: int32(math.Round((c.Home.Alt - s.pos[2]) * 1000)), RelativeAlt: int32(math.Round(-s.pos[2] * 1000)),
			Vx: int16(s.vel[0] * 100), Vy: int16(s.vel[1] * 100), Vz: int16(s.vel[2] * 100), Hdg: hdg})
		// a tilt that goes with the acceleration through the air (a small-angle picture)
		an, ae := s.air[0], s.air[1]
		cy, sy := math.Cos(s.yaw), math.Sin(s.yaw)
		fwd, right := an*cy+ae*sy, -an*sy+ae*cy
		v.send(&mav.MessageAttitude{TimeBootMs: boot, Roll: float32(math.Atan(right / (4 * gravity))),
			Pitch: float32(-math.Atan(fwd / (4 * gravity))), Yaw: float32(s.yaw)})
	}
	if s.t >= s.nextSlow {
		s.nextSlow = s.t + slowPeriod
		volts := 4 * (3.5 + 0.7*s.battery/100) // a 4S LiPo
		v.send(&mav.MessageSysStatus{VoltageBattery: uint16(volts * 1000), CurrentBattery: -1, BatteryRemaining: int8(math.Round(s.battery))})
		var cells [10]uint16
		for i := range cells {
			cells[i] = math.MaxUint16
		}
		cells[0] = uint16(volts * 1000)
		v.send(&mav.MessageBatteryStatus{Id: 0, BatteryFunction: mav.MAV_BATTERY_FUNCTION_ALL, Type: mav.MAV_BATTERY_TYPE_LIPO,
			Temperature: math.MaxInt16, Voltages: cells, CurrentBattery: -1, CurrentConsumed: -1, EnergyConsumed: -1,
			BatteryRemaining: int8(math.Round(s.battery))})
		lat, lon := v.toLatLon(s.pos[0], s.pos[1])
		sats := uint8(12)
		if c.GPSFix < 3 {
			sats = 3
		}
		v.send(&mav.MessageGpsRawInt{TimeUsec: uint64(s.t.Microseconds()), FixType: mav.GPS_FIX_TYPE(c.GPSFix),
			Lat: int32(math.Round(lat * 1e7)), Lon: int32(math.Round(lon * 1e7)), Alt: int32(math.Round((c.Home.Alt - s.pos[2]) * 1000)),
			Eph: 80, Epv: 120, Vel: uint16(math.Hypot(s.vel[0], s.vel[1]) * 100), Cog: math.MaxUint16, SatellitesVisible: sats})
		v.send(&mav.MessageExtendedSysState{VtolState: mav.MAV_VTOL_STATE_UNDEFINED, LandedState: v.landedState()})
		if len(s.mission) > 0 {
			v.send(&mav.MessageMissionCurrent{Seq: uint16(min(s.current, len(s.mission)-1)), Total: uint16(len(s.mission))})
		}
	}
}

func (v *Vehicle) landedState() mav.MAV_LANDED_STATE {
	s := &v.s
	switch {
	case !s.inAir:
		return mav.MAV_LANDED_STATE_ON_GROUND
	case s.main == PX4Auto && s.sub == PX4AutoTakeoff:
		return mav.MAV_LANDED_STATE_TAKEOFF
	case s.main == PX4Auto && s.sub == PX4AutoLand, s.vel[2] > 0.2 && -s.pos[2] < 2:
		return mav.MAV_LANDED_STATE_LANDING
	}
	return mav.MAV_LANDED_STATE_IN_AIR
}

// inside: the point in the polygon (ray casting).
func inside(poly [][2]float64, n, e float64) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a[1] > e) != (b[1] > e) && n < (b[0]-a[0])*(e-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

func wrap(a float64) float64 {
	for a > math.Pi {
		a -= 2 * math.Pi
	}
	for a < -math.Pi {
		a += 2 * math.Pi
	}
	return a
}
