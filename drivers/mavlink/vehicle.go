package mavlink

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/botd-project/botd/drivers"
)

// vehicleState is what the vehicle last told botd.
type vehicleState struct {
	sysID, compID uint8
	autopilot     string // apPX4, apArduPilot, "" until a heartbeat says
	armed         bool
	landed        mav.MAV_LANDED_STATE
	haveLanded    bool
	mode          flightMode
	custom        uint32

	x, y, z, vx, vy, vz float64 // local NED, m and m/s
	haveLocal           bool
	lat, lon            float64 // degrees
	altAMSL, relAlt     float64 // m; relAlt above home
	haveGlobal          bool
	roll, pitch, yaw    float64 // rad
	haveAttitude        bool
	battPct, battV      float64
	haveBattery         bool
	gpsFix, sats        float64
	haveGPS             bool
}

// inAir is true from take-off until touch-down: the autopilot's landed state when it sends
// one, otherwise armed and more than half a metre above home.
func (s vehicleState) inAir() bool {
	if s.haveLanded {
		switch s.landed {
		case mav.MAV_LANDED_STATE_IN_AIR, mav.MAV_LANDED_STATE_TAKEOFF, mav.MAV_LANDED_STATE_LANDING:
			return true
		}
		return false
	}
	return s.armed && s.haveGlobal && s.relAlt > 0.5
}

// setpoint is the position target streamed while the vehicle flies to it (guided/offboard).
type setpoint struct {
	active   bool
	global   bool
	x, y, z  float64 // local NED (global: lat, lon in degrees, z = altitude above home, up)
	yaw      float64 // rad; NaN: the autopilot's choice
	lastSent time.Time
}

// ErrVehicleLink: no heartbeat from the vehicle (never, or not within heartbeat_timeout_ms).
var ErrVehicleLink = errors.New("no link to the vehicle")

// mavCmd is one COMMAND_LONG.
type mavCmd struct {
	cmd mav.MAV_CMD
	p   [7]float32
}

// vehicleOp is one thing asked of the vehicle: COMMAND_LONGs sent one after the other, each
// acknowledged before the next, and what it does to the streamed position target.
type vehicleOp struct {
	what    string
	steps   []mavCmd
	target  *setpoint // start streaming this target first (GoTo)
	keep    bool      // keep the streamed target (otherwise it stops when the op starts)
	preempt bool      // jump the queue and abort the command in flight (e-stop)
	upload  *upload   // a mission or fence transfer instead of commands
	// guided: the mode switch a GoTo needs unless, when it starts, the
	// previous op was a GoTo too and the vehicle flies guided (decided then,
	// in queue order: a Hold queued before it has switched the mode away,
	// whatever the vehicle reported when the GoTo was made).
	guided *mavCmd
	// waitLink: without a link, the op waits for the vehicle's heartbeat (a failsafe action;
	// the latest one waiting wins) instead of failing.
	waitLink bool
	report   bool // nobody waits for it: a failure is a uav.command_failed event

	id   uint64 // for the leaves, which keep no pointers (see track)
	done chan struct{}
	err  error // set before done closes
}

func newOp(what string, steps ...mavCmd) *vehicleOp {
	return &vehicleOp{what: what, steps: steps, done: make(chan struct{})}
}

// finished reports whether the op is over, and its error.
func (op *vehicleOp) finished() (bool, error) {
	select {
	case <-op.done:
		return true, op.err
	default:
		return false, nil
	}
}

// Vehicle is a mavlink_vehicle device: a PX4 or ArduPilot autopilot that botd is the ground
// station of. Its methods may be called from any goroutine; the ones that command the vehicle
// return once the autopilot acknowledged every command, or with the autopilot's result
// (MAV_RESULT_DENIED, ...) or a timeout after the retries.
type Vehicle struct {
	// fence, when set (before the robot starts), refuses targets outside it before they are
	// sent (Robot.SetFence).
	fence    *drivers.Fence
	cfg      *Config
	name     string
	now      func() time.Time
	log      *slog.Logger
	events   func(drivers.Event)
	estopped func() bool
	link     *mavlinkAdaptor

	ops chan *vehicleOp

	mu        sync.Mutex
	st        vehicleState
	lastHB    time.Time // zero: never
	lostSaid  bool      // the link loss was reported
	target    setpoint
	frames    uint64 // accepted from the vehicle
	malformed uint64 // frames that did not parse (bad CRC, unknown message, truncated)
	foreign   uint64 // frames from other systems, ignored
	texts     int    // STATUSTEXT events in the current second
	textsAt   time.Time
	textsLost uint64
	recent    [64]*vehicleOp // the ops the leaves follow, by id
	safeOp    *vehicleOp     // the last hold the safe state sent (Robot.Settle waits for it)
	fsMode    flightMode     // the failsafe's land or return, until a leaf commands again
	speed     float64        // the GoTo speed last asked for
	// missionCount is the items of the mission botd last uploaded (-1: none);
	// missionReached the last item the vehicle reported reached (-1: none).
	missionCount, missionReached int
	missionCurrent               int // the item the vehicle flies (MISSION_CURRENT; -1: not heard)
	// keepIn is the config's keep-in polygon (KeepFenceUploaded) and planFence the fence items
	// of the plan uploaded last: the vehicle's fence is both.
	keepIn    [][2]float64
	planFence []mav.MessageMissionItemInt
	nextID    uint64
	commands  uint64 // commands sent (retries included)
	acked     uint64
	last      string // the last command's outcome
}

// Name is the device's name.
func (v *Vehicle) Name() string { return v.name }

func (v *Vehicle) snapshot() (vehicleState, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.st, v.linkUpLocked()
}

func (v *Vehicle) linkUpLocked() bool {
	return !v.lastHB.IsZero() && v.now().Sub(v.lastHB) <= v.hbTimeout()
}

func (v *Vehicle) hbTimeout() time.Duration {
	return time.Duration(v.cfg.HeartbeatTimeoutMs * float64(time.Millisecond))
}

// linkGrace is how long past heartbeat_timeout_ms a running UAV action waits for the link
// before it fails: the sensor fault, and with it the runner's failsafe, comes first.
const linkGrace = time.Second

// lostFor is how long the link has been lost (0 while it is up; since the start when the
// vehicle was never heard).
func (v *Vehicle) lostFor() time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.lastHB.IsZero() || v.linkUpLocked() {
		if v.lastHB.IsZero() {
			return linkGrace
		}
		return 0
	}
	return v.now().Sub(v.lastHB) - v.hbTimeout()
}

// LinkUp reports whether the vehicle's heartbeat is fresh.
func (v *Vehicle) LinkUp() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.linkUpLocked()
}

// Reporting says whether the vehicle is heard and has sent its global
// position and its GPS state.
func (v *Vehicle) Reporting() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.linkUpLocked() && v.st.haveGlobal && v.st.haveGPS
}

// submit queues op for the link goroutine; it fails at once when the device is not running or
// its queue is full.
func (v *Vehicle) submit(op *vehicleOp) *vehicleOp {
	if done, _ := op.finished(); done {
		return op // failed before it could be sent
	}
	select {
	case v.ops <- op:
	default:
		op.err = fmt.Errorf("%s: %d commands are already waiting for the vehicle", op.what, cap(v.ops))
		close(op.done)
	}
	return op
}

// track submits op and returns an id the leaves keep in their memory to follow it.
func (v *Vehicle) track(op *vehicleOp) uint64 {
	v.mu.Lock()
	v.fsMode = modeUnknown
	v.nextID++
	op.id = v.nextID
	v.recent[op.id%uint64(len(v.recent))] = op
	v.mu.Unlock()
	v.submit(op)
	return op.id
}

// opStatus is how the op with that id went: known is false for one too old to remember.
func (v *Vehicle) opStatus(id uint64) (done bool, err error, known bool) {
	v.mu.Lock()
	op := v.recent[id%uint64(len(v.recent))]
	v.mu.Unlock()
	if op == nil || op.id != id {
		return false, nil, false
	}
	done, err = op.finished()
	return done, err, true
}

// failedOp is an op that failed before reaching the queue.
func failedOp(what string, err error) *vehicleOp {
	op := newOp(what)
	op.err = fmt.Errorf("%s: %w", what, err)
	close(op.done)
	return op
}

// wait blocks until op is over; the bound covers every retry of every step, and the time the
// op may wait in the queue behind others.
func (v *Vehicle) wait(op *vehicleOp) error {
	per := time.Duration(v.cfg.AckTimeoutMs*float64(time.Millisecond)) * time.Duration(v.cfg.Retries+1)
	steps := len(op.steps)
	if op.guided != nil {
		steps++ // the switch to guided flight the worker may add
	}
	bound := per*time.Duration(steps+1)*time.Duration(cap(v.ops)/4+1) + v.hbTimeout()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-op.done:
		return op.err
	case <-t.C:
		return fmt.Errorf("%s: no outcome after %v", op.what, bound)
	}
}

// ready returns the state for building an op, or an error when the vehicle cannot be
// commanded (no link, autopilot unknown).
func (v *Vehicle) ready() (vehicleState, error) {
	st, up := v.snapshot()
	switch {
	case !up:
		return st, ErrVehicleLink
	case st.autopilot == "":
		return st, fmt.Errorf("the vehicle's autopilot is unknown (set autopilot: px4 or ardupilot)")
	}
	return st, nil
}

func setModeCmd(ap string, m flightMode) (mavCmd, error) {
	custom, sub, err := encodeMode(ap, m)
	if err != nil {
		return mavCmd{}, err
	}
	return mavCmd{cmd: mav.MAV_CMD_DO_SET_MODE, p: [7]float32{float32(mav.MAV_MODE_FLAG_CUSTOM_MODE_ENABLED), custom, sub}}, nil
}

// modeOp is an op that switches to flight mode m.
func (v *Vehicle) modeOp(what string, m flightMode) *vehicleOp {
	st, err := v.ready()
	if err != nil {
		return failedOp(what, err)
	}
	c, err := setModeCmd(st.autopilot, m)
	if err != nil {
		return failedOp(what, err)
	}
	op := newOp(what, c)
	op.keep = m == modeGuided
	return op
}

func (v *Vehicle) armOp(arm, force bool) *vehicleOp {
	what := "arm"
	p1 := float32(1)
	if !arm {
		what, p1 = "disarm", 0
	}
	if _, err := v.ready(); err != nil {
		return failedOp(what, err)
	}
	c := mavCmd{cmd: mav.MAV_CMD_COMPONENT_ARM_DISARM, p: [7]float32{p1}}
	if force {
		c.p[1] = 21196 // the magic number that makes the autopilot disarm in the air
		what = "force " + what
	}
	return newOp(what, c)
}

func (v *Vehicle) takeoffOp(alt float64) *vehicleOp {
	what := fmt.Sprintf("takeoff to %.1f m", alt)
	st, err := v.ready()
	if err != nil {
		return failedOp(what, err)
	}
	nan := float32(math.NaN())
	switch st.autopilot {
	case apPX4:
		// PX4 takes the altitude above mean sea level.
		if !st.haveGlobal {
			return failedOp(what, errors.New("no global position from the vehicle yet (PX4's take-off altitude is above sea level)"))
		}
		home := st.altAMSL - st.relAlt
		return newOp(what, mavCmd{cmd: mav.MAV_CMD_NAV_TAKEOFF, p: [7]float32{0, 0, 0, nan, nan, nan, float32(home + alt)}})
	default:
		guided, _ := setModeCmd(st.autopilot, modeGuided)
		return newOp(what, guided, mavCmd{cmd: mav.MAV_CMD_NAV_TAKEOFF, p: [7]float32{0, 0, 0, nan, 0, 0, float32(alt)}})
	}
}

// gotoOp streams target and switches to guided (offboard) flight, after setting the speed.
func (v *Vehicle) gotoOp(t setpoint, speed float64) *vehicleOp {
	what := fmt.Sprintf("go to (%.6g, %.6g, %.1f m)", t.x, t.y, t.z)
	st, err := v.ready()
	if err != nil {
		return failedOp(what, err)
	}
	// A GoTo ticked again (a reactive Sequence re-opens it) sends no speed it already sent.
	v.mu.Lock()
	sameSpeed := v.target.active && v.speed == speed
	v.speed = speed
	v.mu.Unlock()
	var steps []mavCmd
	if speed > 0 && !sameSpeed {
		steps = append(steps, mavCmd{cmd: mav.MAV_CMD_DO_CHANGE_SPEED, p: [7]float32{1, float32(speed), -1}})
	}
	c, err := setModeCmd(st.autopilot, modeGuided)
	if err != nil {
		return failedOp(what, err)
	}
	op := newOp(what, steps...)
	t.active = true
	op.target, op.keep, op.guided = &t, true, &c
	return op
}

func (v *Vehicle) yawOp(deg, rate float64, relative bool) *vehicleOp {
	what := fmt.Sprintf("yaw to %.0f°", deg)
	if _, err := v.ready(); err != nil {
		return failedOp(what, err)
	}
	dir, rel := float32(0), float32(0)
	if relative {
		rel, dir = 1, 1
		if deg < 0 {
			dir = -1
		}
		deg = math.Abs(deg)
	}
	v.mu.Lock()
	if v.target.active {
		if relative {
			v.target.yaw = v.st.yaw + math.Copysign(deg, float64(dir))*math.Pi/180
		} else {
			v.target.yaw = deg * math.Pi / 180
		}
	}
	v.mu.Unlock()
	op := newOp(what, mavCmd{cmd: mav.MAV_CMD_CONDITION_YAW, p: [7]float32{float32(deg), float32(rate), dir, rel}})
	op.keep = true
	return op
}

// Arm arms the motors.
func (v *Vehicle) Arm() error { return v.wait(v.submit(v.armOp(true, false))) }

// Disarm stops the motors (the autopilot refuses in the air).
func (v *Vehicle) Disarm() error { return v.wait(v.submit(v.armOp(false, false))) }

// Hold stops the vehicle where it is (PX4 Hold, ArduPilot Loiter). Refused during an e-stop.
func (v *Vehicle) Hold() error {
	if v.estopped() {
		return fmt.Errorf("hold: %w", drivers.ErrEStopped)
	}
	return v.wait(v.submit(v.modeOp("hold", modeHold)))
}

// ReturnHome flies the vehicle home and lands it there (PX4 Return, ArduPilot RTL). Refused
// during an e-stop.
func (v *Vehicle) ReturnHome() error {
	if v.estopped() {
		return fmt.Errorf("return home: %w", drivers.ErrEStopped)
	}
	return v.wait(v.submit(v.modeOp("return home", modeReturn)))
}

// Land lands the vehicle where it is.
func (v *Vehicle) Land() error { return v.wait(v.submit(v.modeOp("land", modeLand))) }

// Failsafe starts a runner failsafe action ("land", "return_home" or "hold") without waiting
// for the vehicle: the tick goroutine calls it.
func (v *Vehicle) Failsafe(action string) error {
	var op *vehicleOp
	var m flightMode
	switch action {
	case "land":
		m = modeLand
	case "return_home":
		if v.estopped() {
			return nil // the e-stop's own action wins
		}
		m = modeReturn
	case "hold":
		v.safeStop()
		return nil
	default:
		return fmt.Errorf("vehicle %q: unknown failsafe action %q", v.name, action)
	}
	v.mu.Lock()
	ap := v.st.autopilot
	v.fsMode = m
	v.mu.Unlock()
	c, err := setModeCmd(ap, m)
	if err != nil {
		return fmt.Errorf("vehicle %q: failsafe %s: %w", v.name, action, err)
	}
	// Sent when the link is up, or as soon as the vehicle's heartbeat is back.
	op = newOp("failsafe "+m.String(), c)
	op.waitLink, op.report = true, true
	v.submit(op)
	return nil
}

// safeStop is the vehicle's safe state: no more position targets, and a flying vehicle holds
// where it is, unless it is already landing or returning home (holding would stop that).
func (v *Vehicle) safeStop() {
	v.mu.Lock()
	v.target.active = false
	st, up := v.st, v.linkUpLocked()
	v.mu.Unlock()
	v.mu.Lock()
	fs := v.fsMode
	v.mu.Unlock()
	if !up || !st.inAir() || st.mode == modeLand || st.mode == modeReturn || fs == modeLand || fs == modeReturn || v.estopped() {
		return
	}
	op := v.modeOp("hold (safe state)", modeHold)
	op.report = true
	v.mu.Lock()
	v.safeOp = op
	v.mu.Unlock()
	v.submit(op)
}

// Settle waits for the last hold the safe state sent to be acknowledged (or refused), or for
// ctx; nil when there is none to wait for.
func (v *Vehicle) Settle(ctx context.Context) error {
	v.mu.Lock()
	op := v.safeOp
	v.mu.Unlock()
	if op == nil {
		return nil
	}
	select {
	case <-op.done:
		return op.err
	case <-ctx.Done():
		return fmt.Errorf("%s: %s: not acknowledged: %w", v.name, op.what, ctx.Err())
	}
}

// eStop is what the e-stop does: land, or stop the motors when landed (or in the air, forced).
// It jumps the queue.
func (v *Vehicle) eStop() {
	v.mu.Lock()
	v.target.active = false
	st, up := v.st, v.linkUpLocked()
	v.mu.Unlock()
	if st.autopilot == "" {
		v.log.Warn("e-stop: the vehicle was never heard from: nothing to tell it", "device", v.name)
		return
	}
	var op *vehicleOp
	switch {
	case v.cfg.EStop == EStopMotorsOff && (!st.inAir() || v.cfg.EStopForce):
		c := mavCmd{cmd: mav.MAV_CMD_COMPONENT_ARM_DISARM}
		what := "e-stop: motors off"
		if st.inAir() {
			c.p[1] = 21196 // disarm in the air
			what += " in the air"
		}
		op = newOp(what, c)
	case st.inAir():
		c, err := setModeCmd(st.autopilot, modeLand)
		if err != nil {
			v.log.Error("e-stop: cannot land", "device", v.name, "err", err)
			return
		}
		op = newOp("e-stop: land", c)
	default:
		return // on the ground, e-stop land: nothing to do
	}
	if !up {
		// Sent as soon as the vehicle's heartbeat is back; meanwhile only the autopilot's own
		// data-link-loss failsafe acts.
		v.log.Warn("e-stop: no link to the vehicle: sent when it is back", "device", v.name)
	}
	op.preempt, op.waitLink, op.report = true, true, true
	v.submit(op)
}

// emit reports a device event.
func (v *Vehicle) emit(kind, level, msg string) {
	switch level {
	case "error":
		v.log.Error(msg, "device", v.name)
	case "warning":
		v.log.Warn(msg, "device", v.name)
	default:
		v.log.Info(msg, "device", v.name)
	}
	if v.events != nil {
		v.events(drivers.Event{Time: v.now(), Device: v.name, Kind: kind, Level: level, Message: msg})
	}
}

// read fills the vehicle's keys; a vehicle without a heartbeat for heartbeat_timeout_ms is a
// read error (SENSOR_ERROR) and one never heard from is stale.
func (v *Vehicle) read(now time.Time, vals []float64) error {
	v.mu.Lock()
	if v.lastHB.IsZero() {
		v.mu.Unlock()
		return drivers.ErrNoSample
	}
	age := now.Sub(v.lastHB)
	if age > v.hbTimeout() {
		say := !v.lostSaid
		v.lostSaid = true
		v.mu.Unlock()
		if say {
			v.emit("uav.link_lost", "error", fmt.Sprintf("%s: no heartbeat from the vehicle for %v", v.name, age.Round(time.Millisecond)))
		}
		return fmt.Errorf("%w: no heartbeat for %v (heartbeat_timeout_ms %v)", ErrVehicleLink, age.Round(time.Millisecond), v.cfg.HeartbeatTimeoutMs)
	}
	defer v.mu.Unlock()
	s := &v.st
	b := func(x bool) float64 {
		if x {
			return 1
		}
		return 0
	}
	nan := math.NaN()
	opt := func(have bool, x float64) float64 {
		if have {
			return x
		}
		return nan
	}
	vals[vkArmed], vals[vkInAir], vals[vkMode] = b(s.armed), b(s.inAir()), float64(s.mode)
	vals[vkLanded] = opt(s.haveLanded, float64(s.landed))
	vals[vkX], vals[vkY], vals[vkZ] = opt(s.haveLocal, s.x), opt(s.haveLocal, s.y), opt(s.haveLocal, s.z)
	vals[vkVx], vals[vkVy], vals[vkVz] = opt(s.haveLocal, s.vx), opt(s.haveLocal, s.vy), opt(s.haveLocal, s.vz)
	vals[vkAlt], vals[vkAltAMSL] = opt(s.haveGlobal, s.relAlt), opt(s.haveGlobal, s.altAMSL)
	vals[vkLat], vals[vkLon] = opt(s.haveGlobal, s.lat), opt(s.haveGlobal, s.lon)
	vals[vkRoll], vals[vkPitch], vals[vkYaw] = opt(s.haveAttitude, s.roll), opt(s.haveAttitude, s.pitch), opt(s.haveAttitude, s.yaw)
	vals[vkBattPct], vals[vkBattV] = opt(s.haveBattery, s.battPct), opt(s.haveBattery, s.battV)
	vals[vkGPSFix], vals[vkSats] = opt(s.haveGPS, s.gpsFix), opt(s.haveGPS, s.sats)
	vals[vkHBAge] = age.Seconds()
	vals[vkMissionItem] = opt(v.missionCurrent >= 0, float64(v.missionCurrent))
	return nil
}

func (v *Vehicle) detail() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := fmt.Sprintf("%s autopilot, system %d, %s, mode %s; %d frames, %d malformed dropped, %d from other systems; %d commands sent, %d acknowledged",
		orUnknown(v.st.autopilot), v.st.sysID, map[bool]string{true: "armed", false: "disarmed"}[v.st.armed], v.st.mode,
		v.frames, v.malformed, v.foreign, v.commands, v.acked)
	if v.last != "" {
		s += " (last: " + v.last + ")"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// SetFence makes the vehicle refuse a Takeoff or GoTo whose target the fence does not allow,
// before anything is sent (a target from the blackboard is known only then): the vehicle is a
// FenceGuard. Robot.SetFence calls it before Start.
func (v *Vehicle) SetFence(f *drivers.Fence) { v.fence = f }

// Of returns the robot's mavlink_vehicle device with that name.
func Of(r *drivers.Robot, name string) (*Vehicle, bool) {
	for _, v := range drivers.Abilities[*Vehicle](r) {
		if v.name == name {
			return v, true
		}
	}
	return nil, false
}

// A vehicle's abilities, which the robot and the daemon find by type.
var (
	_ drivers.Settler    = (*Vehicle)(nil)
	_ drivers.Failsafer  = (*Vehicle)(nil)
	_ drivers.FenceGuard = (*Vehicle)(nil)
	_ drivers.Autopilot  = (*Vehicle)(nil)
	_ drivers.OwnDeadman = (*vehicleAct)(nil)
)

// vehicleAct is the vehicle's place in the envelope: a leaf owns it while it flies the
// vehicle, and its safe state (halt, mission end, abort) is safeStop.
type vehicleAct struct {
	v    *Vehicle
	last uint8 // the mode last written
}

// Command is what the envelope holds for a vehicle: who flies it (a leaf's own commands go
// straight to the vehicle; the envelope keeps the owner, the safe state and the e-stop).
type Command struct{ mode uint8 }

// Vehicle command modes.
const (
	vehSafe   uint8 = iota // no leaf flies the vehicle
	vehFlying              // a leaf does (its own commands go straight to the vehicle)
	vehEStop               // the e-stop: land, or motors off
)

// Safe implements drivers.ActuatorImpl: no leaf flies the vehicle.
func (*vehicleAct) Safe() Command { return Command{mode: vehSafe} }

// Clamp implements drivers.ActuatorImpl: the leaves bound their own targets.
func (*vehicleAct) Clamp(c Command) Command { return c }

// Write implements drivers.ActuatorImpl: the safe state holds, the e-stop lands or stops the
// motors.
func (a *vehicleAct) Write(c Command, _ time.Time, force bool) error {
	if c.mode == a.last && !force {
		return nil
	}
	a.last = c.mode
	switch c.mode {
	case vehSafe:
		a.v.safeStop()
	case vehEStop:
		a.v.eStop()
	}
	return nil
}

// OwnDeadman implements OwnDeadman: the autopilot flies its last goal and holds there on its
// own, and its link-loss failsafe covers a daemon that is gone.
func (*vehicleAct) OwnDeadman() {}

// EStopState implements drivers.EStopper: the e-stop lands the vehicle or stops its motors.
func (a *vehicleAct) EStopState() Command { return Command{mode: vehEStop} }

// Hold, ReturnHome and Land are what the daemon's geofence finds on the vehicle's actuator. It
// calls them on the tick goroutine, so they start the action and return at once (the blocking
// Vehicle methods would hold the tick up to the acknowledgement); an action the autopilot
// refuses is reported as a uav.command_failed event.
func (a *vehicleAct) Hold() error       { return a.v.Failsafe("hold") }
func (a *vehicleAct) ReturnHome() error { return a.v.Failsafe("return_home") }
func (a *vehicleAct) Land() error       { return a.v.Failsafe("land") }

// build builds a mavlink_vehicle device: the link (its own board), the vehicle driver, an
// actuator for ownership and the safe state, and a sensor for its telemetry.
func build(b *drivers.Builder) error {
	c := b.Spec().(*Config)
	v := &Vehicle{cfg: c, name: b.Name(), now: b.Clock(), log: b.Logger(), events: b.Options().Events,
		ops: make(chan *vehicleOp, 16), missionCount: -1, missionReached: -1, missionCurrent: -1}
	v.estopped = b.EStopped()
	v.target.yaw = math.NaN()
	v.link = &mavlinkAdaptor{name: b.Name() + "-link", cfg: c}
	// The link is the device's own board: connected with the boards, finalized after them.
	b.OwnBoard("mavlink", v.link)
	b.AddDriver(&vehicleDriver{name: b.Name(), v: v}, true)
	drivers.NewActuator[Command](b, &vehicleAct{v: v})
	b.Sensor(c.SampleConfig, v.read)
	b.Detail(v.detail)
	b.Ability(v)
	return nil
}

// Takeoff climbs to alt m above home (the vehicle must be armed).
func (v *Vehicle) Takeoff(alt float64) error { return v.wait(v.submit(v.takeoffOp(alt))) }
