package sim

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Adaptor is a Gobot adaptor (the "board") wired to one simulated Robot. It has the method set
// of a Raspberry Pi adaptor that the Gobot gpio, aio and i2c drivers use, so the same drivers
// run on it unchanged. One Adaptor per robot.
//
// Pins mapped in the robot's PinMap drive the robot; any other pin is free and its writes are
// recorded (PinValue, ServoAngle). Reads of a pin that is neither mapped nor written fail with
// ErrUnknownPin. Every operation fails with ErrNotConnected before Connect and after Finalize.
//
// Connect starts the one goroutine the adaptor owns (it fires the HC-SR04 echo edges);
// Finalize stops it, waits for it and stops the motors. GetI2cConnection (i2c.Connector) is
// Linux-only, like Gobot's i2c package itself.
type Adaptor struct {
	robot  *Robot
	roles  map[string]pinRole        // immutable after NewAdaptor
	encIDs [roleRightEncB + 1]string // the encoder pins' ids by role ("" when not wired); immutable
	paired [2]bool                   // the motor uses a forward/backward pin pair
	now    func() time.Time          // wall clock, only to drop echoes the driver stopped waiting for

	mu        sync.Mutex
	name      string
	connected bool
	values    map[string]int  // last value written per pin: 0/1 digital, 0-255 PWM
	servos    map[string]byte // last servo angle per pin
	motors    [2]motorPins
	pins      map[string]*simPin
	echo      *echoer // running while connected
}

type motorPins struct {
	speed    byte // 0-255
	dir      byte // direction pin level; 1 = forward
	fwd, bwd byte // forward/backward pair levels
}

// Option configures an Adaptor.
type Option func(*Adaptor)

// WithName sets the adaptor's name (default "sim-" + the robot's name).
func WithName(name string) Option { return func(a *Adaptor) { a.name = name } }

// NewAdaptor returns a board for robot. It panics if robot is nil.
func NewAdaptor(robot *Robot, opts ...Option) *Adaptor {
	if robot == nil {
		panic("sim: NewAdaptor with a nil robot")
	}
	a := &Adaptor{
		robot:  robot,
		roles:  map[string]pinRole{},
		now:    time.Now,
		name:   "sim-" + robot.Name(),
		values: map[string]int{},
		servos: map[string]byte{},
		pins:   map[string]*simPin{},
	}
	for _, p := range robot.cfg.Pins.roles() {
		a.roles[p.pin] = p.role
		if _, _, ok := p.role.encoder(); ok {
			a.encIDs[p.role] = p.pin
		}
	}
	a.paired = [2]bool{robot.cfg.Pins.LeftForward != "", robot.cfg.Pins.RightForward != ""}
	a.resetMotors()
	for _, o := range opts {
		o(a)
	}
	return a
}

// Robot is the robot this board drives.
func (a *Adaptor) Robot() *Robot { return a.robot }

// Name implements gobot.Adaptor.
func (a *Adaptor) Name() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.name
}

// SetName implements gobot.Adaptor.
func (a *Adaptor) SetName(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.name = name
}

// Connect implements gobot.Adaptor: it powers the board up (motors stopped) and starts the echo
// goroutine. Connecting twice is a no-op.
func (a *Adaptor) Connect() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.connected {
		return nil
	}
	a.resetMotors()
	a.echo = newEchoer()
	go a.runEcho(a.echo)
	a.connected = true
	a.robot.setEdgeListener(a.deliverEdges)
	return nil
}

// Finalize implements gobot.Adaptor: it stops the motors, releases the pins (edge handlers are
// dropped), stops the echo goroutine and waits for it. It returns an error only if the goroutine
// is stuck inside a driver's edge handler (a driver bug; see echoer).
func (a *Adaptor) Finalize() error {
	a.mu.Lock()
	if !a.connected {
		a.mu.Unlock()
		return nil
	}
	a.connected = false
	a.robot.setEdgeListener(nil)
	e := a.echo
	a.echo = nil
	pins := a.pins
	a.pins = map[string]*simPin{}
	a.resetMotors()
	a.mu.Unlock()
	for _, p := range pins {
		_ = p.Unexport() // drivers must be started again after a new Connect, as on a Pi
	}
	return e.stopAndWait(finalizeWait)
}

// resetMotors stops both wheels; the caller holds a.mu (or owns a).
func (a *Adaptor) resetMotors() {
	for side := range a.motors {
		a.motors[side] = motorPins{dir: 1}
		a.robot.setDuty(side, 0)
	}
}

// DigitalWrite implements gpio.DigitalWriter. Any non-zero value is high.
func (a *Adaptor) DigitalWrite(pin string, val byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.checkConnected("digital write", pin); err != nil {
		return err
	}
	return a.writeDigitalLocked(pin, val, true)
}

func (a *Adaptor) writeDigitalLocked(pin string, val byte, checkFault bool) error {
	level := byte(0)
	if val != 0 {
		level = 1
	}
	role := a.roles[pin]
	switch role {
	case roleSonarEcho, roleBattery, roleBump, roleSonarPan, roleLeftEncA, roleLeftEncB, roleRightEncA, roleRightEncB:
		return fmt.Errorf("sim: digital write to pin %q (%s): %w", pin, role, ErrPinMode)
	case roleSonarTrigger:
		if checkFault {
			if err := a.robot.sonarFault(); err != nil {
				return err
			}
		}
		if a.values[pin] == 1 && level == 0 {
			a.ping()
		}
	case roleLeftSpeed, roleRightSpeed: // MotorDriver's digital mode: on = full speed
		a.motors[role.side()].speed = 255 * level
	case roleLeftDir, roleRightDir:
		a.motors[role.side()].dir = level
	case roleLeftForward, roleRightForward:
		a.motors[role.side()].fwd = level
	case roleLeftBackward, roleRightBackward:
		a.motors[role.side()].bwd = level
	}
	a.values[pin] = int(level)
	if s := role.side(); s >= 0 {
		a.updateMotor(s)
	}
	return nil
}

// DigitalRead implements gpio.DigitalReader: the bump switch (1 while touching), the echo line
// (idle low), or the level last written to a free or output pin.
func (a *Adaptor) DigitalRead(pin string) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.checkConnected("digital read", pin); err != nil {
		return 0, err
	}
	switch role := a.roles[pin]; role {
	case roleBump:
		return a.robot.bumpSwitch()
	case roleSonarEcho:
		return 0, nil
	case roleLeftEncA, roleLeftEncB, roleRightEncA, roleRightEncB:
		a.robot.w.mu.Lock()
		defer a.robot.w.mu.Unlock()
		return a.robot.encoderLevel(role)
	case roleBattery, roleSonarPan:
		return 0, fmt.Errorf("sim: digital read of pin %q (%s): %w", pin, role, ErrPinMode)
	}
	v, ok := a.values[pin]
	if !ok {
		return 0, fmt.Errorf("sim: digital read of pin %q: %w", pin, ErrUnknownPin)
	}
	if v != 0 {
		return 1, nil
	}
	return 0, nil
}

// PwmWrite implements gpio.PwmWriter: motor speed pins set the wheel duty (val/255), free pins
// record the value (LED brightness, buzzer).
func (a *Adaptor) PwmWrite(pin string, val byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.checkConnected("pwm write", pin); err != nil {
		return err
	}
	switch role := a.roles[pin]; role {
	case roleNone:
	case roleLeftSpeed, roleRightSpeed:
		a.motors[role.side()].speed = val
		a.updateMotor(role.side())
	default:
		return fmt.Errorf("sim: pwm write to pin %q (%s): %w", pin, role, ErrPinMode)
	}
	a.values[pin] = int(val)
	return nil
}

// ServoWrite implements gpio.ServoWriter: the sonar pan servo turns the sonar ((angle-90)°,
// counter-clockwise), free pins record the angle.
func (a *Adaptor) ServoWrite(pin string, angle byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.checkConnected("servo write", pin); err != nil {
		return err
	}
	if angle > 180 {
		return fmt.Errorf("sim: servo write to pin %q: angle %d is above 180", pin, angle)
	}
	switch role := a.roles[pin]; role {
	case roleNone:
	case roleSonarPan:
		a.robot.setPan((float64(angle) - 90) * math.Pi / 180)
	default:
		return fmt.Errorf("sim: servo write to pin %q (%s): %w", pin, role, ErrPinMode)
	}
	a.servos[pin] = angle
	return nil
}

// AnalogRead implements aio.AnalogReader: the battery sense pin gives 12-bit counts, volts /
// ADCFullScale * 4095 (see BatteryConfig for the scaler).
func (a *Adaptor) AnalogRead(pin string) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.checkConnected("analog read", pin); err != nil {
		return 0, err
	}
	if a.roles[pin] != roleBattery {
		return 0, fmt.Errorf("sim: analog read of pin %q (not an analog input): %w", pin, ErrUnknownPin)
	}
	return a.robot.batteryCounts()
}

// PinValue is the last value written to pin by DigitalWrite (0/1) or PwmWrite (0-255), mapped or
// free; ok is false if nothing was written since NewAdaptor.
func (a *Adaptor) PinValue(pin string) (val int, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	val, ok = a.values[pin]
	return val, ok
}

// ServoAngle is the last angle written to pin by ServoWrite; ok is false if none was.
func (a *Adaptor) ServoAngle(pin string) (angle byte, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	angle, ok = a.servos[pin]
	return angle, ok
}

// DefaultI2cBus implements i2c.Connector: the bus the robot's IMU is on (default 1).
func (a *Adaptor) DefaultI2cBus() int { return a.robot.cfg.IMU.Bus }

func (a *Adaptor) checkConnected(op, pin string) error {
	if !a.connected {
		return fmt.Errorf("sim: %s %s pin %q: %w", a.name, op, pin, ErrNotConnected)
	}
	return nil
}

// updateMotor turns the motor's pin levels into the wheel duty; the caller holds a.mu.
func (a *Adaptor) updateMotor(side int) {
	m := a.motors[side]
	sign := 1.0
	switch {
	case a.paired[side]:
		sign = float64(m.fwd) - float64(m.bwd) // both low ("none") or both high (brake): stopped
	case m.dir == 0:
		sign = -1
	}
	a.robot.setDuty(side, sign*float64(m.speed)/255)
}

// deliverEdges calls the encoder pins' edge handlers for the edges of one step, in order, on
// the stepping goroutine and with no lock held (World.Step calls it).
func (a *Adaptor) deliverEdges(edges []encEdge) {
	var pins [roleRightEncB + 1]*simPin
	a.mu.Lock()
	if !a.connected {
		a.mu.Unlock()
		return
	}
	for role, id := range a.encIDs {
		if id != "" {
			pins[role] = a.pins[id]
		}
	}
	a.mu.Unlock()
	for _, e := range edges {
		p := pins[e.role]
		if p == nil {
			continue
		}
		h, mask, _ := p.edgeHandler()
		name, bit := edgeRisingName, edgeRising
		if e.level == 0 {
			name, bit = edgeFallingName, edgeFalling
		}
		if h == nil || mask&bit == 0 {
			continue
		}
		seq := p.nextSeq(bit)
		h(e.line, e.at, name, seq, seq)
	}
}
