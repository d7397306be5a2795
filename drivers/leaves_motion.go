package drivers

import (
	"fmt"
	"math"

	"github.com/botd-project/botd/bt"
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
		Doc: leafDoc("Drives the base at `linear` m/s and `angular` rad/s: RUNNING until `ms` has passed, then SUCCESS " +
			"(without `ms`, RUNNING until halted). It owns the drive while it runs: halting it stops the base unless " +
			"another action has taken the drive over."),
		Params: []bt.Param{
			{Name: "linear", Type: bt.TNumber, Default: 0.0, Min: bound(-l.maxLinear), Max: bound(l.maxLinear), Unit: "m/s", Doc: "forward speed (negative: backward)"},
			{Name: "angular", Type: bt.TNumber, Default: 0.0, Min: bound(-l.maxAngular), Max: bound(l.maxAngular), Unit: "rad/s", Doc: "turn rate, counter-clockwise positive"},
			{Name: "ms", Type: bt.TNumber, Min: bt.Float(0), Unit: "ms", Doc: "how long to drive (optional)"},
			l.deviceParam(KindDiffDrive),
		},
		New: func(b *bt.Builder) bt.Behavior {
			b.Words(5)
			return &drive{dev: l.device(b, KindDiffDrive), linear: b.Number("linear"), angular: b.Number("angular"),
				ms: b.Number("ms"), timed: b.Has("ms")}
		},
	}
}

// drive keeps: [0] actuator, [1] start ns, [2] duration ns, [3] linear, [4] angular.
type drive struct {
	dev                 string
	linear, angular, ms bt.Num
	timed               bool
}

func (d *drive) Open(a *bt.Agent, n *bt.Node) {
	if _, act := resolve(a, n, d.dev, KindDiffDrive); act == nil {
		return
	}
	m := a.Mem(n)
	lin, ok1 := readNum(a, n, "linear", d.linear)
	ang, ok2 := readNum(a, n, "angular", d.angular)
	dur := 0.0
	ok3 := true
	if d.timed {
		dur, ok3 = readNum(a, n, "ms", d.ms)
	}
	if !ok1 || !ok2 || !ok3 || dur < 0 {
		m[0] = 0
		return
	}
	m[1], m[2], m[3], m[4] = uint64(a.Now()), uint64(dur*1e6), f2w(lin), f2w(ang)
}

func (d *drive) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	r, act, m, o, ok := startTick(a, n)
	if !ok {
		return bt.Error
	}
	if d.timed && a.Now()-int64(m[1]) >= int64(m[2]) {
		return bt.Success // Close stops the base
	}
	err := r.env.command(act, o, command{a: w2f(m[3]), b: w2f(m[4])}, true)
	return commandStatus(a, n, err, bt.Running)
}

func (d *drive) Close(a *bt.Agent, n *bt.Node) { releaseOwned(a, n) }

// releaseOwned stops the node's actuator if the node still owns it.
func releaseOwned(a *bt.Agent, n *bt.Node) {
	if r, act := resolved(a, n); act != nil {
		r.env.release(act, owner{a, n.Index})
	}
}

func stopType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Stop", Kind: bt.Leaf, Category: "action",
		Doc: "Stops the base and returns SUCCESS (also during an e-stop, when the base is stopped anyway). " +
			"An action that was driving loses the drive.",
		Params: []bt.Param{l.deviceParam(KindDiffDrive)},
		New: func(b *bt.Builder) bt.Behavior {
			b.Words(1)
			return &stop{dev: l.device(b, KindDiffDrive)}
		},
	}
}

type stop struct{ dev string }

func (s *stop) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	r, act := resolve(a, n, s.dev, KindDiffDrive)
	if act == nil {
		return bt.Error
	}
	if err := r.env.command(act, owner{}, command{}, false); err != nil && err != ErrEStopped {
		return commandStatus(a, n, err, bt.Success)
	}
	return bt.Success
}

func turnType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Turn", Kind: bt.Leaf, Category: "action",
		Doc: leafDoc(fmt.Sprintf("Turns in place by `angle_deg` (counter-clockwise positive) from the heading it opened with, "+
			"reading the heading from %s.heading, or %s.yaw when there is no fresh pose: RUNNING until within `tolerance_deg`, "+
			"then SUCCESS. A missing or stale heading is ERROR.", l.poseKey, l.imuKey)),
		Params: []bt.Param{
			{Name: "angle_deg", Type: bt.TNumber, Required: true, Min: bt.Float(-180), Max: bt.Float(180), Unit: "deg", Doc: "how far to turn"},
			{Name: "speed", Type: bt.TNumber, Default: math.Min(1, l.maxAngular), Min: bt.Float(0.05), Max: bound(l.maxAngular), Unit: "rad/s", Doc: "top turn rate"},
			{Name: "tolerance_deg", Type: bt.TNumber, Default: 1.0, Min: bt.Float(0.1), Max: bt.Float(45), Unit: "deg", Doc: "done when this close"},
			{Name: "max_age_ms", Type: bt.TNumber, Default: 500.0, Min: bt.Float(1), Unit: "ms", Doc: "an older heading is stale"},
			l.deviceParam(KindDiffDrive),
		},
		New: func(b *bt.Builder) bt.Behavior {
			b.Words(5)
			return &turn{dev: l.device(b, KindDiffDrive), angle: b.Number("angle_deg"), speed: b.Number("speed"),
				tol: b.Number("tolerance_deg"), maxAge: b.Number("max_age_ms"),
				heading: [2]bt.Slot{b.Key(l.poseKey + ".heading"), b.Key(l.imuKey + ".yaw")}}
		},
	}
}

// turn keeps: [0] actuator, [1] target heading, [2] heading source (0 pose, 1 imu), [3] top
// turn rate, [4] tolerance (rad).
type turn struct {
	dev                       string
	angle, speed, tol, maxAge bt.Num
	heading                   [2]bt.Slot
}

func (t *turn) Open(a *bt.Agent, n *bt.Node) {
	if _, act := resolve(a, n, t.dev, KindDiffDrive); act == nil {
		return
	}
	m := a.Mem(n)
	angle, ok1 := readNum(a, n, "angle_deg", t.angle)
	speed, ok2 := readNum(a, n, "speed", t.speed)
	tol, ok3 := readNum(a, n, "tolerance_deg", t.tol)
	maxAge, ok4 := readNum(a, n, "max_age_ms", t.maxAge)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		m[0] = 0
		return
	}
	src, h, ok := -1, 0.0, false
	for i, s := range t.heading {
		if h, ok = freshNumber(a, s, maxAge); ok {
			src = i
			break
		}
	}
	if src < 0 {
		a.Emit(n.Index, "error", fmt.Sprintf("Turn: no fresh heading (%s or %s within %v ms)",
			a.BB.Key(t.heading[0]).Name, a.BB.Key(t.heading[1]).Name, maxAge))
		m[0] = 0
		return
	}
	m[1], m[2], m[3], m[4] = f2w(wrapAngle(h+angle*math.Pi/180)), uint64(src), f2w(math.Max(speed, minTurnRate)), f2w(tol*math.Pi/180)
}

func (t *turn) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	r, act, m, o, ok := startTick(a, n)
	if !ok {
		return bt.Error
	}
	maxAge, ok := readNum(a, n, "max_age_ms", t.maxAge)
	if !ok {
		return bt.Error
	}
	s := t.heading[m[2]]
	h, ok := freshNumber(a, s, maxAge)
	if !ok {
		a.Emit(n.Index, "error", staleMessage(a, "Turn", s, maxAge))
		return bt.Error
	}
	e := wrapAngle(w2f(m[1]) - h)
	if math.Abs(e) <= w2f(m[4]) {
		return bt.Success // Close stops the base
	}
	w := math.Copysign(math.Min(math.Max(headingGain*math.Abs(e), minTurnRate), w2f(m[3])), e)
	err := r.env.command(act, o, command{b: w}, true)
	return commandStatus(a, n, err, bt.Running)
}

func (t *turn) Close(a *bt.Agent, n *bt.Node) { releaseOwned(a, n) }

// freshNumber reads a numeric slot written within maxAgeMs of the tick.
func freshNumber(a *bt.Agent, s bt.Slot, maxAgeMs float64) (float64, bool) {
	v, ok := a.BB.Number(s)
	if !ok {
		return 0, false
	}
	ts, _ := a.BB.Stamp(s)
	return v, float64(a.Now()-ts) <= maxAgeMs*1e6
}

func staleMessage(a *bt.Agent, leaf string, s bt.Slot, maxAgeMs float64) string {
	name := a.BB.Key(s).Name
	if _, ok := a.BB.Number(s); !ok {
		return fmt.Sprintf("%s: %s is missing (is a pose or IMU sensor configured?)", leaf, name)
	}
	ts, _ := a.BB.Stamp(s)
	return fmt.Sprintf("%s: %s is stale (%.0f ms old, max_age_ms %v)", leaf, name, float64(a.Now()-ts)/1e6, maxAgeMs)
}

func moveToType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "MoveTo", Kind: bt.Leaf, Category: "action",
		Doc: leafDoc(fmt.Sprintf("Drives to (`x`, `y`) reading the pose from %[1]s.x, %[1]s.y and %[1]s.heading: turns in place toward the goal, "+
			"then drives with a proportional heading correction; SUCCESS within `tolerance` metres. A missing or stale pose is ERROR.", l.poseKey)),
		Params: []bt.Param{
			{Name: "x", Type: bt.TNumber, Required: true, Unit: "m", Doc: "goal x"},
			{Name: "y", Type: bt.TNumber, Required: true, Unit: "m", Doc: "goal y"},
			{Name: "tolerance", Type: bt.TNumber, Default: 0.1, Min: bt.Float(0.01), Unit: "m", Doc: "done when this close"},
			{Name: "speed", Type: bt.TNumber, Default: math.Min(0.3, l.maxLinear), Min: bt.Float(0.01), Max: bound(l.maxLinear), Unit: "m/s", Doc: "top speed"},
			{Name: "max_age_ms", Type: bt.TNumber, Default: 500.0, Min: bt.Float(1), Unit: "ms", Doc: "an older pose is stale"},
			l.deviceParam(KindDiffDrive),
		},
		New: func(b *bt.Builder) bt.Behavior {
			b.Words(6)
			return &moveTo{dev: l.device(b, KindDiffDrive), x: b.Number("x"), y: b.Number("y"), tol: b.Number("tolerance"),
				speed: b.Number("speed"), maxAge: b.Number("max_age_ms"),
				pose:       [3]bt.Slot{b.Key(l.poseKey + ".x"), b.Key(l.poseKey + ".y"), b.Key(l.poseKey + ".heading")},
				maxAngular: l.maxAngular}
		},
	}
}

// moveTo keeps: [0] actuator, [1] x, [2] y, [3] speed, [4] tolerance, [5] phase (0 turning in
// place, 1 driving).
type moveTo struct {
	dev                      string
	x, y, tol, speed, maxAge bt.Num
	pose                     [3]bt.Slot
	maxAngular               float64
}

func (mv *moveTo) Open(a *bt.Agent, n *bt.Node) {
	if _, act := resolve(a, n, mv.dev, KindDiffDrive); act == nil {
		return
	}
	m := a.Mem(n)
	x, ok1 := readNum(a, n, "x", mv.x)
	y, ok2 := readNum(a, n, "y", mv.y)
	speed, ok3 := readNum(a, n, "speed", mv.speed)
	tol, ok4 := readNum(a, n, "tolerance", mv.tol)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		m[0] = 0
		return
	}
	m[1], m[2], m[3], m[4], m[5] = f2w(x), f2w(y), f2w(speed), f2w(tol), 0
}

func (mv *moveTo) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	r, act, m, o, ok := startTick(a, n)
	if !ok {
		return bt.Error
	}
	maxAge, ok := readNum(a, n, "max_age_ms", mv.maxAge)
	if !ok {
		return bt.Error
	}
	var p [3]float64
	for i, s := range mv.pose {
		if p[i], ok = freshNumber(a, s, maxAge); !ok {
			a.Emit(n.Index, "error", staleMessage(a, "MoveTo", s, maxAge))
			return bt.Error
		}
	}
	dx, dy := w2f(m[1])-p[0], w2f(m[2])-p[1]
	dist := math.Hypot(dx, dy)
	if dist <= w2f(m[4]) {
		return bt.Success // Close stops the base
	}
	e := wrapAngle(math.Atan2(dy, dx) - p[2])
	switch {
	case m[5] == 0 && math.Abs(e) < startDriving:
		m[5] = 1
	case m[5] == 1 && math.Abs(e) > stopDriving:
		m[5] = 0
	}
	turnCap := math.Min(maxTurnRate, mv.maxAngular)
	w := math.Copysign(math.Min(math.Max(headingGain*math.Abs(e), minTurnRate), turnCap), e)
	c := command{b: w}
	if m[5] == 1 {
		c.a = math.Max(math.Min(w2f(m[3]), driveGain*dist), minDriveSpeed) * math.Max(0, math.Cos(e))
		c.b = math.Max(-turnCap, math.Min(turnCap, headingGain*e))
	}
	err := r.env.command(act, o, c, true)
	return commandStatus(a, n, err, bt.Running)
}

func (mv *moveTo) Close(a *bt.Agent, n *bt.Node) { releaseOwned(a, n) }

// startTick is the common start of a motion leaf's tick: the robot and
// the actuator it drives, the leaf's memory and its owner token; ok is
// false (the leaf returns ERROR) when the actuator is missing or a driver
// write of this leaf failed.
func startTick(a *bt.Agent, n *bt.Node) (r *Robot, act *actuator, m []uint64, o owner, ok bool) {
	r, act = resolved(a, n)
	if act == nil {
		return nil, nil, nil, owner{}, false
	}
	o = owner{a, n.Index}
	if driverError(a, n, r, act, o) {
		return nil, nil, nil, owner{}, false
	}
	return r, act, a.Mem(n), o, true
}
