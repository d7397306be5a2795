package mavlink

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/bluenviron/gomavlib/v3"
	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"
	"github.com/bluenviron/gomavlib/v3/pkg/message"
	"github.com/botd-project/botd/drivers"
	"gobot.io/x/gobot/v2"
)

// mavlinkAdaptor is the MAVLink link as a Gobot adaptor: Connect opens the endpoint (binds the
// UDP port, dials TCP, opens the serial port) and starts sending botd's heartbeat; Finalize
// closes it.
type mavlinkAdaptor struct {
	name string
	cfg  *Config

	mu   sync.Mutex
	node *gomavlib.Node
}

var _ gobot.Adaptor = (*mavlinkAdaptor)(nil)

func (a *mavlinkAdaptor) Name() string     { return a.name }
func (a *mavlinkAdaptor) SetName(n string) { a.name = n }

func (a *mavlinkAdaptor) Connect() error {
	c, err := parseMAVLinkConnection(a.cfg.Connection)
	if err != nil {
		return err
	}
	var ep gomavlib.EndpointConf
	switch c.scheme {
	case "udpin":
		ep = gomavlib.EndpointUDPServer{Address: c.addr}
	case "udpout":
		ep = gomavlib.EndpointUDPClient{Address: c.addr}
	case "tcp":
		ep = gomavlib.EndpointTCPClient{Address: c.addr}
	case "serial":
		ep = gomavlib.EndpointSerial{Device: c.addr, Baud: c.baud}
	}
	n := &gomavlib.Node{
		Endpoints:           []gomavlib.EndpointConf{ep},
		Dialect:             linkDialect,
		OutVersion:          gomavlib.V2,
		OutSystemID:         byte(a.cfg.GCSSystemID),
		OutComponentID:      byte(mav.MAV_COMP_ID_MISSIONPLANNER),
		HeartbeatPeriod:     time.Duration(float64(time.Second) / a.cfg.HeartbeatHz),
		HeartbeatSystemType: int(mav.MAV_TYPE_GCS),
		// A ground station is no flight controller (what QGroundControl says too).
		HeartbeatAutopilotType: int(mav.MAV_AUTOPILOT_INVALID),
		// ArduPilot sends telemetry only when asked for it.
		StreamRequestEnable:    true,
		StreamRequestFrequency: 10,
	}
	if err := n.Initialize(); err != nil {
		return fmt.Errorf("mavlink %s: %w", a.cfg.Connection, err)
	}
	a.mu.Lock()
	a.node = n
	a.mu.Unlock()
	return nil
}

func (a *mavlinkAdaptor) Finalize() error {
	a.mu.Lock()
	n := a.node
	a.node = nil
	a.mu.Unlock()
	if n != nil {
		n.Close()
	}
	return nil
}

func (a *mavlinkAdaptor) get() *gomavlib.Node {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.node
}

// vehicleDriver is the vehicle as a Gobot driver on the link: Start runs the link goroutine
// (frames in, commands out with their acknowledgements, position targets), Halt stops it and
// waits for it.
type vehicleDriver struct {
	name string
	v    *Vehicle

	mu   sync.Mutex
	stop chan struct{}
	done chan struct{}
}

var _ gobot.Driver = (*vehicleDriver)(nil)

func (d *vehicleDriver) Name() string                 { return d.name }
func (d *vehicleDriver) SetName(n string)             { d.name = n }
func (d *vehicleDriver) Connection() gobot.Connection { return d.v.link }

func (d *vehicleDriver) Start() error {
	n := d.v.link.get()
	if n == nil {
		return errors.New("the MAVLink link is not connected")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop != nil {
		return errors.New("started twice")
	}
	d.stop, d.done = make(chan struct{}), make(chan struct{})
	w := &linkWorker{v: d.v, node: n, stop: d.stop, start: time.Now()}
	go func() {
		defer close(d.done)
		w.run()
	}()
	return nil
}

func (d *vehicleDriver) Halt() error {
	d.mu.Lock()
	stop, done := d.stop, d.done
	d.stop = nil
	d.mu.Unlock()
	if stop == nil {
		return nil
	}
	close(stop)
	<-done
	return nil
}

// linkWorker is the link goroutine's state.
type linkWorker struct {
	v     *Vehicle
	node  *gomavlib.Node
	stop  chan struct{}
	start time.Time

	queue    []*vehicleOp
	deferred *vehicleOp // a failsafe action waiting for the link
	cur      *vehicleOp
	steps    []mavCmd // cur's steps, with the switch to guided flight when its GoTo needs it
	step     int
	tries    int
	deadline time.Time
	lastItem int // the mission item sent last (-1: the count)
}

// workerTick is how often the link goroutine looks at timeouts and position targets.
const workerTick = 20 * time.Millisecond

func (w *linkWorker) run() {
	t := time.NewTicker(workerTick)
	defer t.Stop()
	defer w.failAll(drivers.ErrClosed)
	for {
		select {
		case <-w.stop:
			w.flush()
			return
		case ev, ok := <-w.node.Events():
			if !ok {
				return
			}
			w.handle(ev)
		case op := <-w.v.ops:
			w.enqueue(op)
		case <-t.C:
			w.timers()
		}
		w.next()
	}
}

// flush sends, once and without waiting for the acknowledgement, the first command of every op
// still waiting when the link closes: the safe state's hold as botd shuts down over a flying
// vehicle goes out rather than nowhere.
func (w *linkWorker) flush() {
	for {
		select {
		case op := <-w.v.ops:
			w.queue = append(w.queue, op)
			continue
		default:
		}
		break
	}
	if !w.v.LinkUp() {
		return
	}
	st, _ := w.v.snapshot()
	for _, op := range w.queue {
		if len(op.steps) == 0 {
			continue
		}
		c := op.steps[0]
		_ = w.node.WriteMessageAll(&mav.MessageCommandLong{TargetSystem: st.sysID, TargetComponent: st.compID, Command: c.cmd,
			Param1: c.p[0], Param2: c.p[1], Param3: c.p[2], Param4: c.p[3], Param5: c.p[4], Param6: c.p[5], Param7: c.p[6]})
	}
}

func (w *linkWorker) enqueue(op *vehicleOp) {
	if !op.preempt {
		w.queue = append(w.queue, op)
		return
	}
	why := fmt.Errorf("superseded by %s", op.what)
	if w.cur != nil {
		w.finish(why)
	}
	if w.deferred != nil {
		w.queue = append(w.queue, w.deferred)
		w.deferred = nil
	}
	for _, q := range w.queue {
		q.err = fmt.Errorf("%s: %w", q.what, why)
		close(q.done)
	}
	w.queue = append(w.queue[:0], op)
}

func (w *linkWorker) failAll(err error) {
	if w.cur != nil {
		w.finish(err)
	}
	if w.deferred != nil {
		w.queue = append(w.queue, w.deferred)
		w.deferred = nil
	}
	for _, q := range w.queue {
		q.err = fmt.Errorf("%s: %w", q.what, err)
		close(q.done)
	}
	w.queue = nil
	for {
		select {
		case op := <-w.v.ops:
			op.err = fmt.Errorf("%s: %w", op.what, err)
			close(op.done)
		default:
			return
		}
	}
}

// next starts the next queued op when none is in flight.
func (w *linkWorker) next() {
	for w.cur == nil && len(w.queue) > 0 {
		op := w.queue[0]
		w.queue = w.queue[1:]
		if !w.v.LinkUp() {
			if op.waitLink {
				if w.deferred != nil {
					w.deferred.err = fmt.Errorf("%s: superseded by %s", w.deferred.what, op.what)
					close(w.deferred.done)
				}
				w.deferred = op
				continue
			}
			op.err = fmt.Errorf("%s: %w", op.what, ErrVehicleLink)
			close(op.done)
			continue
		}
		w.v.mu.Lock()
		// The op is shared with its waiter (Vehicle.wait reads its
		// steps): the worker's own copy takes the mode switch.
		steps := op.steps
		if op.guided != nil && !(w.v.target.active && w.v.st.mode == modeGuided) {
			steps = append(steps[:len(steps):len(steps)], *op.guided)
		}
		switch {
		case op.target != nil:
			w.v.target = *op.target
		case !op.keep:
			w.v.target.active = false
		}
		w.v.mu.Unlock()
		if op.target != nil {
			w.sendSetpoint(time.Now())
		}
		w.cur, w.steps, w.step = op, steps, 0
		if op.upload != nil {
			w.startUpload()
			continue
		}
		if len(w.steps) == 0 {
			w.finish(nil)
			continue
		}
		w.send()
	}
}

// send sends the current step (again: confirmation counts the tries).
func (w *linkWorker) send() {
	c := w.steps[w.step]
	st, _ := w.v.snapshot()
	msg := &mav.MessageCommandLong{TargetSystem: st.sysID, TargetComponent: st.compID, Command: c.cmd,
		Confirmation: uint8(min(w.tries, 255)),
		Param1:       c.p[0], Param2: c.p[1], Param3: c.p[2], Param4: c.p[3], Param5: c.p[4], Param6: c.p[5], Param7: c.p[6]}
	_ = w.node.WriteMessageAll(msg)
	w.v.mu.Lock()
	w.v.commands++
	w.v.mu.Unlock()
	w.deadline = time.Now().Add(time.Duration(w.v.cfg.AckTimeoutMs * float64(time.Millisecond)))
}

// finish ends the op in flight.
func (w *linkWorker) finish(err error) {
	op := w.cur
	w.cur, w.steps, w.tries = nil, nil, 0
	if err != nil {
		op.err = fmt.Errorf("%s: %w", op.what, err)
	}
	w.v.mu.Lock()
	if op.err != nil {
		w.v.last = op.err.Error()
	} else {
		w.v.last = op.what + ": accepted"
	}
	w.v.mu.Unlock()
	close(op.done)
	if op.report && op.err != nil {
		w.v.emit("uav.command_failed", "error", fmt.Sprintf("%s: %v", w.v.name, op.err))
	}
}

// CommandError is a command the autopilot refused, with its MAV_RESULT.
type CommandError struct {
	Command mav.MAV_CMD
	Result  mav.MAV_RESULT
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s refused by the autopilot: %s", e.Command, e.Result)
}

func (w *linkWorker) ack(a *mav.MessageCommandAck) {
	if w.cur == nil || w.cur.upload != nil || a.Command != w.steps[w.step].cmd {
		return
	}
	w.v.mu.Lock()
	w.v.acked++
	w.v.mu.Unlock()
	switch a.Result {
	case mav.MAV_RESULT_ACCEPTED:
		w.step++
		w.tries = 0
		if w.step == len(w.steps) {
			w.finish(nil)
			return
		}
		w.send()
	case mav.MAV_RESULT_IN_PROGRESS:
		// The autopilot works on it: wait for the final answer.
		w.deadline = time.Now().Add(time.Duration(w.v.cfg.AckTimeoutMs*float64(time.Millisecond)) * time.Duration(w.v.cfg.Retries+1))
	default:
		w.finish(&CommandError{Command: a.Command, Result: a.Result})
	}
}

func (w *linkWorker) timers() {
	now := time.Now()
	if w.deferred != nil && w.v.LinkUp() {
		w.queue = append([]*vehicleOp{w.deferred}, w.queue...)
		w.deferred = nil
	}
	if w.cur != nil && w.cur.upload != nil && now.After(w.deadline) {
		w.uploadTimeout()
	} else if w.cur != nil && now.After(w.deadline) {
		if w.tries >= w.v.cfg.Retries {
			w.finish(fmt.Errorf("%s: no COMMAND_ACK after %d tries of %v ms", w.steps[w.step].cmd, w.tries+1, w.v.cfg.AckTimeoutMs))
		} else {
			w.tries++
			w.send()
		}
	}
	w.sendSetpoint(now)
}

// sendSetpoint sends the streamed position target when it is due.
func (w *linkWorker) sendSetpoint(now time.Time) {
	v := w.v
	v.mu.Lock()
	t := v.target
	due := t.active && now.Sub(t.lastSent) >= time.Duration(float64(time.Second)/v.cfg.SetpointHz)
	if due {
		v.target.lastSent = now
	}
	st := v.st
	v.mu.Unlock()
	if !due {
		return
	}
	mask := mav.POSITION_TARGET_TYPEMASK_VX_IGNORE | mav.POSITION_TARGET_TYPEMASK_VY_IGNORE |
		mav.POSITION_TARGET_TYPEMASK_VZ_IGNORE | mav.POSITION_TARGET_TYPEMASK_AX_IGNORE |
		mav.POSITION_TARGET_TYPEMASK_AY_IGNORE | mav.POSITION_TARGET_TYPEMASK_AZ_IGNORE |
		mav.POSITION_TARGET_TYPEMASK_YAW_RATE_IGNORE
	if math.IsNaN(t.yaw) {
		mask |= mav.POSITION_TARGET_TYPEMASK_YAW_IGNORE
	}
	boot := uint32(now.Sub(w.start).Milliseconds())
	var msg message.Message
	if t.global {
		msg = &mav.MessageSetPositionTargetGlobalInt{TimeBootMs: boot, TargetSystem: st.sysID, TargetComponent: st.compID,
			CoordinateFrame: mav.MAV_FRAME_GLOBAL_RELATIVE_ALT_INT, TypeMask: mask,
			LatInt: int32(math.Round(t.x * 1e7)), LonInt: int32(math.Round(t.y * 1e7)), Alt: float32(t.z), Yaw: float32(t.yaw)}
	} else {
		msg = &mav.MessageSetPositionTargetLocalNed{TimeBootMs: boot, TargetSystem: st.sysID, TargetComponent: st.compID,
			CoordinateFrame: mav.MAV_FRAME_LOCAL_NED, TypeMask: mask,
			X: float32(t.x), Y: float32(t.y), Z: float32(t.z), Yaw: float32(t.yaw)}
	}
	_ = w.node.WriteMessageAll(msg)
}

// handle takes one event from the link.
func (w *linkWorker) handle(ev gomavlib.Event) {
	v := w.v
	switch e := ev.(type) {
	case *gomavlib.EventParseError:
		v.mu.Lock()
		v.malformed++
		v.mu.Unlock()
	case *gomavlib.EventFrame:
		w.frame(e)
	}
}

// frame takes one frame: the vehicle's (its system id, or the first autopilot heard) updates
// the state; the rest is counted and ignored.
func (w *linkWorker) frame(e *gomavlib.EventFrame) {
	v := w.v
	sys, comp := e.SystemID(), e.ComponentID()
	var events [3]struct{ kind, level, msg string }
	nev := 0
	say := func(kind, level, msg string) {
		if nev < len(events) {
			events[nev].kind, events[nev].level, events[nev].msg = kind, level, msg
			nev++
		}
	}
	var ack *mav.MessageCommandAck
	reqSeq, reqType := -1, mav.MAV_MISSION_TYPE(0)
	var mAck *mav.MessageMissionAck
	v.mu.Lock()
	s := &v.st
	hb, isHB := e.Message().(*mav.MessageHeartbeat)
	if isHB && s.sysID == 0 && (v.cfg.SystemID == 0 || int(sys) == v.cfg.SystemID) && isAutopilot(hb) {
		s.sysID, s.compID = sys, comp
		s.autopilot = v.cfg.Autopilot
		if s.autopilot == "auto" {
			s.autopilot = autopilotOf(hb.Autopilot)
		}
		say("uav.connected", "info", fmt.Sprintf("%s: vehicle found: system %d, %s autopilot", v.name, sys, orUnknown(s.autopilot)))
	}
	if s.sysID == 0 || sys != s.sysID {
		v.foreign++
		v.mu.Unlock()
		return
	}
	v.frames++
	switch m := e.Message().(type) {
	case *mav.MessageHeartbeat:
		if comp != s.compID {
			break // a camera or gimbal of the vehicle
		}
		if v.lostSaid {
			v.lostSaid = false
			say("uav.link_restored", "info", fmt.Sprintf("%s: the vehicle's heartbeat is back", v.name))
		}
		v.lastHB = v.now()
		armed := m.BaseMode&mav.MAV_MODE_FLAG_SAFETY_ARMED != 0
		mode := decodeMode(s.autopilot, m.CustomMode)
		if armed != s.armed {
			if armed {
				say("uav.armed", "info", v.name+": armed")
			} else {
				say("uav.disarmed", "info", v.name+": disarmed")
			}
		}
		if mode != s.mode {
			say("uav.mode", "info", fmt.Sprintf("%s: flight mode %s", v.name, mode))
		}
		s.armed, s.mode, s.custom = armed, mode, m.CustomMode
	case *mav.MessageCommandAck:
		if m.TargetSystem == 0 || int(m.TargetSystem) == v.cfg.GCSSystemID {
			ack = m
		}
	case *mav.MessageMissionRequestInt:
		if m.TargetSystem == 0 || int(m.TargetSystem) == v.cfg.GCSSystemID {
			reqSeq, reqType = int(m.Seq), m.MissionType
		}
	case *mav.MessageMissionRequest:
		if m.TargetSystem == 0 || int(m.TargetSystem) == v.cfg.GCSSystemID {
			reqSeq, reqType = int(m.Seq), m.MissionType
		}
	case *mav.MessageMissionAck:
		if m.TargetSystem == 0 || int(m.TargetSystem) == v.cfg.GCSSystemID {
			mAck = m
		}
	case *mav.MessageMissionItemReached:
		if int(m.Seq) != v.missionReached && v.eventBudget() {
			say("uav.mission_item_reached", "info", fmt.Sprintf("%s: mission item %d reached", v.name, m.Seq))
		}
		v.missionReached = int(m.Seq)
	case *mav.MessageMissionCurrent:
		if m.MissionState != mav.MISSION_STATE_NO_MISSION {
			v.missionCurrent = int(m.Seq)
		}
	case *mav.MessageGlobalPositionInt:
		s.lat, s.lon = float64(m.Lat)/1e7, float64(m.Lon)/1e7
		s.altAMSL, s.relAlt = float64(m.Alt)/1000, float64(m.RelativeAlt)/1000
		s.haveGlobal = true
	case *mav.MessageLocalPositionNed:
		s.x, s.y, s.z, s.vx, s.vy, s.vz = float64(m.X), float64(m.Y), float64(m.Z), float64(m.Vx), float64(m.Vy), float64(m.Vz)
		s.haveLocal = true
	case *mav.MessageAttitude:
		s.roll, s.pitch, s.yaw = float64(m.Roll), float64(m.Pitch), float64(m.Yaw)
		s.haveAttitude = true
	case *mav.MessageSysStatus:
		if m.BatteryRemaining >= 0 {
			s.battPct, s.haveBattery = float64(m.BatteryRemaining), true
		}
		if m.VoltageBattery != math.MaxUint16 {
			s.battV = float64(m.VoltageBattery) / 1000
		}
	case *mav.MessageExtendedSysState:
		s.landed, s.haveLanded = m.LandedState, m.LandedState != mav.MAV_LANDED_STATE_UNDEFINED
	case *mav.MessageGpsRawInt:
		s.gpsFix, s.sats, s.haveGPS = float64(m.FixType), float64(m.SatellitesVisible), true
	case *mav.MessageStatustext:
		if !v.eventBudget() {
			break
		}
		level := "info"
		switch {
		case m.Severity <= mav.MAV_SEVERITY_ERROR:
			level = "error"
		case m.Severity == mav.MAV_SEVERITY_WARNING:
			level = "warning"
		}
		say("uav.statustext", level, fmt.Sprintf("%s: %s", v.name, m.Text))
	}
	v.mu.Unlock()
	for i := range nev {
		v.emit(events[i].kind, events[i].level, events[i].msg)
	}
	if ack != nil {
		w.ack(ack)
	}
	if reqSeq >= 0 {
		w.missionRequest(reqSeq, reqType)
	}
	if mAck != nil {
		w.missionAck(mAck.Type, mAck.MissionType)
	}
}

// statusTextsPerSecond bounds the events a chatty autopilot can make (STATUSTEXT, mission
// items reached).
const statusTextsPerSecond = 10

// eventBudget reports whether one more message of the vehicle may become an event this second;
// the rest are counted (mu held).
func (v *Vehicle) eventBudget() bool {
	now := v.now()
	if now.Sub(v.textsAt) >= time.Second {
		v.texts, v.textsAt = 0, now
	}
	v.texts++
	if v.texts > statusTextsPerSecond {
		v.textsLost++
		return false
	}
	return true
}

// isAutopilot: a heartbeat from a flight controller (not a ground station, camera or gimbal).
func isAutopilot(hb *mav.MessageHeartbeat) bool {
	if hb.Autopilot == mav.MAV_AUTOPILOT_INVALID {
		return false
	}
	switch hb.Type {
	case mav.MAV_TYPE_GCS, mav.MAV_TYPE_GIMBAL, mav.MAV_TYPE_CAMERA, mav.MAV_TYPE_ONBOARD_CONTROLLER, mav.MAV_TYPE_ADSB:
		return false
	}
	return true
}

func autopilotOf(a mav.MAV_AUTOPILOT) string {
	switch a {
	case mav.MAV_AUTOPILOT_PX4:
		return apPX4
	case mav.MAV_AUTOPILOT_ARDUPILOTMEGA:
		return apArduPilot
	}
	return ""
}
