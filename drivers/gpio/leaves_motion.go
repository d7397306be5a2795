package gpio

import (
	"fmt"
	"math"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
)

// Controller gains of Turn and MoveTo.
const (
	headingGain   = 2.0  // rad/s of turn rate per rad of heading error
	minTurnRate   = 0.15 // rad/s: below this a turn would crawl
	maxTurnRate   = 1.5  // rad/s: MoveTo's turn rate cap (within max_angular)
	driveGain     = 0.8  // m/s of speed per m of distance left
	minDriveSpeed = 0.05 // m/s
	startDriving  = 0.15 // rad: MoveTo turns in place until the bearing error is below this
	stopDriving   = 0.6  // rad: and turns in place again above this
)

func driveType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Drive", Kind: bt.Leaf, Category: "action",
		Doc: drivers.LeafDoc("Drives the base at `linear` m/s and `angular` rad/s: RUNNING until `ms` has passed, then SUCCESS " +
			"(without `ms`, RUNNING until halted). It owns the drive while it runs: halting it stops the base unless " +
			"another action has taken the drive over."),
		Params: []bt.Param{
			{Name: "linear", Type: bt.TNumber, Default: 0.0, Min: bound(-l.maxLinear), Max: bound(l.maxLinear), Unit: "m/s", Doc: "forward speed (negative: backward)"},
			{Name: "angular", Type: bt.TNumber, Default: 0.0, Min: bound(-l.maxAngular), Max: bound(l.maxAngular), Unit: "rad/s", Doc: "turn rate, counter-clockwise positive"},
			{Name: "ms", Type: bt.TNumber, Min: bt.Float(0), Unit: "ms", Doc: "how long to drive (optional)"},
			l.DeviceParam(KindDiffDrive),
		},
		New: func(b *bt.Builder) bt.Behavior {
			return &drive{act: l.Device(b, KindDiffDrive), linear: b.Number("linear"), angular: b.Number("angular"),
				ms: b.Number("ms"), timed: b.Has("ms"), mem: bt.Reserve[driveMem](b)}
		},
	}
}

type drive struct {
	act                 drivers.ActuatorRef
	linear, angular, ms bt.Num
	timed               bool
	mem                 bt.Mem[driveMem]
}

var (
	_ bt.Opener = (*drive)(nil)
	_ bt.Closer = (*drive)(nil) // also on halt: stops the base it owns
)

// driveMem is a Drive's per-agent memory, set when it opens.
type driveMem struct {
	drivers.LeafMem
	start, dur      int64 // clock ns
	linear, angular float64
}

func (d *drive) Open(a *bt.Agent, n *bt.Node) {
	m := d.mem.Of(a, n)
	m.SetReady(false)
	if drivers.Use[DriveCommand](&d.act, a, n, &m.LeafMem) == nil {
		return
	}
	lin, ok1 := drivers.ReadNum(a, n, "linear", d.linear)
	ang, ok2 := drivers.ReadNum(a, n, "angular", d.angular)
	var dur int64
	ok3 := true
	if d.timed {
		dur, ok3 = bt.ReadDuration(a, n.Index, d.ms, "ms") // never a wrap: 0 to 30 days
	}
	if !ok1 || !ok2 || !ok3 {
		return
	}
	m.start, m.dur, m.linear, m.angular = a.Now(), dur, lin, ang
	m.SetReady(true)
}

func (d *drive) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := d.mem.Of(a, n)
	x, o, ok := drivers.StartTick[DriveCommand](&d.act, a, n, &m.LeafMem)
	if !ok {
		return bt.Error
	}
	if d.timed && a.Now()-m.start >= m.dur {
		return bt.Success // Close stops the base
	}
	err := x.Command(o, DriveCommand{Linear: m.linear, Angular: m.angular}, true)
	return drivers.CommandStatus(a, n, err, bt.Running)
}

// Close stops the base if the Drive still owns it (a halt too: no Halt method).
func (d *drive) Close(a *bt.Agent, n *bt.Node) { d.act.Release(a, drivers.OwnerOf(a, n)) }

func stopType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Stop", Kind: bt.Leaf, Category: "action",
		Doc: "Stops the base and returns SUCCESS (also during an e-stop, when the base is stopped anyway). " +
			"An action that was driving loses the drive.",
		Params: []bt.Param{l.DeviceParam(KindDiffDrive)},
		New: func(b *bt.Builder) bt.Behavior {
			return &stop{act: l.Device(b, KindDiffDrive), mem: bt.Reserve[drivers.LeafMem](b)}
		},
	}
}

type stop struct {
	act drivers.ActuatorRef
	mem bt.Mem[drivers.LeafMem]
}

func (s *stop) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	x := drivers.Use[DriveCommand](&s.act, a, n, s.mem.Of(a, n))
	if x == nil {
		return bt.Error
	}
	if err := x.Command(drivers.Owner{}, DriveCommand{}, false); err != nil && err != drivers.ErrEStopped {
		return drivers.CommandStatus(a, n, err, bt.Success)
	}
	return bt.Success
}

func turnType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Turn", Kind: bt.Leaf, Category: "action",
		Doc: drivers.LeafDoc(fmt.Sprintf("Turns in place by `angle_deg` (counter-clockwise positive) from the heading it opened with, "+
			"reading the heading from %s.heading, or %s when there is no fresh pose: RUNNING until within `tolerance_deg`, "+
			"then SUCCESS. A heading that goes stale while turning stops the base and waits up to `stale_grace_ms` for a fresh one; "+
			"a missing heading, or one still stale after that, is ERROR.", l.PoseKey(), l.imuYaw)),
		Params: []bt.Param{
			{Name: "angle_deg", Type: bt.TNumber, Required: true, Min: bt.Float(-180), Max: bt.Float(180), Unit: "deg", Doc: "how far to turn"},
			{Name: "speed", Type: bt.TNumber, Default: math.Min(1, l.maxAngular), Min: bt.Float(0.05), Max: bound(l.maxAngular), Unit: "rad/s", Doc: "top turn rate"},
			{Name: "tolerance_deg", Type: bt.TNumber, Default: 1.0, Min: bt.Float(0.1), Max: bt.Float(45), Unit: "deg", Doc: "done when this close"},
			{Name: "max_age_ms", Type: bt.TNumber, Default: 500.0, Min: bt.Float(1), Unit: "ms", Doc: "an older heading is stale"},
			graceParam,
			l.DeviceParam(KindDiffDrive),
		},
		New: func(b *bt.Builder) bt.Behavior {
			return &turn{act: l.Device(b, KindDiffDrive), angle: b.Number("angle_deg"), speed: b.Number("speed"),
				tol: b.Number("tolerance_deg"), maxAge: b.Number("max_age_ms"), grace: b.Number("stale_grace_ms"),
				heading: [2]bt.Slot{b.Key(l.PoseKey() + ".heading"), b.Key(l.imuYaw)},
				mem:     bt.Reserve[turnMem](b)}
		},
	}
}

type turn struct {
	act                              drivers.ActuatorRef
	angle, speed, tol, maxAge, grace bt.Num
	heading                          [2]bt.Slot // the pose's heading, the IMU's yaw
	mem                              bt.Mem[turnMem]
}

var (
	_ bt.Opener = (*turn)(nil)
	_ bt.Closer = (*turn)(nil) // also on halt
)

// turnMem is a Turn's per-agent memory, set when it opens.
type turnMem struct {
	drivers.LeafMem
	source int     // the heading it reads: index in turn.heading
	target float64 // heading, rad
	rate   float64 // top turn rate, rad/s
	tol    float64 // rad
}

func (t *turn) Open(a *bt.Agent, n *bt.Node) {
	m := t.mem.Of(a, n)
	m.SetReady(false)
	m.SetHolding(false)
	if drivers.Use[DriveCommand](&t.act, a, n, &m.LeafMem) == nil {
		return
	}
	angle, ok1 := drivers.ReadNum(a, n, "angle_deg", t.angle)
	speed, ok2 := drivers.ReadNum(a, n, "speed", t.speed)
	tol, ok3 := drivers.ReadNum(a, n, "tolerance_deg", t.tol)
	maxAge, ok4 := drivers.ReadNum(a, n, "max_age_ms", t.maxAge)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return
	}
	src, h, ok := -1, 0.0, false
	for i, s := range t.heading {
		if h, ok = drivers.FreshNumber(a, s, maxAge); ok {
			src = i
			break
		}
	}
	if src < 0 {
		a.Emit(n.Index, "error", fmt.Sprintf("Turn: no fresh heading (%s or %s within %v ms)",
			a.BB.Key(t.heading[0]).Name, a.BB.Key(t.heading[1]).Name, maxAge))
		return
	}
	m.target, m.source, m.rate, m.tol = drivers.WrapAngle(h+angle*math.Pi/180), src, math.Max(speed, minTurnRate), tol*math.Pi/180
	m.SetReady(true)
}

func (t *turn) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := t.mem.Of(a, n)
	x, o, ok := drivers.StartTick[DriveCommand](&t.act, a, n, &m.LeafMem)
	if !ok {
		return bt.Error
	}
	maxAge, ok := drivers.ReadNum(a, n, "max_age_ms", t.maxAge)
	if !ok {
		return bt.Error
	}
	s := t.heading[m.source]
	h, ok := drivers.FreshNumber(a, s, maxAge)
	if !ok {
		return holdStale(a, n, x, o, &m.LeafMem, "Turn", s, maxAge, t.grace)
	}
	m.SetHolding(false)
	e := drivers.WrapAngle(m.target - h)
	if math.Abs(e) <= m.tol {
		return bt.Success // Close stops the base
	}
	w := math.Copysign(math.Min(math.Max(headingGain*math.Abs(e), minTurnRate), m.rate), e)
	err := x.Command(o, DriveCommand{Angular: w}, true)
	return drivers.CommandStatus(a, n, err, bt.Running)
}

// Close stops the base if the Turn still owns it (a halt too).
func (t *turn) Close(a *bt.Agent, n *bt.Node) { t.act.Release(a, drivers.OwnerOf(a, n)) }

// graceParam is how long a motion leaf holds, stopped, for a fresh sample
// before a stale one fails it.
var graceParam = bt.Param{Name: "stale_grace_ms", Type: bt.TNumber, Default: 1000.0, Min: bt.Float(0), Unit: "ms",
	Doc: "a sample older than max_age_ms stops the base and waits this long for a fresh one before the leaf fails"}

// holdStale is a motion leaf's answer to a stale sample in slot s: a late
// sample (a busy machine, a slow sensor) must not end a mission, so the
// base stops and the leaf stays RUNNING while the sample is at most
// max_age_ms + stale_grace_ms old; past that, or with no sample at all,
// it fails with ERROR naming the sensor and its age.
func holdStale(a *bt.Agent, n *bt.Node, x *drivers.Actuator[DriveCommand], o drivers.Owner, m *drivers.LeafMem, leaf string, s bt.Slot, maxAgeMs float64, graceNum bt.Num) bt.Status {
	name := a.BB.Key(s).Name
	if _, ok := a.BB.Number(s); !ok {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: %s is missing (is a pose or IMU sensor configured?)", leaf, name))
		return bt.Error
	}
	grace, ok := drivers.ReadNum(a, n, "stale_grace_ms", graceNum)
	if !ok {
		return bt.Error
	}
	ts, _ := a.BB.Stamp(s)
	ageMs := float64(a.Now()-ts) / 1e6
	if ageMs > maxAgeMs+grace {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: %s is stale (%.0f ms old; max_age_ms %v, and no fresh sample within stale_grace_ms %v)", leaf, name, ageMs, maxAgeMs, grace))
		return bt.Error
	}
	if !m.Holding() {
		m.SetHolding(true)
		a.Emit(n.Index, "warning", fmt.Sprintf("%s: %s is %.0f ms old (max_age_ms %v): stopped, waiting up to %v ms for a fresh sample", leaf, name, ageMs, maxAgeMs, grace))
	}
	err := x.Command(o, DriveCommand{}, true)
	return drivers.CommandStatus(a, n, err, bt.Running)
}

func moveToType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "MoveTo", Kind: bt.Leaf, Category: "action",
		Doc: drivers.LeafDoc(fmt.Sprintf("Drives to (`x`, `y`) reading the pose from %[1]s.x, %[1]s.y and %[1]s.heading: turns in place toward the goal, "+
			"then drives with a proportional heading correction; SUCCESS within `tolerance` metres. A pose older than `max_age_ms` stops the base and waits up to `stale_grace_ms` for a fresh one; "+
			"a missing pose, or one still stale after that, is ERROR naming the key and its age.", l.PoseKey())),
		Params: []bt.Param{
			{Name: "x", Type: bt.TNumber, Required: true, Unit: "m", Doc: "goal x"},
			{Name: "y", Type: bt.TNumber, Required: true, Unit: "m", Doc: "goal y"},
			{Name: "tolerance", Type: bt.TNumber, Default: 0.1, Min: bt.Float(0.01), Unit: "m", Doc: "done when this close"},
			{Name: "speed", Type: bt.TNumber, Default: math.Min(0.3, l.maxLinear), Min: bt.Float(0.01), Max: bound(l.maxLinear), Unit: "m/s", Doc: "top speed"},
			{Name: "max_age_ms", Type: bt.TNumber, Default: 500.0, Min: bt.Float(1), Unit: "ms", Doc: "an older pose is stale"},
			graceParam,
			l.DeviceParam(KindDiffDrive),
		},
		New: func(b *bt.Builder) bt.Behavior {
			return &moveTo{act: l.Device(b, KindDiffDrive), x: b.Number("x"), y: b.Number("y"), tol: b.Number("tolerance"),
				speed: b.Number("speed"), maxAge: b.Number("max_age_ms"), grace: b.Number("stale_grace_ms"),
				pose:       [3]bt.Slot{b.Key(l.PoseKey() + ".x"), b.Key(l.PoseKey() + ".y"), b.Key(l.PoseKey() + ".heading")},
				maxAngular: l.maxAngular, mem: bt.Reserve[moveToMem](b)}
		},
	}
}

type moveTo struct {
	act                             drivers.ActuatorRef
	x, y, tol, speed, maxAge, grace bt.Num
	pose                            [3]bt.Slot
	maxAngular                      float64
	mem                             bt.Mem[moveToMem]
}

var (
	_ bt.Opener = (*moveTo)(nil)
	_ bt.Closer = (*moveTo)(nil) // also on halt
)

// moveToMem is a MoveTo's per-agent memory, set when it opens.
type moveToMem struct {
	drivers.LeafMem
	x, y       float64 // the goal, m
	speed, tol float64 // m/s, m
	driving    bool    // driving toward the goal rather than turning in place
}

func (mv *moveTo) Open(a *bt.Agent, n *bt.Node) {
	m := mv.mem.Of(a, n)
	m.SetReady(false)
	m.SetHolding(false)
	if drivers.Use[DriveCommand](&mv.act, a, n, &m.LeafMem) == nil {
		return
	}
	x, ok1 := drivers.ReadNum(a, n, "x", mv.x)
	y, ok2 := drivers.ReadNum(a, n, "y", mv.y)
	speed, ok3 := drivers.ReadNum(a, n, "speed", mv.speed)
	tol, ok4 := drivers.ReadNum(a, n, "tolerance", mv.tol)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return
	}
	m.x, m.y, m.speed, m.tol, m.driving = x, y, speed, tol, false
	m.SetReady(true)
}

func (mv *moveTo) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := mv.mem.Of(a, n)
	x, o, ok := drivers.StartTick[DriveCommand](&mv.act, a, n, &m.LeafMem)
	if !ok {
		return bt.Error
	}
	maxAge, ok := drivers.ReadNum(a, n, "max_age_ms", mv.maxAge)
	if !ok {
		return bt.Error
	}
	var p [3]float64
	for i, s := range mv.pose {
		if p[i], ok = drivers.FreshNumber(a, s, maxAge); !ok {
			return holdStale(a, n, x, o, &m.LeafMem, "MoveTo", s, maxAge, mv.grace)
		}
	}
	m.SetHolding(false)
	dx, dy := m.x-p[0], m.y-p[1]
	dist := math.Hypot(dx, dy)
	if dist <= m.tol {
		return bt.Success // Close stops the base
	}
	e := drivers.WrapAngle(math.Atan2(dy, dx) - p[2])
	switch {
	case !m.driving && math.Abs(e) < startDriving:
		m.driving = true
	case m.driving && math.Abs(e) > stopDriving:
		m.driving = false
	}
	turnCap := math.Min(maxTurnRate, mv.maxAngular)
	w := math.Copysign(math.Min(math.Max(headingGain*math.Abs(e), minTurnRate), turnCap), e)
	c := DriveCommand{Angular: w}
	if m.driving {
		c.Linear = math.Max(math.Min(m.speed, driveGain*dist), minDriveSpeed) * math.Max(0, math.Cos(e))
		c.Angular = math.Max(-turnCap, math.Min(turnCap, headingGain*e))
	}
	err := x.Command(o, c, true)
	return drivers.CommandStatus(a, n, err, bt.Running)
}

// Close stops the base if the MoveTo still owns it (a halt too).
func (mv *moveTo) Close(a *bt.Agent, n *bt.Node) { mv.act.Release(a, drivers.OwnerOf(a, n)) }
