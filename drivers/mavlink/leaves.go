package mavlink

import (
	"errors"
	"fmt"
	"math"

	mav "github.com/bluenviron/gomavlib/v3/pkg/dialects/common"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
)

// The UAV leaves fly a mavlink_vehicle. An action owns the vehicle while it runs (the rover's
// rules): halting it puts the vehicle in its safe state, which for a flying vehicle is to hold
// where it is (unless it is landing or returning home already). Every command waits for the
// autopilot's COMMAND_ACK; a command refused or never acknowledged makes the leaf FAILURE with
// the autopilot's result (MAV_RESULT_DENIED, ...) in the node's error. During an e-stop they
// return FAILURE.

// GoTo and Takeoff fly to a place: a mission is checked against the geofence when it is loaded.
func init() {
	drivers.RegisterFenceTargets("GoTo", gotoTargets)
	drivers.RegisterFenceTargets("Takeoff", drivers.AltitudeTarget("alt"))
}

// gotoTargets is a GoTo's target: x/y north and east of home (local NED), or lat/lon, at alt
// above home.
func gotoTargets(p map[string]any) []drivers.FenceTarget {
	if _, ok := p["lat"]; ok {
		return drivers.GlobalTarget("lat", "lon", "alt")(p)
	}
	ts := drivers.LocalTarget("x", "y", "alt")(p)
	for i := range ts {
		if ts[i].HasXY {
			ts[i].X, ts[i].Y, ts[i].Home = ts[i].Y, ts[i].X, true // NED north, east -> east, north
		}
	}
	return ts
}

// uavOp is what a UAV action asks of the vehicle.
type uavOp uint8

const (
	uavArm uavOp = iota
	uavDisarm
	uavTakeoff
	uavGoTo
	uavLand
	uavReturn
	uavHold
	uavSetMode
	uavYaw
	uavUpload
	uavRunMission
	uavUploadPlan
)

// uavBounds are the bounds the config gives the UAV leaves.
func uavBounds(l *drivers.LeafKit) (maxAlt, maxSpeed float64) {
	maxAlt, maxSpeed = math.Inf(1), math.Inf(1)
	if l.Config() == nil {
		return
	}
	first := true
	for _, d := range l.Config().DevicesOfKind(Kind) {
		if c, ok := d.Spec.(*Config); ok {
			if first || c.MaxAltitude > maxAlt {
				maxAlt = c.MaxAltitude
			}
			if first || c.MaxSpeed > maxSpeed {
				maxSpeed = c.MaxSpeed
			}
			first = false
		}
	}
	return
}

func uavTypes(l *drivers.LeafKit) []bt.NodeType {
	maxAlt, maxSpeed := uavBounds(l)
	dev := l.DeviceParam(Kind)
	uavDoc := func(s string) string {
		return s + " It owns the vehicle while it runs; halted, the vehicle holds where it is (unless it is landing or " +
			"returning home). A command the autopilot refuses or does not acknowledge makes it FAILURE with the autopilot's " +
			"result in the node's error; during an e-stop it returns FAILURE."
	}
	wait := bt.Param{Name: "wait", Type: bt.TBool, Default: true, Doc: "RUNNING until the vehicle is on the ground (false: SUCCESS once acknowledged)"}
	mk := func(name, doc string, op uavOp, params ...bt.Param) bt.NodeType {
		return bt.NodeType{Name: name, Kind: bt.Leaf, Category: "action", Doc: uavDoc(doc), Params: append(params, dev),
			New: func(b *bt.Builder) bt.Behavior { return newUAVAction(b, l, op) }}
	}
	return []bt.NodeType{
		mk("Arm", "Arms the motors: RUNNING until the autopilot accepted and reports armed, then SUCCESS. "+
			"An autopilot refuses without a GPS fix, with a low battery or failing pre-arm checks.", uavArm),
		mk("Disarm", "Stops the motors: RUNNING until the autopilot accepted and reports disarmed. The autopilot refuses in the air "+
			"unless `force` is set (the vehicle falls).", uavDisarm,
			bt.Param{Name: "force", Type: bt.TBool, Default: false, Doc: "disarm even in the air"}),
		mk("Takeoff", "Takes off to `alt` m above home (the vehicle must be armed): RUNNING until within `tolerance` of it.", uavTakeoff,
			bt.Param{Name: "alt", Type: bt.TNumber, Required: true, Min: bt.Float(1), Max: bound(maxAlt), Unit: "m", Doc: "altitude above home"},
			bt.Param{Name: "tolerance", Type: bt.TNumber, Default: 0.5, Min: bt.Float(0.05), Unit: "m", Doc: "done when this close"}),
		mk("GoTo", "Flies to a point, RUNNING until within `radius` of it, then SUCCESS: `x`/`y` (m north/east of home, local NED) "+
			"or `lat`/`lon` (degrees), at `alt` m above home, at `speed` when given. botd streams the position target "+
			"(PX4 offboard, ArduPilot guided) while it flies.", uavGoTo,
			bt.Param{Name: "x", Type: bt.TNumber, Min: bt.Float(-1e5), Max: bt.Float(1e5), Unit: "m", Doc: "north of home (with y)"},
			bt.Param{Name: "y", Type: bt.TNumber, Min: bt.Float(-1e5), Max: bt.Float(1e5), Unit: "m", Doc: "east of home (with x)"},
			bt.Param{Name: "lat", Type: bt.TNumber, Min: bt.Float(-90), Max: bt.Float(90), Unit: "deg", Doc: "latitude (with lon)"},
			bt.Param{Name: "lon", Type: bt.TNumber, Min: bt.Float(-180), Max: bt.Float(180), Unit: "deg", Doc: "longitude (with lat)"},
			bt.Param{Name: "alt", Type: bt.TNumber, Required: true, Min: bt.Float(0), Max: bound(maxAlt), Unit: "m", Doc: "altitude above home"},
			bt.Param{Name: "radius", Type: bt.TNumber, Default: 1.0, Min: bt.Float(0.1), Unit: "m", Doc: "acceptance radius"},
			bt.Param{Name: "speed", Type: bt.TNumber, Min: bt.Float(0.1), Max: bound(maxSpeed), Unit: "m/s", Doc: "ground speed (optional)"}),
		mk("Land", "Lands where the vehicle is.", uavLand, wait),
		mk("ReturnHome", "Flies home and lands there (PX4 Return, ArduPilot RTL).", uavReturn, wait),
		mk("Hold", "Stops where the vehicle is and hovers (PX4 Hold, ArduPilot Loiter): SUCCESS once acknowledged.", uavHold),
		mk("SetMode", "Switches the flight mode: SUCCESS once acknowledged.", uavSetMode,
			bt.Param{Name: "mode", Type: bt.TEnum, Enum: settableModes, Required: true, Doc: "the flight mode (PX4 and ArduPilot names are mapped)"}),
		mk("Yaw", "Turns to `heading_deg` (0 north, clockwise; `relative`: by that much): RUNNING until within 5 degrees.", uavYaw,
			bt.Param{Name: "heading_deg", Type: bt.TNumber, Required: true, Min: bt.Float(-360), Max: bt.Float(360), Unit: "deg", Doc: "heading, or turn when relative"},
			bt.Param{Name: "rate", Type: bt.TNumber, Default: 30.0, Min: bt.Float(1), Max: bt.Float(360), Unit: "deg/s", Doc: "turn rate"},
			bt.Param{Name: "relative", Type: bt.TBool, Default: false, Doc: "turn by heading_deg"}),
		mk("UploadMission", "Replaces the autopilot's mission with a flight plan (the MAVLink mission protocol, MISSION_ITEM_INT): "+
			"a take-off to `takeoff_alt` when given, the `waypoints`, and a return home when `rtl`: RUNNING until the autopilot "+
			"accepted it (MISSION_ACK), then SUCCESS; a refusal names the autopilot's MAV_MISSION_RESULT.", uavUpload,
			bt.Param{Name: "waypoints", Type: bt.TNumberList, Required: true, Doc: "latitude, longitude (degrees) and altitude above home (m) of each waypoint, one after the other"},
			bt.Param{Name: "takeoff_alt", Type: bt.TNumber, Min: bt.Float(1), Max: bound(maxAlt), Unit: "m", Doc: "take off to this altitude first (optional)"},
			bt.Param{Name: "radius", Type: bt.TNumber, Default: 2.0, Min: bt.Float(0.1), Max: bt.Float(1000), Unit: "m", Doc: "each waypoint's acceptance radius"},
			bt.Param{Name: "rtl", Type: bt.TBool, Default: true, Doc: "return home and land at the end"}),
		mk("RunMission", "Flies the mission UploadMission gave the autopilot (PX4 Mission, ArduPilot Auto; ArduPilot also gets "+
			"MAV_CMD_MISSION_START): RUNNING until the vehicle reports the last item reached, or is back on the ground and "+
			"disarmed, then SUCCESS; FAILURE when something else takes the vehicle out of mission mode (its fence's hold, another "+
			"ground station) other than to return or land. The vehicle must be armed. Halted, the vehicle holds where it is. The item flown "+
			"(MISSION_CURRENT) is KEY.mission_item; each item reached (MISSION_ITEM_REACHED) is a uav.mission_item_reached event.", uavRunMission),
		uploadPlanType(l, mk),
		uavCondition(l, "Armed", "SUCCESS while the vehicle's motors are armed, FAILURE otherwise (or without a link).", condArmed),
		uavCondition(l, "InAir", "SUCCESS while the vehicle is flying (from take-off to touch-down), FAILURE otherwise (or without a link).", condInAir),
		uavCondition(l, "GpsFix", "SUCCESS while the vehicle's GPS has at least `min_fix` (2: 2D, 3: 3D, 4: DGPS, 5: RTK float, 6: RTK fixed).", condGPS,
			bt.Param{Name: "min_fix", Type: bt.TNumber, Default: 3.0, Min: bt.Float(1), Max: bt.Float(8), Doc: "GPS_FIX_TYPE"}),
	}
}

type uavAction struct {
	op                        uavOp
	act                       drivers.ActuatorRef
	x, y, alt, radius, speed  bt.Num
	heading, rate, tolerance  bt.Num
	global, hasSpeed, flagSet bool
	flag                      bt.Flag // force, wait, relative
	mode                      flightMode
	items                     []mav.MessageMissionItemInt // UploadMission's, made when compiled
	plan                      *planUpload                 // UploadPlan's, made when compiled
	mem                       bt.Mem[uavMem]
}

type uavMem struct {
	drivers.LeafMem
	id       uint64 // the op followed
	estopped bool
	acked    bool
	done     bool // the vehicle already was where the action would take it
	tx, ty   float64
	alt, tol float64
	flag     bool
	fenced   bool // the target lies outside the geofence: nothing was sent
	auto     bool // RunMission: the vehicle was seen in mission mode
}

var (
	_ bt.Opener = (*uavAction)(nil)
	_ bt.Closer = (*uavAction)(nil)
)

func newUAVAction(b *bt.Builder, l *drivers.LeafKit, op uavOp) bt.Behavior {
	u := &uavAction{op: op, act: l.Device(b, Kind), mem: bt.Reserve[uavMem](b)}
	switch op {
	case uavDisarm:
		u.flag, u.flagSet = b.Bool("force"), true
	case uavLand, uavReturn:
		u.flag, u.flagSet = b.Bool("wait"), true
	case uavTakeoff:
		u.alt, u.tolerance = b.Number("alt"), b.Number("tolerance")
	case uavGoTo:
		local, global := b.Has("x") || b.Has("y"), b.Has("lat") || b.Has("lon")
		switch {
		case local && global:
			b.Errorf("", "give x and y (local) or lat and lon (global), not both")
		case local && !(b.Has("x") && b.Has("y")):
			b.Errorf("", "x and y go together")
		case global && !(b.Has("lat") && b.Has("lon")):
			b.Errorf("", "lat and lon go together")
		case !local && !global:
			b.Errorf("", "where to? give x and y (m north and east of home) or lat and lon")
		}
		u.global = global
		if global {
			u.x, u.y = b.Number("lat"), b.Number("lon")
		} else {
			u.x, u.y = b.Number("x"), b.Number("y")
		}
		u.alt, u.radius = b.Number("alt"), b.Number("radius")
		u.hasSpeed = b.Has("speed")
		u.speed = b.Number("speed")
	case uavSetMode:
		raw, _ := b.Raw("mode")
		s, _ := raw.(string)
		u.mode, _ = parseFlightMode(s)
	case uavYaw:
		u.heading, u.rate = b.Number("heading_deg"), b.Number("rate")
		u.flag, u.flagSet = b.Bool("relative"), true
	case uavUpload:
		u.items = compilePlan(b, l)
	case uavUploadPlan:
		u.plan = compileUploadPlan(b, l)
	}
	return u
}

// compilePlan makes UploadMission's items from its constant parameters, reporting what is
// wrong at the node.
func compilePlan(b *bt.Builder, l *drivers.LeafKit) []mav.MessageMissionItemInt {
	maxAlt, _ := uavBounds(l)
	raw, _ := b.Raw("waypoints")
	list, _ := raw.([]any)
	if len(list) == 0 || len(list)%3 != 0 {
		b.Errorf("waypoints", "want latitude, longitude, altitude for each waypoint: %d numbers is not a multiple of 3", len(list))
		return nil
	}
	if len(list)/3 > maxMissionItems-2 {
		b.Errorf("waypoints", "%d waypoints: at most %d", len(list)/3, maxMissionItems-2)
		return nil
	}
	wps := make([]Waypoint, 0, len(list)/3)
	for i := 0; i < len(list); i += 3 {
		lat, ok1 := bt.AsNumber(list[i])
		lon, ok2 := bt.AsNumber(list[i+1])
		alt, ok3 := bt.AsNumber(list[i+2])
		switch {
		case !ok1 || !ok2 || !ok3:
			b.Errorf("waypoints", "waypoint %d: numbers only", i/3)
		case !(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180):
			b.Errorf("waypoints", "waypoint %d: (%v, %v) is not a latitude and longitude", i/3, lat, lon)
		case !(alt >= 0 && alt <= maxAlt):
			b.Errorf("waypoints", "waypoint %d: altitude %v m is not within 0 and %v m (max_altitude)", i/3, alt, maxAlt)
		}
		wps = append(wps, Waypoint{Lat: lat, Lon: lon, Alt: alt})
	}
	takeoff := 0.0
	if raw, ok := b.Raw("takeoff_alt"); ok {
		takeoff, _ = bt.AsNumber(raw)
	}
	radius := 2.0
	if raw, ok := b.Raw("radius"); ok {
		radius, _ = bt.AsNumber(raw)
	}
	rtl := true
	if raw, ok := b.Raw("rtl"); ok {
		rtl, _ = raw.(bool)
	}
	items, err := missionItems(wps, takeoff, radius, rtl)
	if err != nil {
		b.Errorf("waypoints", "%v", err)
	}
	return items
}

func (u *uavAction) vehicle(act *drivers.Actuator[Command]) *Vehicle {
	if va, ok := act.Impl().(*vehicleAct); ok {
		return va.v
	}
	return nil
}

func (u *uavAction) Open(a *bt.Agent, n *bt.Node) {
	m := u.mem.Of(a, n)
	m.SetReady(false)
	m.estopped, m.acked, m.done, m.fenced, m.id = false, false, false, false, 0
	act := drivers.Use[Command](&u.act, a, n, &m.LeafMem)
	if act == nil {
		return
	}
	v := u.vehicle(act)
	if u.flagSet {
		f, ok := u.flag.Get(a)
		if !ok {
			a.Emit(n.Index, "error", n.Type.Name+": a boolean parameter's blackboard key is missing")
			return
		}
		m.flag = f
	}
	if u.already(v, m) {
		m.done = true
		m.SetReady(true)
		return
	}
	var op *vehicleOp
	switch u.op {
	case uavArm:
		op = v.armOp(true, false)
	case uavDisarm:
		op = v.armOp(false, m.flag)
	case uavTakeoff:
		alt, ok1 := drivers.ReadNum(a, n, "alt", u.alt)
		tol, ok2 := drivers.ReadNum(a, n, "tolerance", u.tolerance)
		if !ok1 || !ok2 {
			return
		}
		m.alt, m.tol = alt, tol
		if u.outsideFence(a, n, v, m, drivers.FenceTarget{Param: "alt", HasAlt: true, Alt: alt}) {
			return
		}
		if st, up := v.snapshot(); up && st.inAir() && st.haveGlobal && st.relAlt >= alt-tol {
			m.done = true
			m.SetReady(true) // up there already
			return
		}
		op = v.takeoffOp(alt)
	case uavGoTo:
		x, ok1 := drivers.ReadNum(a, n, "x", u.x)
		y, ok2 := drivers.ReadNum(a, n, "y", u.y)
		alt, ok3 := drivers.ReadNum(a, n, "alt", u.alt)
		rad, ok4 := drivers.ReadNum(a, n, "radius", u.radius)
		speed, ok5 := 0.0, true
		if u.hasSpeed {
			speed, ok5 = drivers.ReadNum(a, n, "speed", u.speed)
		}
		if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
			return
		}
		m.tx, m.ty, m.alt, m.tol = x, y, alt, rad
		ft := drivers.FenceTarget{Param: "lat", Global: true, HasXY: true, X: x, Y: y, HasAlt: true, Alt: alt}
		if !u.global {
			ft = drivers.FenceTarget{Param: "x", Home: true, HasXY: true, X: y, Y: x, HasAlt: true, Alt: alt} // NED: x north, y east
		}
		if u.outsideFence(a, n, v, m, ft) {
			return
		}
		t := setpoint{global: u.global, x: x, y: y, z: alt, yaw: math.NaN()}
		if !u.global {
			t.z = -alt // NED: down
		}
		op = v.gotoOp(t, speed)
	case uavLand:
		op = v.modeOp("land", modeLand)
	case uavReturn:
		op = v.modeOp("return home", modeReturn)
	case uavHold:
		op = v.modeOp("hold", modeHold)
	case uavSetMode:
		op = v.modeOp("set mode "+u.mode.String(), u.mode)
	case uavUpload:
		op = v.uploadOp("upload mission", mav.MAV_MISSION_TYPE_MISSION, u.items)
	case uavUploadPlan:
		op = v.uploadPlanOp(u.plan)
	case uavRunMission:
		m.flag, m.auto = false, false // flown: set once the vehicle was in the air during the run
		op = v.runMissionOp()
	case uavYaw:
		h, ok1 := drivers.ReadNum(a, n, "heading_deg", u.heading)
		rate, ok2 := drivers.ReadNum(a, n, "rate", u.rate)
		if !ok1 || !ok2 {
			return
		}
		st, _ := v.snapshot()
		target := h * math.Pi / 180
		if m.flag {
			target = st.yaw + target
		}
		m.alt = drivers.WrapAngle(target)
		op = v.yawOp(h, rate, m.flag)
	}
	if err := act.Command(drivers.OwnerOf(a, n), Command{mode: vehFlying}, true); err != nil {
		m.estopped = errors.Is(err, drivers.ErrEStopped)
		if !m.estopped {
			a.Emit(n.Index, "error", fmt.Sprintf("%s: %s %q: %v", n.Type.Name, Kind, u.act.Name(), err))
			return
		}
		m.SetReady(true)
		return
	}
	m.id = v.track(op)
	m.SetReady(true)
}

// outsideFence refuses a target (read from the blackboard, or given) that the robot's geofence
// does not allow: the leaf fails and nothing reaches the vehicle.
func (u *uavAction) outsideFence(a *bt.Agent, n *bt.Node, v *Vehicle, m *uavMem, t drivers.FenceTarget) bool {
	if v.fence == nil {
		return false
	}
	why := v.fence.TargetProblem(t)
	if why == "" {
		return false
	}
	a.Emit(n.Index, "error", fmt.Sprintf("%s: not sent to %s %q: %s", n.Type.Name, Kind, v.name, why))
	m.fenced = true
	m.SetReady(true)
	return true
}

func (u *uavAction) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := u.mem.Of(a, n)
	if m.Ready() && m.fenced {
		return bt.Failure
	}
	if m.Ready() && m.estopped {
		return bt.Failure
	}
	if m.Ready() && m.done {
		return bt.Success
	}
	act, o, ok := drivers.StartTick[Command](&u.act, a, n, &m.LeafMem)
	if !ok {
		return bt.Error
	}
	if err := act.Command(o, Command{mode: vehFlying}, true); err != nil {
		return drivers.CommandStatus(a, n, err, bt.Running)
	}
	v := u.vehicle(act)
	if !m.acked {
		done, err, known := v.opStatus(m.id)
		switch {
		case !known:
			a.Emit(n.Index, "error", n.Type.Name+": the command was lost (too many commands in between)")
			return bt.Error
		case !done:
			return bt.Running
		case err != nil:
			a.Emit(n.Index, "error", fmt.Sprintf("%s: %s %q: %v", n.Type.Name, Kind, v.name, err))
			return bt.Failure
		}
		m.acked = true
	}
	st, up := v.snapshot()
	if !up {
		// The runner's failsafe (the device in required_sensors) gets the first word on a lost
		// link: the leaf waits a moment before it fails the mission itself.
		if v.lostFor() < linkGrace {
			return bt.Running
		}
		a.Emit(n.Index, "error", fmt.Sprintf("%s: %s %q: %v", n.Type.Name, Kind, v.name, ErrVehicleLink))
		return bt.Failure
	}
	switch u.op {
	case uavArm:
		return doneIf(st.armed)
	case uavDisarm:
		return doneIf(!st.armed)
	case uavTakeoff:
		return doneIf(st.haveGlobal && st.relAlt >= m.alt-m.tol)
	case uavGoTo:
		return doneIf(reached(&st, u.global, m.tx, m.ty, m.alt, m.tol))
	case uavLand, uavReturn:
		return doneIf(!m.flag || !st.inAir())
	case uavRunMission:
		count, reached := v.missionProgress()
		if st.inAir() {
			m.flag = true
		}
		if (count > 0 && reached >= count-1) || (m.flag && !st.inAir() && !st.armed) {
			return bt.Success
		}
		switch st.mode {
		case modeMission:
			m.auto = true
		case modeReturn, modeLand:
			// the autopilot's own failsafe (or a return item): done once down and disarmed
		default:
			if m.auto {
				// Something else took the vehicle out of its mission (its fence's hold, another
				// ground station, the pilot): the mission is not flying any more.
				a.Emit(n.Index, "error", fmt.Sprintf("%s: %s %q left mission mode (now %s) before the last item (reached %d of %d)",
					n.Type.Name, Kind, v.name, st.mode, reached+1, count))
				return bt.Failure
			}
		}
		return bt.Running
	case uavYaw:
		return doneIf(!st.haveAttitude || math.Abs(drivers.WrapAngle(st.yaw-m.alt)) <= 5*math.Pi/180)
	}
	return bt.Success
}

// already reports whether the vehicle is already where the action would take it (a reactive
// Sequence ticks a finished Arm again: it must not send another command). It reads the
// parameters it needs itself.
func (u *uavAction) already(v *Vehicle, m *uavMem) bool {
	st, up := v.snapshot()
	if !up {
		return false
	}
	switch u.op {
	case uavArm:
		return st.armed
	case uavDisarm:
		return !st.armed
	case uavLand, uavReturn:
		return !st.inAir() && !st.armed
	case uavHold:
		return st.mode == modeHold
	case uavSetMode:
		return st.mode == u.mode
	}
	return false
}

func doneIf(b bool) bt.Status {
	if b {
		return bt.Success
	}
	return bt.Running
}

// reached: within radius of the target, in three dimensions.
func reached(st *vehicleState, global bool, x, y, alt, radius float64) bool {
	if global {
		if !st.haveGlobal {
			return false
		}
		const earth = 6371000.0
		dn := (st.lat - x) * math.Pi / 180 * earth
		de := (st.lon - y) * math.Pi / 180 * earth * math.Cos(x*math.Pi/180)
		return math.Sqrt(dn*dn+de*de+(st.relAlt-alt)*(st.relAlt-alt)) <= radius
	}
	if !st.haveLocal {
		return false
	}
	dz := -st.z - alt
	return math.Sqrt((st.x-x)*(st.x-x)+(st.y-y)*(st.y-y)+dz*dz) <= radius
}

// Close gives the vehicle up (its safe state) if the action still owns it.
func (u *uavAction) Close(a *bt.Agent, n *bt.Node) { u.act.Release(a, drivers.OwnerOf(a, n)) }

type uavCond uint8

const (
	condArmed uavCond = iota
	condInAir
	condGPS
)

func uavCondition(l *drivers.LeafKit, name, doc string, c uavCond, params ...bt.Param) bt.NodeType {
	return bt.NodeType{Name: name, Kind: bt.Leaf, Category: "condition", Doc: doc,
		Params: append(params, l.DeviceParam(Kind)),
		New: func(b *bt.Builder) bt.Behavior {
			q := &uavQuery{c: c, act: l.Device(b, Kind), mem: bt.Reserve[drivers.LeafMem](b)}
			if c == condGPS {
				q.minFix = b.Number("min_fix")
			}
			return q
		}}
}

type uavQuery struct {
	c      uavCond
	act    drivers.ActuatorRef
	minFix bt.Num
	mem    bt.Mem[drivers.LeafMem]
}

func (q *uavQuery) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	act := drivers.Use[Command](&q.act, a, n, q.mem.Of(a, n))
	if act == nil {
		return bt.Error
	}
	va, ok := act.Impl().(*vehicleAct)
	if !ok {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: %s %q is not a vehicle", n.Type.Name, Kind, q.act.Name()))
		return bt.Error
	}
	st, up := va.v.snapshot()
	if !up {
		return bt.Failure
	}
	switch q.c {
	case condArmed:
		return okIf(st.armed)
	case condInAir:
		return okIf(st.inAir())
	default:
		min, ok := drivers.ReadNum(a, n, "min_fix", q.minFix)
		if !ok {
			return bt.Error
		}
		return okIf(st.haveGPS && st.gpsFix >= min)
	}
}

func okIf(b bool) bt.Status {
	if b {
		return bt.Success
	}
	return bt.Failure
}

// bound is a parameter limit from a config's bound (none when infinite).
func bound(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return bt.Float(v)
}
