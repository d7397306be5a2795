package tello

import (
	"fmt"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
)

// leaves are the Tello's leaves.
func leaves(l *drivers.LeafKit) []bt.NodeType {
	return []bt.NodeType{requestType(l, "TelloTakeoff", modeTakeoff), requestType(l, "TelloLand", modeLand),
		moveType(l), flipType(l)}
}

// configOf returns the config of a Tello leaf's device (nil when it did not resolve).
func configOf(l *drivers.LeafKit, ref drivers.ActuatorRef) *Config {
	if l.Config() == nil || !ref.Resolved() {
		return nil
	}
	for _, d := range l.Config().DevicesOfKind(Kind) {
		if d.Name == ref.Name() {
			c, _ := d.Spec.(*Config)
			return c
		}
	}
	return nil
}

// requestType is TelloTakeoff or TelloLand: send the request once, then RUNNING until
// the flight data says the drone is flying (takeoff) or not (land).
func requestType(l *drivers.LeafKit, name string, mode uint8) bt.NodeType {
	what, until := "takes off", "the drone reports flying"
	if mode == modeLand {
		what, until = "lands", "the drone reports it is no longer flying"
	}
	return bt.NodeType{
		Name: name, Kind: bt.Leaf, Category: "action",
		Doc: drivers.LeafDoc(fmt.Sprintf("The Tello %s: the request is sent once when the node opens; RUNNING until %s (KEY.flying, "+
			"fresh within 1 s), then SUCCESS; FAILURE after `timeout_ms`. Halting it hovers (a landing the drone began goes on).", what, until)),
		Params: []bt.Param{
			{Name: "timeout_ms", Type: bt.TNumber, Default: 10000.0, Min: bt.Float(100), Max: bt.Float(60000), Unit: "ms", Doc: "how long to wait for the drone"},
			l.DeviceParam(Kind),
		},
		New: func(b *bt.Builder) bt.Behavior {
			ref := l.Device(b, Kind)
			key := "tello"
			if c := configOf(l, ref); c != nil {
				key = c.Key
			}
			return &request{act: ref, mode: mode, name: name, timeout: b.Number("timeout_ms"), flying: b.Key(key + ".flying"),
				mem: bt.Reserve[requestMem](b)}
		},
	}
}

type request struct {
	act     drivers.ActuatorRef
	mode    uint8
	name    string
	timeout bt.Num
	flying  bt.Slot
	mem     bt.Mem[requestMem]
}

var (
	_ bt.Opener = (*request)(nil)
	_ bt.Closer = (*request)(nil)
)

type requestMem struct {
	drivers.LeafMem
	start, timeout int64 // clock ns
}

func (t *request) Open(a *bt.Agent, n *bt.Node) {
	m := t.mem.Of(a, n)
	m.SetReady(false)
	if drivers.Use[Command](&t.act, a, n, &m.LeafMem) == nil {
		return
	}
	ns, ok := bt.ReadDuration(a, n.Index, t.timeout, "ms")
	if !ok {
		return
	}
	m.start, m.timeout = a.Now(), ns
	m.SetReady(true)
}

func (t *request) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := t.mem.Of(a, n)
	act, o, ok := drivers.StartTick[Command](&t.act, a, n, &m.LeafMem)
	if !ok {
		return bt.Error
	}
	if f, fresh := drivers.FreshNumber(a, t.flying, 1000); fresh && (f != 0) == (t.mode == modeTakeoff) && a.Now() > m.start {
		if ts, _ := a.BB.Stamp(t.flying); ts > m.start {
			return bt.Success
		}
	}
	if a.Now()-m.start >= m.timeout {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: the drone did not report %s within %v ms", t.name,
			map[bool]string{true: "flying", false: "landed"}[t.mode == modeTakeoff], float64(m.timeout)/1e6))
		return bt.Failure
	}
	err := act.Command(o, Command{mode: t.mode, req: m.start}, true)
	return drivers.CommandStatus(a, n, err, bt.Running)
}

func (t *request) Close(a *bt.Agent, n *bt.Node) { t.act.Release(a, drivers.OwnerOf(a, n)) }

func moveType(l *drivers.LeafKit) bt.NodeType {
	top := 1.0
	if l.Config() != nil {
		top = 0
		for _, d := range l.Config().DevicesOfKind(Kind) {
			if c, ok := d.Spec.(*Config); ok && c.MaxSpeed > top {
				top = c.MaxSpeed
			}
		}
	}
	stick := func(name, doc string) bt.Param {
		return bt.Param{Name: name, Type: bt.TNumber, Default: 0.0, Min: bt.Float(-top), Max: bt.Float(top), Doc: doc + " (stick, -max_speed..max_speed of full)"}
	}
	return bt.NodeType{
		Name: "TelloMove", Kind: bt.Leaf, Category: "action",
		Doc: drivers.LeafDoc("Flies the Tello with the sticks: `forward`, `right`, `up` and `yaw` (clockwise), each a share of full stick within the " +
			"device's max_speed; RUNNING until `ms` has passed, then SUCCESS (without `ms`, RUNNING until halted). Halting it hovers."),
		Params: []bt.Param{
			stick("forward", "forward (negative: back)"), stick("right", "sideways (negative: left)"),
			stick("up", "climb (negative: descend)"), stick("yaw", "turn clockwise (negative: anticlockwise)"),
			{Name: "ms", Type: bt.TNumber, Min: bt.Float(0), Unit: "ms", Doc: "how long to fly so (optional)"},
			l.DeviceParam(Kind),
		},
		New: func(b *bt.Builder) bt.Behavior {
			return &move{act: l.Device(b, Kind), f: b.Number("forward"), r: b.Number("right"), u: b.Number("up"),
				y: b.Number("yaw"), ms: b.Number("ms"), timed: b.Has("ms"), mem: bt.Reserve[moveMem](b)}
		},
	}
}

type move struct {
	act            drivers.ActuatorRef
	f, r, u, y, ms bt.Num
	timed          bool
	mem            bt.Mem[moveMem]
}

var (
	_ bt.Opener = (*move)(nil)
	_ bt.Closer = (*move)(nil)
)

type moveMem struct {
	drivers.LeafMem
	start, dur int64
	c          Command
}

func (t *move) Open(a *bt.Agent, n *bt.Node) {
	m := t.mem.Of(a, n)
	m.SetReady(false)
	if drivers.Use[Command](&t.act, a, n, &m.LeafMem) == nil {
		return
	}
	f, ok1 := drivers.ReadNum(a, n, "forward", t.f)
	r, ok2 := drivers.ReadNum(a, n, "right", t.r)
	u, ok3 := drivers.ReadNum(a, n, "up", t.u)
	y, ok4 := drivers.ReadNum(a, n, "yaw", t.y)
	var dur int64
	ok5 := true
	if t.timed {
		dur, ok5 = bt.ReadDuration(a, n.Index, t.ms, "ms")
	}
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return
	}
	m.start, m.dur, m.c = a.Now(), dur, Command{mode: modeSticks, forward: f, right: r, up: u, yaw: y}
	m.SetReady(true)
}

func (t *move) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := t.mem.Of(a, n)
	act, o, ok := drivers.StartTick[Command](&t.act, a, n, &m.LeafMem)
	if !ok {
		return bt.Error
	}
	if t.timed && a.Now()-m.start >= m.dur {
		return bt.Success // Close hovers
	}
	return drivers.CommandStatus(a, n, act.Command(o, m.c, true), bt.Running)
}

func (t *move) Close(a *bt.Agent, n *bt.Node) { t.act.Release(a, drivers.OwnerOf(a, n)) }

// flips are TelloFlip's directions, in gobot's FlipType order.
var flips = []string{"front", "left", "back", "right"}

func flipType(l *drivers.LeafKit) bt.NodeType {
	return bt.NodeType{
		Name: "TelloFlip", Kind: bt.Leaf, Category: "action",
		Doc: drivers.LeafDoc("Flips the Tello in `direction` and returns SUCCESS. Refused when the mission is compiled unless the device " +
			"has allow_flips: true (a flip loses height and needs room)."),
		Params: []bt.Param{
			{Name: "direction", Type: bt.TEnum, Enum: flips, Required: true, Doc: "which way"},
			l.DeviceParam(Kind),
		},
		New: func(b *bt.Builder) bt.Behavior {
			ref := l.Device(b, Kind)
			if c := configOf(l, ref); c != nil && !c.AllowFlips {
				b.Errorf("", "flips are off for the Tello %q: set allow_flips: true in its config to allow them", ref.Name())
			}
			raw, _ := b.Raw("direction")
			dir := 0
			for i, d := range flips {
				if d == raw {
					dir = i
				}
			}
			return &flipLeaf{act: ref, dir: dir, mem: bt.Reserve[drivers.LeafMem](b)}
		},
	}
}

type flipLeaf struct {
	act drivers.ActuatorRef
	dir int
	mem bt.Mem[drivers.LeafMem]
}

func (t *flipLeaf) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	act := drivers.Use[Command](&t.act, a, n, t.mem.Of(a, n))
	if act == nil {
		return bt.Error
	}
	return drivers.CommandStatus(a, n, act.Command(drivers.Owner{}, Command{mode: modeFlip, flip: t.dir, req: a.Now()}, false), bt.Success)
}
