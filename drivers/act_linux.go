//go:build linux

package drivers

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/drivers/gpio"
)

// This file builds the actuator kinds on Gobot's gpio drivers and says how each writes a
// command. Every write method writes only what differs from its last successful write unless
// forced, and forgets what it wrote when a write fails, so the next Apply retries.

func buildDiffDrive(d *device, c *DiffDriveConfig) error {
	dw, err := need[gpio.DigitalWriter](d.board, "do digital writes (gpio.DigitalWriter) for the motors")
	if err != nil {
		return err
	}
	if _, err := need[gpio.PwmWriter](d.board, "do PWM (gpio.PwmWriter) for the motor speed"); err != nil {
		return err
	}
	impl := &driveImpl{cfg: c}
	for i, m := range []struct {
		side string
		p    MotorPins
	}{{"left", c.Left}, {"right", c.Right}} {
		opts := []interface{}{gpio.WithName(d.name + "." + m.side)}
		if m.p.Dir != "" {
			opts = append(opts, gpio.WithMotorDirectionPin(m.p.Dir))
		} else {
			opts = append(opts, gpio.WithMotorForwardPin(m.p.Forward), gpio.WithMotorBackwardPin(m.p.Backward))
		}
		drv := gpio.NewMotorDriver(dw, m.p.Speed, opts...)
		impl.m[i] = &motor{drv: drv, paired: m.p.Dir == "", reverse: m.p.Reverse, pwm: -1, out: &impl.out[i]}
		d.addDriver(drv, true)
	}
	d.act = newUnionActuator(d, impl)
	return nil
}

type driveImpl struct {
	cfg *DiffDriveConfig
	m   [2]*motor
	// out is each wheel's duty as last written to its bridge (math.Float64bits of -1..1,
	// positive forward): what a pose filter reads (WheelDrive) for dead reckoning, for the direction of
	// single-channel encoders and for the stall check, from its own goroutine.
	out [2]atomic.Uint64
}

// Duties implements WheelDrive: the duties last written to the left and right bridges.
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

func (*driveImpl) safe() command { return command{} }

// MaxWheelSpeed implements WheelDrive.
func (d *driveImpl) MaxWheelSpeed() float64 { return d.cfg.MaxWheelSpeed }

// Drives implements Drive.
func (*driveImpl) Drives() {}

func (d *driveImpl) clamp(c command) command {
	return command{a: clampAbs(c.a, d.cfg.MaxLinear), b: clampAbs(c.b, d.cfg.MaxAngular)}
}

// wheels turns (linear, angular) into wheel duties in -1..1, scaled down together when a wheel
// would exceed its top speed so the path's curvature is kept.
func (d *driveImpl) wheels(c command) (l, r float64) {
	half := c.b * d.cfg.WheelBase / 2
	l, r = (c.a-half)/d.cfg.MaxWheelSpeed, (c.a+half)/d.cfg.MaxWheelSpeed
	if s := math.Max(math.Abs(l), math.Abs(r)); s > 1 {
		l, r = l/s, r/s
	}
	return l, r
}

func (d *driveImpl) write(c command, _ time.Time, force bool) error {
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

func buildServo(d *device, c *ServoConfig) error {
	sw, err := need[gpio.ServoWriter](d.board, "drive servos (gpio.ServoWriter)")
	if err != nil {
		return err
	}
	drv := gpio.NewServoDriver(sw, c.Pin, gpio.WithName(d.name))
	d.addDriver(drv, true)
	d.act = newUnionActuator(d, &servoImpl{drv: drv, cfg: c, last: -1})
	return nil
}

type servoImpl struct {
	drv  *gpio.ServoDriver
	cfg  *ServoConfig
	last int
}

func (s *servoImpl) safe() command { return command{a: *s.cfg.SafeAngle} }

func (s *servoImpl) clamp(c command) command {
	if math.IsNaN(c.a) {
		return s.safe()
	}
	return command{a: math.Min(math.Max(c.a, s.cfg.MinAngle), s.cfg.MaxAngle)}
}

func (s *servoImpl) write(c command, _ time.Time, force bool) error {
	a := int(math.Round(c.a))
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

func buildOutput(d *device, c *OutputConfig) error {
	dw, err := need[gpio.DigitalWriter](d.board, "do digital writes (gpio.DigitalWriter)")
	if err != nil {
		return err
	}
	impl := &levelImpl{safeLevel: c.Safe, last: -1, led: c.kind == KindLED}
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
		led := gpio.NewLedDriver(dw, c.Pin, gpio.WithName(d.name))
		impl.set, drv = physical(led.On, led.Off), led
	case KindRelay:
		opts := []interface{}{gpio.WithName(d.name)}
		if c.ActiveLow {
			opts = append(opts, gpio.WithRelayInverted())
		}
		relay := gpio.NewRelayDriver(dw, c.Pin, opts...)
		impl.set = func(level bool) error { // the driver inverts an active-low relay itself
			if level {
				return relay.On()
			}
			return relay.Off()
		}
		drv = relay
	case KindBuzzer:
		bz := gpio.NewBuzzerDriver(dw, c.Pin, gpio.WithName(d.name))
		impl.set, drv = physical(bz.On, bz.Off), bz
	case KindDigitalOut:
		pin := gpio.NewDirectPinDriver(d.board.adaptor, c.Pin, gpio.WithName(d.name))
		impl.set, drv = physical(pin.On, pin.Off), pin
	default:
		return fmt.Errorf("unknown output kind %q", c.kind)
	}
	d.addDriver(drv, true)
	d.act = newUnionActuator(d, impl)
	return nil
}

// levelImpl is an on/off output; an LED also blinks.
type levelImpl struct {
	safeLevel int
	led       bool
	set       func(level bool) error
	last      int // logical level last written; -1 unknown
}

func (l *levelImpl) safe() command {
	if l.led {
		return command{mode: uint8(l.safeLevel)} // ledOff or ledOn
	}
	return command{a: float64(l.safeLevel)}
}

func (l *levelImpl) clamp(c command) command {
	if l.led {
		if c.mode > ledBlink {
			c.mode = ledOff
		}
		c.b = math.Min(math.Max(c.b, minBlinkHz), maxBlinkHz)
		if math.IsNaN(c.b) {
			c.b = 1
		}
		return command{mode: c.mode, b: c.b, t0: c.t0}
	}
	if c.a != 0 && !math.IsNaN(c.a) {
		return command{a: 1}
	}
	return command{}
}

// level is the logical level of c at now: an LED blinking at hz is on for the first half of
// each period from t0.
func (l *levelImpl) level(c command, now time.Time) int {
	if !l.led {
		return int(c.a)
	}
	switch c.mode {
	case ledOn:
		return 1
	case ledBlink:
		half := int64(float64(time.Second) / (2 * c.b))
		if (now.UnixNano()-c.t0)/half%2 == 0 {
			return 1
		}
	}
	return 0
}

func (l *levelImpl) write(c command, now time.Time, force bool) error {
	lv := l.level(c, now)
	if !force && lv == l.last {
		return nil
	}
	if err := l.set(lv == 1); err != nil {
		l.last = -1
		return err
	}
	l.last = lv
	return nil
}

func buildPWMOut(d *device, c *PWMOutConfig) error {
	if _, err := need[gpio.PwmWriter](d.board, "do PWM (gpio.PwmWriter)"); err != nil {
		return err
	}
	drv := gpio.NewDirectPinDriver(d.board.adaptor, c.Pin, gpio.WithName(d.name))
	d.addDriver(drv, true)
	d.act = newUnionActuator(d, &pwmImpl{drv: drv, cfg: c, last: -1})
	return nil
}

type pwmImpl struct {
	drv  *gpio.DirectPinDriver
	cfg  *PWMOutConfig
	last int
}

func (p *pwmImpl) safe() command { return command{a: p.cfg.Safe} }

func (p *pwmImpl) clamp(c command) command {
	if math.IsNaN(c.a) {
		return p.safe()
	}
	return command{a: math.Min(math.Max(c.a, 0), p.cfg.MaxDuty)}
}

func (p *pwmImpl) write(c command, _ time.Time, force bool) error {
	v := int(math.Round(c.a * 255))
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
