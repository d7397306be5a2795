//go:build linux

package gpio

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/drivers/gpio"

	"github.com/botd-project/botd/drivers"
)

// This file builds the actuator kinds on Gobot's gpio drivers and says how each writes a
// command. Every write method writes only what differs from its last successful write unless
// forced, and forgets what it wrote when a write fails, so the next Apply retries.

func buildDiffDrive(b *drivers.Builder, c *DiffDriveConfig) error {
	dw, err := drivers.Need[gpio.DigitalWriter](b, "do digital writes (gpio.DigitalWriter) for the motors")
	if err != nil {
		return err
	}
	if _, err := drivers.Need[gpio.PwmWriter](b, "do PWM (gpio.PwmWriter) for the motor speed"); err != nil {
		return err
	}
	impl := &driveImpl{cfg: c}
	for i, m := range []struct {
		side string
		p    MotorPins
	}{{"left", c.Left}, {"right", c.Right}} {
		opts := []interface{}{gpio.WithName(b.Name() + "." + m.side)}
		if m.p.Dir != "" {
			opts = append(opts, gpio.WithMotorDirectionPin(m.p.Dir))
		} else {
			opts = append(opts, gpio.WithMotorForwardPin(m.p.Forward), gpio.WithMotorBackwardPin(m.p.Backward))
		}
		drv := gpio.NewMotorDriver(dw, m.p.Speed, opts...)
		impl.m[i] = &motor{drv: drv, paired: m.p.Dir == "", reverse: m.p.Reverse, pwm: -1, out: &impl.out[i]}
		b.AddDriver(drv, true)
	}
	impl.act = drivers.NewActuator[DriveCommand](b, impl)
	return nil
}

type driveImpl struct {
	act *drivers.Actuator[DriveCommand]
	cfg *DiffDriveConfig
	m   [2]*motor
	// out is each wheel's duty as last written to its bridge (math.Float64bits of -1..1,
	// positive forward): what a pose filter reads (drivers.WheelDrive) for dead reckoning, for the direction of
	// single-channel encoders and for the stall check, from its own goroutine.
	out [2]atomic.Uint64
}

// Duties implements drivers.WheelDrive: the duties last written to the left and right bridges.
func (d *driveImpl) Duties() (l, r float64) {
	return math.Float64frombits(d.out[0].Load()), math.Float64frombits(d.out[1].Load())
}

type motor struct {
	drv     *gpio.MotorDriver
	paired  bool // forward/backward pins rather than one direction pin
	reverse bool
	dir     string // last direction written; "" unknown
	pwm     int    // last speed written; -1 unknown
	out     *atomic.Uint64
}

func (*driveImpl) Safe() DriveCommand { return DriveCommand{} }

// MaxWheelSpeed implements drivers.WheelDrive.
func (d *driveImpl) MaxWheelSpeed() float64 { return d.cfg.MaxWheelSpeed }

// Drives implements drivers.Drive.
func (*driveImpl) Drives() {}

func (d *driveImpl) Clamp(c DriveCommand) DriveCommand {
	return DriveCommand{Linear: clampAbs(c.Linear, d.cfg.MaxLinear), Angular: clampAbs(c.Angular, d.cfg.MaxAngular)}
}

// wheels turns (linear, angular) into wheel duties in -1..1, scaled down together when a wheel
// would exceed its top speed so the path's curvature is kept.
func (d *driveImpl) wheels(c DriveCommand) (l, r float64) {
	half := c.Angular * d.cfg.WheelBase / 2
	l, r = (c.Linear-half)/d.cfg.MaxWheelSpeed, (c.Linear+half)/d.cfg.MaxWheelSpeed
	if s := math.Max(math.Abs(l), math.Abs(r)); s > 1 {
		l, r = l/s, r/s
	}
	return l, r
}

func (d *driveImpl) Write(c DriveCommand, _ time.Time, force bool) error {
	l, r := d.wheels(c)
	return errors.Join(d.m[0].set(l, force), d.m[1].set(r, force))
}

func (m *motor) set(duty float64, force bool) error {
	pwm := int(math.Round(math.Min(math.Abs(duty), 1) * 255))
	dir := "forward"
	if (duty < 0) != m.reverse {
		dir = "backward"
	}
	if pwm == 0 {
		switch {
		case m.paired:
			dir = "none" // both pins low: the bridge lets the motor coast
		case m.dir != "":
			dir = m.dir // no need to flip a direction pin to stand still
		}
	}
	if force || dir != m.dir {
		if m.pwm != 0 && !force {
			// Never reverse a spinning motor at speed: stop it first.
			if err := m.drv.SetSpeed(0); err != nil {
				m.pwm = -1
				return err
			}
			m.pwm = 0
			m.out.Store(0)
		}
		if err := m.drv.SetDirection(dir); err != nil {
			m.dir = ""
			return err
		}
		m.dir = dir
	}
	if force || pwm != m.pwm {
		if err := m.drv.SetSpeed(byte(pwm)); err != nil {
			m.pwm = -1
			return err
		}
		m.pwm = pwm
	}
	m.out.Store(math.Float64bits(math.Copysign(float64(pwm)/255, duty)))
	return nil
}

func buildServo(b *drivers.Builder, c *ServoConfig) error {
	sw, err := drivers.Need[gpio.ServoWriter](b, "drive servos (gpio.ServoWriter)")
	if err != nil {
		return err
	}
	drv := gpio.NewServoDriver(sw, c.Pin, gpio.WithName(b.Name()))
	b.AddDriver(drv, true)
	s := &servoImpl{drv: drv, cfg: c, last: -1}
	s.act = drivers.NewActuator[AngleCommand](b, s)
	return nil
}

type servoImpl struct {
	act  *drivers.Actuator[AngleCommand]
	drv  *gpio.ServoDriver
	cfg  *ServoConfig
	last int
}

func (s *servoImpl) Safe() AngleCommand { return AngleCommand{Degrees: *s.cfg.SafeAngle} }

func (s *servoImpl) Clamp(c AngleCommand) AngleCommand {
	if math.IsNaN(c.Degrees) {
		return s.Safe()
	}
	return AngleCommand{Degrees: math.Min(math.Max(c.Degrees, s.cfg.MinAngle), s.cfg.MaxAngle)}
}

func (s *servoImpl) Write(c AngleCommand, _ time.Time, force bool) error {
	a := int(math.Round(c.Degrees))
	if !force && a == s.last {
		return nil
	}
	if err := s.drv.Move(uint8(a)); err != nil {
		s.last = -1
		return err
	}
	s.last = a
	return nil
}

func buildOutput(b *drivers.Builder, c *OutputConfig) error {
	dw, err := drivers.Need[gpio.DigitalWriter](b, "do digital writes (gpio.DigitalWriter)")
	if err != nil {
		return err
	}
	out := &output{last: -1}
	// physical writes the logical level, inverted for an active-low device.
	physical := func(on, off func() error) func(bool) error {
		return func(level bool) error {
			if level != c.ActiveLow {
				return on()
			}
			return off()
		}
	}
	var drv gobot.Driver
	switch c.kind {
	case KindLED:
		led := gpio.NewLedDriver(dw, c.Pin, gpio.WithName(b.Name()))
		out.set, drv = physical(led.On, led.Off), led
	case KindRelay:
		opts := []interface{}{gpio.WithName(b.Name())}
		if c.ActiveLow {
			opts = append(opts, gpio.WithRelayInverted())
		}
		relay := gpio.NewRelayDriver(dw, c.Pin, opts...)
		out.set = func(level bool) error { // the driver inverts an active-low relay itself
			if level {
				return relay.On()
			}
			return relay.Off()
		}
		drv = relay
	case KindBuzzer:
		bz := gpio.NewBuzzerDriver(dw, c.Pin, gpio.WithName(b.Name()))
		out.set, drv = physical(bz.On, bz.Off), bz
	case KindDigitalOut:
		pin := gpio.NewDirectPinDriver(b.Board(), c.Pin, gpio.WithName(b.Name()))
		out.set, drv = physical(pin.On, pin.Off), pin
	default:
		return fmt.Errorf("unknown output kind %q", c.kind)
	}
	b.AddDriver(drv, true)
	if c.kind == KindLED {
		l := &ledImpl{output: out, safeMode: uint8(c.Safe)} // LEDOff or LEDOn
		l.act = drivers.NewActuator[LEDCommand](b, l)
	} else {
		l := &levelImpl{output: out, safeLevel: float64(c.Safe)}
		l.act = drivers.NewActuator[LevelCommand](b, l)
	}
	return nil
}

// output is an on/off output's pin as its driver switches it.
type output struct {
	set  func(level bool) error
	last int // logical level last written; -1 unknown
}

// write switches the output to the logical level lv (0 or 1).
func (o *output) write(lv int, force bool) error {
	if !force && lv == o.last {
		return nil
	}
	if err := o.set(lv == 1); err != nil {
		o.last = -1
		return err
	}
	o.last = lv
	return nil
}

// levelImpl is an on/off output: a relay, a buzzer, a plain digital output.
type levelImpl struct {
	*output
	act       *drivers.Actuator[LevelCommand]
	safeLevel float64
}

func (l *levelImpl) Safe() LevelCommand { return LevelCommand{Level: l.safeLevel} }

func (l *levelImpl) Clamp(c LevelCommand) LevelCommand {
	if c.Level != 0 && !math.IsNaN(c.Level) {
		return LevelCommand{Level: 1}
	}
	return LevelCommand{}
}

func (l *levelImpl) Write(c LevelCommand, _ time.Time, force bool) error {
	return l.write(int(c.Level), force)
}

// ledImpl is an LED: on, off or blinking.
type ledImpl struct {
	*output
	act      *drivers.Actuator[LEDCommand]
	safeMode uint8
}

func (l *ledImpl) Safe() LEDCommand { return LEDCommand{Mode: l.safeMode} }

func (l *ledImpl) Clamp(c LEDCommand) LEDCommand {
	if c.Mode > LEDBlink {
		c.Mode = LEDOff
	}
	c.Hz = math.Min(math.Max(c.Hz, minBlinkHz), maxBlinkHz)
	if math.IsNaN(c.Hz) {
		c.Hz = 1
	}
	return c
}

// level is the logical level of c at now: an LED blinking at Hz is on for the first half of
// each period from T0.
func (l *ledImpl) level(c LEDCommand, now time.Time) int {
	switch c.Mode {
	case LEDOn:
		return 1
	case LEDBlink:
		half := int64(float64(time.Second) / (2 * c.Hz))
		if (now.UnixNano()-c.T0)/half%2 == 0 {
			return 1
		}
	}
	return 0
}

func (l *ledImpl) Write(c LEDCommand, now time.Time, force bool) error {
	return l.write(l.level(c, now), force)
}

func buildPWMOut(b *drivers.Builder, c *PWMOutConfig) error {
	if _, err := drivers.Need[gpio.PwmWriter](b, "do PWM (gpio.PwmWriter)"); err != nil {
		return err
	}
	drv := gpio.NewDirectPinDriver(b.Board(), c.Pin, gpio.WithName(b.Name()))
	b.AddDriver(drv, true)
	p := &pwmImpl{drv: drv, cfg: c, last: -1}
	p.act = drivers.NewActuator[DutyCommand](b, p)
	return nil
}

type pwmImpl struct {
	act  *drivers.Actuator[DutyCommand]
	drv  *gpio.DirectPinDriver
	cfg  *PWMOutConfig
	last int
}

func (p *pwmImpl) Safe() DutyCommand { return DutyCommand{Duty: p.cfg.Safe} }

func (p *pwmImpl) Clamp(c DutyCommand) DutyCommand {
	if math.IsNaN(c.Duty) {
		return p.Safe()
	}
	return DutyCommand{Duty: math.Min(math.Max(c.Duty, 0), p.cfg.MaxDuty)}
}

func (p *pwmImpl) Write(c DutyCommand, _ time.Time, force bool) error {
	v := int(math.Round(c.Duty * 255))
	if !force && v == p.last {
		return nil
	}
	if err := p.drv.PwmWrite(byte(v)); err != nil {
		p.last = -1
		return err
	}
	p.last = v
	return nil
}

func clampAbs(v, limit float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return math.Min(math.Max(v, -limit), limit)
}

// builds builds the family's kinds.
var builds = map[string]func(*drivers.Builder) error{
	KindDiffDrive:  func(b *drivers.Builder) error { return buildDiffDrive(b, b.Spec().(*DiffDriveConfig)) },
	KindServo:      func(b *drivers.Builder) error { return buildServo(b, b.Spec().(*ServoConfig)) },
	KindLED:        buildOutputKind,
	KindRelay:      buildOutputKind,
	KindBuzzer:     buildOutputKind,
	KindDigitalOut: buildOutputKind,
	KindPWMOut:     func(b *drivers.Builder) error { return buildPWMOut(b, b.Spec().(*PWMOutConfig)) },
}

func buildOutputKind(b *drivers.Builder) error { return buildOutput(b, b.Spec().(*OutputConfig)) }
