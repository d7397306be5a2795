//go:build linux

package odometry

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/system"

	"github.com/botd-project/botd/drivers"
)

// build builds an odometry device: an encoder driver (when there are encoders) that puts edge
// handlers on the pins when it starts, and a sensor that integrates the pose at the configured
// rate. The drive and the gyro it reads are found once every device is built.
func build(b *drivers.Builder) error {
	c := b.Spec().(*Config)
	o := &device{cfg: c, name: b.Name(), now: b.Clock(), od: odometer{track: c.TrackWidth, gyroWeight: *c.GyroWeight}}
	for i := range o.stall {
		o.stall[i] = stallCheck{after: time.Duration(c.StallMs * float64(time.Millisecond)), duty: c.StallDuty}
		o.lastSign[i] = 1
	}
	if e := c.Encoders; e != nil {
		pp, err := drivers.Need[gobot.DigitalPinnerProvider](b, "give DigitalPin access with edge events (gobot.DigitalPinnerProvider) for wheel encoders")
		if err != nil {
			return err
		}
		o.wheels[0] = &wheelCounter{quad: e.Left.B != "", reverse: e.Left.Reverse}
		o.wheels[1] = &wheelCounter{quad: e.Right.B != "", reverse: e.Right.Reverse}
		for i, w := range o.wheels {
			o.metresPerCount[i] = 2 * math.Pi * c.WheelRadius / w.countsPerRev(e.TicksPerRev)
		}
		o.enc = &encoderDriver{name: b.Name() + ".encoders", board: b.Board(), pins: pp, cfg: e, wheels: o.wheels}
		b.AddDriver(o.enc, true)
		b.Ability(counter{o})
	}
	b.Detail(o.detail)
	b.Link(func() error { return o.link(b) })
	b.QuickSensor(c.SampleConfig, o.read) // counts, duties and the IMU's yaw from memory
	return nil
}

// device is one odometry device's state; read runs on its sensor's goroutine only.
type device struct {
	cfg   *Config
	name  string
	now   func() time.Time
	enc   *encoderDriver // nil: dead reckoning
	drive drivers.WheelDrive

	wheels         [2]*wheelCounter
	metresPerCount [2]float64
	stall          [2]stallCheck

	// the gyro's heading (yaw.Get), when there is a gyro
	yaw     drivers.SensorReading
	haveIMU bool

	od        odometer
	started   bool
	prev      time.Time
	prevCount [2]int64
	lastSign  [2]float64 // direction of a single-channel wheel while its motor is off
	prevYaw   float64
	prevYawTS int64
	haveYaw   bool
}

// link finds the drive's written duties and the gyro's heading once every device is built.
func (o *device) link(b *drivers.Builder) error {
	di, built, ok := drivers.Linked[drivers.WheelDrive](b, o.cfg.Drive)
	switch {
	case !built:
		return fmt.Errorf("drive %q is not built", o.cfg.Drive)
	case !ok:
		return fmt.Errorf("drive %q does not report its wheel duties", o.cfg.Drive)
	}
	o.drive = di
	o.haveIMU = false
	if o.cfg.IMU != "" && o.cfg.IMU != "none" {
		r, ok := b.SensorReading(o.cfg.yawKey)
		if !ok {
			return fmt.Errorf("imu %q is not built", o.cfg.IMU)
		}
		o.yaw, o.haveIMU = r, true
	}
	return nil
}

// gyro returns the gyro's integrated yaw and its sample time, if it has a sample no older than
// its stale time.
func (o *device) gyro(now time.Time) (yaw float64, ts int64, ok bool) {
	if !o.haveIMU {
		return 0, 0, false
	}
	return o.yaw.Get(now)
}

// counter is an odometry with encoders as the self-test sees it (drivers.WheelCounter).
type counter struct{ o *device }

func (c counter) CountedDrive() string { return c.o.cfg.Drive }
func (c counter) Counts() [2]int64     { return c.o.counts() }
func (c counter) Quadrature() [2]bool  { return [2]bool{c.o.wheels[0].quad, c.o.wheels[1].quad} }

// read integrates one sample and writes x, y, heading, quality and sigma.
func (o *device) read(now time.Time, vals []float64) error {
	duty := [2]float64{}
	duty[0], duty[1] = o.drive.Duties()
	var dist [2]float64
	moved := false
	if o.enc != nil {
		for i, w := range o.wheels {
			c, _ := w.read()
			delta := c - o.prevCount[i]
			o.prevCount[i] = c
			if !w.quad {
				if duty[i] != 0 {
					o.lastSign[i] = math.Copysign(1, duty[i])
				}
				delta *= int64(o.lastSign[i])
			}
			dist[i] = float64(delta) * o.metresPerCount[i]
			moved = moved || delta != 0
			if o.started {
				o.stall[i].update(sideNames[i], duty[i], delta != 0, now)
			}
		}
	} else if o.started {
		dt := now.Sub(o.prev).Seconds()
		for i := range dist {
			dist[i] = o.wheelSpeed(duty[i]) * dt
			moved = moved || dist[i] != 0
		}
	}
	yaw, yts, fresh := o.gyro(now)
	var dGyro, gyroDt float64
	if fresh && o.haveYaw && yts != o.prevYawTS {
		dGyro, gyroDt = drivers.WrapAngle(yaw-o.prevYaw), float64(yts-o.prevYawTS)/1e9
	}
	haveGyro := fresh && o.haveYaw
	if fresh {
		o.prevYaw, o.prevYawTS, o.haveYaw = yaw, yts, true
	} else {
		o.haveYaw = false // start the deltas again from the next fresh sample
	}
	src := srcCommanded
	switch {
	case o.enc != nil && haveGyro:
		src = srcEncodersGyro
	case o.enc != nil:
		src = srcEncoders
	case haveGyro:
		src = srcCommandedGyro
	}
	if o.started {
		still := !moved && duty[0] == 0 && duty[1] == 0
		o.od.step(dist[0], dist[1], dGyro, gyroDt, haveGyro, still, src)
	}
	o.started, o.prev = true, now
	for i := range o.stall {
		if o.stall[i].err != nil {
			return o.stall[i].err
		}
	}
	vals[0], vals[1], vals[2] = o.od.x, o.od.y, o.od.heading
	vals[3], vals[4] = src.quality, o.od.sigma
	return nil
}

// counts are the wheels' encoder counts so far (single channel: edges, unsigned).
func (o *device) counts() [2]int64 {
	var out [2]int64
	for i, w := range o.wheels {
		out[i], _ = w.read()
	}
	return out
}

// detail says what the encoders counted and what the heading is fused with.
func (o *device) detail() string {
	var parts []string
	if o.enc != nil {
		for i, w := range o.wheels {
			c, missed := w.read()
			kind := "quadrature"
			if !w.quad {
				kind = "single channel"
			}
			parts = append(parts, fmt.Sprintf("%s encoder %d counts (%s, %d missed edges)", sideNames[i], c, kind, missed))
		}
	} else {
		parts = append(parts, "dead reckoning from the drive's duties")
	}
	if o.haveIMU {
		if _, _, fresh := o.gyro(o.now()); fresh {
			parts = append(parts, "heading fused with imu "+o.cfg.IMU)
		} else {
			parts = append(parts, "imu "+o.cfg.IMU+" has no fresh sample: the wheels alone")
		}
	} else {
		parts = append(parts, "no IMU")
	}
	return strings.Join(parts, ", ")
}

// wheelSpeed is dead reckoning's calibration: a wheel does not turn below min_duty and runs
// linearly up to max_wheel_speed at full duty.
func (o *device) wheelSpeed(duty float64) float64 {
	m := o.cfg.MinDuty
	a := math.Abs(duty)
	if a <= m {
		return 0
	}
	return math.Copysign((a-m)/(1-m)*o.drive.MaxWheelSpeed(), duty)
}

// encoderDriver is the Gobot driver of a pair of wheel encoders: when it starts it opens the
// channels as inputs on the board's DigitalPin access, with the edge handlers that count, and
// reads their levels to seed the quadrature state.
type encoderDriver struct {
	name   string
	board  gobot.Adaptor
	pins   gobot.DigitalPinnerProvider
	cfg    *EncodersConfig
	wheels [2]*wheelCounter
}

var _ gobot.Driver = (*encoderDriver)(nil)

func (e *encoderDriver) Name() string                 { return e.name }
func (e *encoderDriver) SetName(n string)             { e.name = n }
func (e *encoderDriver) Connection() gobot.Connection { return e.board }

// Start opens the channels with edge events. (gobot's SetEventHandlerForEdge installs a
// handler only when the edge setting changes, so a pin must be fresh: the board is connected
// anew for every Start.)
func (e *encoderDriver) Start() error {
	for i, p := range [2]EncoderPins{e.cfg.Left, e.cfg.Right} {
		w := e.wheels[i]
		a, err := e.open(p.A, w, false)
		if err != nil {
			return fmt.Errorf("%s encoder A (pin %s): %w", sideNames[i], p.A, err)
		}
		if p.B == "" {
			continue
		}
		b, err := e.open(p.B, w, true)
		if err != nil {
			return fmt.Errorf("%s encoder B (pin %s): %w", sideNames[i], p.B, err)
		}
		la, err := a.Read()
		if err == nil {
			var lb int
			lb, err = b.Read()
			w.setLevels(la, lb)
		}
		if err != nil {
			return fmt.Errorf("%s encoder: reading the channels' levels: %w", sideNames[i], err)
		}
	}
	return nil
}

func (e *encoderDriver) open(id string, w *wheelCounter, chB bool) (gobot.DigitalPinner, error) {
	p, err := e.pins.DigitalPin(id)
	if err != nil {
		return nil, err
	}
	opts := []func(gobot.DigitalPinOptioner) bool{system.WithPinDirectionInput(),
		system.WithPinEventOnBothEdges(func(_ int, ts time.Duration, edge string, _, _ uint32) { w.edge(chB, edge, ts) })}
	if e.cfg.PullUp {
		opts = append(opts, system.WithPinPullUp())
	}
	if e.cfg.DebounceUs > 0 {
		opts = append(opts, system.WithPinDebounce(time.Duration(e.cfg.DebounceUs*float64(time.Microsecond))))
	}
	ap, ok := p.(gobot.DigitalPinOptionApplier)
	if !ok {
		return nil, errors.New("the board's digital pins take no options (no edge events)")
	}
	if err := ap.ApplyOptions(opts...); err != nil {
		return nil, err
	}
	return p, nil
}

// Halt does nothing: the handlers only count, and finalizing the board releases the pins and
// their edge events.
func (e *encoderDriver) Halt() error { return nil }
