package drivers

import (
	"fmt"

	"github.com/botd-project/botd/bt"
)

// telloTypes are the Tello's leaves, registered when the config has a tello device.
func telloTypes(l *LeafKit) []bt.NodeType {
	return []bt.NodeType{telloRequestType(l, "TelloTakeoff", telloTakeoff), telloRequestType(l, "TelloLand", telloLand),
		telloMoveType(l), telloFlipType(l)}
}

// tello returns the config of a Tello leaf's device (nil when it did not resolve).
func (l *LeafKit) tello(ref actuatorRef) *TelloConfig {
	if l.cfg == nil || ref.index < 0 {
		return nil
	}
	for _, d := range l.cfg.DevicesOfKind(KindTello) {
		if d.Name == ref.name {
			c, _ := specOf[*TelloConfig](d)
			return c
		}
	}
	return nil
}

// telloRequestType is TelloTakeoff or TelloLand: send the request once, then RUNNING until
// the flight data says the drone is flying (takeoff) or not (land).
func telloRequestType(l *LeafKit, name string, mode uint8) bt.NodeType {
	what, until := "takes off", "the drone reports flying"
	if mode == telloLand {
		what, until = "lands", "the drone reports it is no longer flying"
	}
	return bt.NodeType{
		Name: name, Kind: bt.Leaf, Category: "action",
		Doc: leafDoc(fmt.Sprintf("The Tello %s: the request is sent once when the node opens; RUNNING until %s (KEY.flying, "+
			"fresh within 1 s), then SUCCESS; FAILURE after `timeout_ms`. Halting it hovers (a landing the drone began goes on).", what, until)),
		Params: []bt.Param{
			{Name: "timeout_ms", Type: bt.TNumber, Default: 10000.0, Min: bt.Float(100), Max: bt.Float(60000), Unit: "ms", Doc: "how long to wait for the drone"},
			l.deviceParam(KindTello),
		},
		New: func(b *bt.Builder) bt.Behavior {
			ref := l.device(b, KindTello)
			key := "tello"
			if c := l.tello(ref); c != nil {
				key = c.Key
			}
			return &telloRequest{act: ref, mode: mode, name: name, timeout: b.Number("timeout_ms"), flying: b.Key(key + ".flying"),
				mem: bt.Reserve[telloReqMem](b)}
		},
	}
}

type telloRequest struct {
	act     actuatorRef
	mode    uint8
	name    string
	timeout bt.Num
	flying  bt.Slot
	mem     bt.Mem[telloReqMem]
}

var (
	_ bt.Opener = (*telloRequest)(nil)
	_ bt.Closer = (*telloRequest)(nil)
)

type telloReqMem struct {
	leafMem
	start, timeout int64 // clock ns
}

func (t *telloRequest) Open(a *bt.Agent, n *bt.Node) {
	m := t.mem.Of(a, n)
	m.ready = false
	if _, act := t.act.use(a, n, &m.reported); act == nil {
		return
	}
	ns, ok := bt.ReadDuration(a, n.Index, t.timeout, "ms")
	if !ok {
		return
	}
	m.start, m.timeout, m.ready = a.Now(), ns, true
}

func (t *telloRequest) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := t.mem.Of(a, n)
	_, act, o, ok := startTick(a, n, &t.act, &m.leafMem)
	if !ok {
		return bt.Error
	}
	if f, fresh := freshNumber(a, t.flying, 1000); fresh && (f != 0) == (t.mode == telloTakeoff) && a.Now() > m.start {
		if ts, _ := a.BB.Stamp(t.flying); ts > m.start {
			return bt.Success
		}
	}
	if a.Now()-m.start >= m.timeout {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: the drone did not report %s within %v ms", t.name,
			map[bool]string{true: "flying", false: "landed"}[t.mode == telloTakeoff], float64(m.timeout)/1e6))
		return bt.Failure
	}
	err := typed[telloCommand](act).Command(o, telloCommand{mode: t.mode, req: m.start}, true)
	return commandStatus(a, n, err, bt.Running)
}

func (t *telloRequest) Close(a *bt.Agent, n *bt.Node) { t.act.release(a, owner{a, n.Index}) }

func telloMoveType(l *LeafKit) bt.NodeType {
	top := 1.0
	if l.cfg != nil {
		top = 0
		for _, d := range l.cfg.DevicesOfKind(KindTello) {
			if c, ok := specOf[*TelloConfig](d); ok && c.MaxSpeed > top {
				top = c.MaxSpeed
			}
		}
	}
	stick := func(name, doc string) bt.Param {
		return bt.Param{Name: name, Type: bt.TNumber, Default: 0.0, Min: bt.Float(-top), Max: bt.Float(top), Doc: doc + " (stick, -max_speed..max_speed of full)"}
	}
	return bt.NodeType{
		Name: "TelloMove", Kind: bt.Leaf, Category: "action",
		Doc: leafDoc("Flies the Tello with the sticks: `forward`, `right`, `up` and `yaw` (clockwise), each a share of full stick within the " +
			"device's max_speed; RUNNING until `ms` has passed, then SUCCESS (without `ms`, RUNNING until halted). Halting it hovers."),
		Params: []bt.Param{
			stick("forward", "forward (negative: back)"), stick("right", "sideways (negative: left)"),
			stick("up", "climb (negative: descend)"), stick("yaw", "turn clockwise (negative: anticlockwise)"),
			{Name: "ms", Type: bt.TNumber, Min: bt.Float(0), Unit: "ms", Doc: "how long to fly so (optional)"},
			l.deviceParam(KindTello),
		},
		New: func(b *bt.Builder) bt.Behavior {
			return &telloMove{act: l.device(b, KindTello), f: b.Number("forward"), r: b.Number("right"), u: b.Number("up"),
				y: b.Number("yaw"), ms: b.Number("ms"), timed: b.Has("ms"), mem: bt.Reserve[telloMoveMem](b)}
		},
	}
}

type telloMove struct {
	act            actuatorRef
	f, r, u, y, ms bt.Num
	timed          bool
	mem            bt.Mem[telloMoveMem]
}

var (
	_ bt.Opener = (*telloMove)(nil)
	_ bt.Closer = (*telloMove)(nil)
)

type telloMoveMem struct {
	leafMem
	start, dur int64
	c          telloCommand
}

func (t *telloMove) Open(a *bt.Agent, n *bt.Node) {
	m := t.mem.Of(a, n)
	m.ready = false
	if _, act := t.act.use(a, n, &m.reported); act == nil {
		return
	}
	f, ok1 := readNum(a, n, "forward", t.f)
	r, ok2 := readNum(a, n, "right", t.r)
	u, ok3 := readNum(a, n, "up", t.u)
	y, ok4 := readNum(a, n, "yaw", t.y)
	var dur int64
	ok5 := true
	if t.timed {
		dur, ok5 = bt.ReadDuration(a, n.Index, t.ms, "ms")
	}
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return
	}
	m.start, m.dur, m.c = a.Now(), dur, telloCommand{mode: telloSticks, forward: f, right: r, up: u, yaw: y}
	m.ready = true
}

func (t *telloMove) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := t.mem.Of(a, n)
	_, act, o, ok := startTick(a, n, &t.act, &m.leafMem)
	if !ok {
		return bt.Error
	}
	if t.timed && a.Now()-m.start >= m.dur {
		return bt.Success // Close hovers
	}
	return commandStatus(a, n, typed[telloCommand](act).Command(o, m.c, true), bt.Running)
}

func (t *telloMove) Close(a *bt.Agent, n *bt.Node) { t.act.release(a, owner{a, n.Index}) }

// telloFlips are TelloFlip's directions, in gobot's FlipType order.
var telloFlips = []string{"front", "left", "back", "right"}

func telloFlipType(l *LeafKit) bt.NodeType {
	return bt.NodeType{
		Name: "TelloFlip", Kind: bt.Leaf, Category: "action",
		Doc: leafDoc("Flips the Tello in `direction` and returns SUCCESS. Refused when the mission is compiled unless the device " +
			"has allow_flips: true (a flip loses height and needs room)."),
		Params: []bt.Param{
			{Name: "direction", Type: bt.TEnum, Enum: telloFlips, Required: true, Doc: "which way"},
			l.deviceParam(KindTello),
		},
		New: func(b *bt.Builder) bt.Behavior {
			ref := l.device(b, KindTello)
			if c := l.tello(ref); c != nil && !c.AllowFlips {
				b.Errorf("", "flips are off for the Tello %q: set allow_flips: true in its config to allow them", ref.name)
			}
			raw, _ := b.Raw("direction")
			dir := 0
			for i, d := range telloFlips {
				if d == raw {
					dir = i
				}
			}
			return &telloFlipLeaf{act: ref, dir: dir, mem: bt.Reserve[leafMem](b)}
		},
	}
}

type telloFlipLeaf struct {
	act actuatorRef
	dir int
	mem bt.Mem[leafMem]
}

func (t *telloFlipLeaf) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	_, act := t.act.use(a, n, &t.mem.Of(a, n).reported)
	if act == nil {
		return bt.Error
	}
	return commandStatus(a, n, typed[telloCommand](act).Command(Owner{}, telloCommand{mode: telloFlip, flip: t.dir, req: a.Now()}, false), bt.Success)
}
