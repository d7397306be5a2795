package gpio

import (
	"fmt"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
)

// The output leaves set a state and return SUCCESS at once. The state is latched, owned by no
// action: it stays until another leaf changes it, the mission ends (Robot.Safe) or an e-stop.
// Only Buzzer with ms runs, and owns the buzzer while it does.

func servoType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Servo", Kind: bt.Leaf, Category: "action",
		Doc: "Moves a servo to `angle` degrees and returns SUCCESS (the angle is kept until changed). " +
			"Angles outside the servo's configured range are refused at validation and clamped at run time. During an e-stop it returns FAILURE.",
		Params: []bt.Param{
			{Name: "angle", Type: bt.TNumber, Required: true, Min: bt.Float(l.servoMin), Max: bt.Float(l.servoMax), Unit: "deg", Doc: "target angle"},
			l.DeviceParam(KindServo),
		},
		New: func(b *bt.Builder) bt.Behavior {
			act := l.Device(b, KindServo)
			checkServoRange(b, l, act.Name())
			return &setter[AngleCommand]{act: act, value: b.Number("angle"), param: "angle", mk: func(v float64) AngleCommand { return AngleCommand{Degrees: v} },
				mem: bt.Reserve[drivers.LeafMem](b)}
		},
	}
}

// checkServoRange refuses a constant angle outside the named servo's own range (the declared
// limits are the union of all servos').
func checkServoRange(b *bt.Builder, l *limits, dev string) {
	if l.Config() == nil {
		return
	}
	raw, _ := b.Raw("angle")
	angle, ok := bt.AsNumber(raw)
	if !ok {
		return
	}
	for _, d := range l.Config().DevicesOfKind(KindServo) {
		s, isServo := d.Spec.(*ServoConfig)
		if isServo && (d.Name == dev || dev == "") && (angle < s.MinAngle || angle > s.MaxAngle) {
			b.Errorf("angle", "%v is outside servo %q's range [%v, %v]", angle, d.Name, s.MinAngle, s.MaxAngle)
		}
	}
}

// setter is a one-shot leaf that latches one number on an actuator (servo angle, relay level,
// digital level, PWM duty).
type setter[C any] struct {
	act    drivers.ActuatorRef
	param  string
	value  bt.Num
	flag   bt.Flag // relay: the on parameter instead of value
	isFlag bool
	mk     func(v float64) C // the command latching v
	mem    bt.Mem[drivers.LeafMem]
}

// level makes a level command.
func level(v float64) LevelCommand { return LevelCommand{Level: v} }

func (s *setter[C]) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	x := drivers.Use[C](&s.act, a, n, s.mem.Of(a, n))
	if x == nil {
		return bt.Error
	}
	var v float64
	if s.isFlag {
		on, ok := s.flag.Get(a)
		if !ok {
			a.Emit(n.Index, "error", fmt.Sprintf("%s: parameter %s: the blackboard has no boolean there", n.Type.Name, s.param))
			return bt.Error
		}
		if on {
			v = 1
		}
	} else {
		var ok bool
		if v, ok = drivers.ReadNum(a, n, s.param, s.value); !ok {
			return bt.Error
		}
	}
	return drivers.CommandStatus(a, n, x.Command(drivers.Owner{}, s.mk(v), false), bt.Success)
}

func ledType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Led", Kind: bt.Leaf, Category: "action",
		Doc: "Sets an LED on, off, toggled or blinking at `hz`, and returns SUCCESS (the LED keeps doing it until changed). During an e-stop it returns FAILURE.",
		Params: []bt.Param{
			{Name: "mode", Type: bt.TEnum, Enum: []string{"on", "off", "toggle", "blink"}, Default: "on", Doc: "what to do"},
			{Name: "hz", Type: bt.TNumber, Default: 2.0, Min: bt.Float(minBlinkHz), Max: bt.Float(maxBlinkHz), Unit: "Hz", Doc: "blink rate"},
			l.DeviceParam(KindLED),
		},
		New: func(b *bt.Builder) bt.Behavior {
			raw, _ := b.Raw("mode")
			mode, _ := raw.(string)
			return &led{act: l.Device(b, KindLED), mode: mode, hz: b.Number("hz"), mem: bt.Reserve[drivers.LeafMem](b)}
		},
	}
}

type led struct {
	act  drivers.ActuatorRef
	mode string
	hz   bt.Num
	mem  bt.Mem[drivers.LeafMem]
}

func (l *led) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	x := drivers.Use[LEDCommand](&l.act, a, n, l.mem.Of(a, n))
	if x == nil {
		return bt.Error
	}
	var c LEDCommand
	switch l.mode {
	case "on":
		c.Mode = LEDOn
	case "toggle":
		if x.Wanted().Mode == LEDOff {
			c.Mode = LEDOn
		}
	case "blink":
		hz, ok := drivers.ReadNum(a, n, "hz", l.hz)
		if !ok {
			return bt.Error
		}
		c = LEDCommand{Mode: LEDBlink, Hz: hz, T0: a.Now()}
		if cur := x.Wanted(); cur.Mode == LEDBlink && cur.Hz == hz {
			c.T0 = cur.T0 // already blinking at this rate: keep the phase
		}
	}
	return drivers.CommandStatus(a, n, x.Command(drivers.Owner{}, c, false), bt.Success)
}

func relayType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Relay", Kind: bt.Leaf, Category: "action",
		Doc: "Switches a relay on or off and returns SUCCESS (it stays so until changed). During an e-stop it returns FAILURE.",
		Params: []bt.Param{
			{Name: "on", Type: bt.TBool, Required: true, Doc: "true: energized"},
			l.DeviceParam(KindRelay),
		},
		New: func(b *bt.Builder) bt.Behavior {
			return &setter[LevelCommand]{act: l.Device(b, KindRelay), param: "on", flag: b.Bool("on"), isFlag: true,
				mk: level, mem: bt.Reserve[drivers.LeafMem](b)}
		},
	}
}

func digitalWriteType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "DigitalWrite", Kind: bt.Leaf, Category: "action",
		Doc: "Sets a digital output to `value` (0 or 1, the logical level: an active-low output is inverted) and returns SUCCESS. During an e-stop it returns FAILURE.",
		Params: []bt.Param{
			{Name: "value", Type: bt.TNumber, Required: true, Min: bt.Float(0), Max: bt.Float(1), Doc: "0 or 1"},
			l.DeviceParam(KindDigitalOut),
		},
		New: func(b *bt.Builder) bt.Behavior {
			if raw, _ := b.Raw("value"); raw != nil {
				if v, ok := bt.AsNumber(raw); ok && v != 0 && v != 1 {
					b.Errorf("value", "want 0 or 1, got %v", v)
				}
			}
			return &setter[LevelCommand]{act: l.Device(b, KindDigitalOut), param: "value", value: b.Number("value"),
				mk: level, mem: bt.Reserve[drivers.LeafMem](b)}
		},
	}
}

func pwmType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Pwm", Kind: bt.Leaf, Category: "action",
		Doc: "Sets a PWM output's duty cycle (0..1, within the output's max_duty) and returns SUCCESS. During an e-stop it returns FAILURE.",
		Params: []bt.Param{
			{Name: "duty", Type: bt.TNumber, Required: true, Min: bt.Float(0), Max: bt.Float(l.maxDuty), Doc: "duty cycle"},
			l.DeviceParam(KindPWMOut),
		},
		New: func(b *bt.Builder) bt.Behavior {
			return &setter[DutyCommand]{act: l.Device(b, KindPWMOut), param: "duty", value: b.Number("duty"),
				mk: func(v float64) DutyCommand { return DutyCommand{Duty: v} }, mem: bt.Reserve[drivers.LeafMem](b)}
		},
	}
}

func buzzerType(l *limits) bt.NodeType {
	return bt.NodeType{
		Name: "Buzzer", Kind: bt.Leaf, Category: "action",
		Doc: drivers.LeafDoc("With `on`: switches the buzzer on or off and returns SUCCESS (latched). With `ms`: sounds it, RUNNING for `ms`, " +
			"then silences it and returns SUCCESS; halted, it silences the buzzer unless another action took it over."),
		Params: []bt.Param{
			{Name: "on", Type: bt.TBool, Doc: "switch on (true) or off (false)"},
			{Name: "ms", Type: bt.TNumber, Min: bt.Float(0), Unit: "ms", Doc: "sound for this long"},
			l.DeviceParam(KindBuzzer),
		},
		New: func(b *bt.Builder) bt.Behavior {
			if b.Has("on") == b.Has("ms") {
				b.Errorf("", "give either on or ms")
			}
			return &buzzer{act: l.Device(b, KindBuzzer), on: b.Bool("on"), ms: b.Number("ms"), timed: b.Has("ms"),
				mem: bt.Reserve[buzzerMem](b)}
		},
	}
}

type buzzer struct {
	act   drivers.ActuatorRef
	on    bt.Flag
	ms    bt.Num
	timed bool
	mem   bt.Mem[buzzerMem]
}

var (
	_ bt.Opener = (*buzzer)(nil)
	_ bt.Closer = (*buzzer)(nil) // also on halt: silences the buzzer it owns
)

// buzzerMem is a Buzzer's per-agent memory, set when it opens.
type buzzerMem struct {
	drivers.LeafMem
	start, dur int64 // clock ns (with ms)
}

func (bz *buzzer) Open(a *bt.Agent, n *bt.Node) {
	m := bz.mem.Of(a, n)
	m.SetReady(false)
	if drivers.Use[LevelCommand](&bz.act, a, n, &m.LeafMem) == nil {
		return
	}
	if bz.timed {
		d, ok := bt.ReadDuration(a, n.Index, bz.ms, "ms")
		if !ok {
			return
		}
		m.start, m.dur = a.Now(), d
	}
	m.SetReady(true)
}

func (bz *buzzer) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := bz.mem.Of(a, n)
	x, o, ok := drivers.StartTick[LevelCommand](&bz.act, a, n, &m.LeafMem)
	if !ok {
		return bt.Error
	}
	if !bz.timed {
		on, ok := bz.on.Get(a)
		if !ok {
			a.Emit(n.Index, "error", "Buzzer: parameter on: the blackboard has no boolean there")
			return bt.Error
		}
		c := LevelCommand{}
		if on {
			c.Level = 1
		}
		return drivers.CommandStatus(a, n, x.Command(drivers.Owner{}, c, false), bt.Success)
	}
	if a.Now()-m.start >= m.dur {
		return bt.Success // Close silences it
	}
	return drivers.CommandStatus(a, n, x.Command(o, LevelCommand{Level: 1}, true), bt.Running)
}

// Close silences a sounding Buzzer (with ms) if it still owns the buzzer (a halt too).
func (bz *buzzer) Close(a *bt.Agent, n *bt.Node) {
	if bz.timed {
		bz.act.Release(a, drivers.OwnerOf(a, n))
	}
}
