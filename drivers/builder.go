package drivers

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"gobot.io/x/gobot/v2"

	"github.com/botd-project/botd/drivers/sim"
)

// Builder is how a kind's Build makes one device: it adds the device's Gobot drivers (started
// in the order added, halted in reverse), its actuator, its sensor, goroutines of its own and a
// link to the other devices, made once every device is built. A Builder is valid only during
// Build.
type Builder struct {
	r *Robot
	d *device
}

// Name is the device's name.
func (b *Builder) Name() string { return b.d.name }

// Spec is the device's section of the configuration (validated, defaults filled in).
func (b *Builder) Spec() Spec { return b.d.cfg.Spec }

// Board is the Gobot adaptor of the device's board (nil for a boardless kind).
func (b *Builder) Board() gobot.Adaptor {
	if b.d.board == nil {
		return nil
	}
	return b.d.board.adaptor
}

// SimBoard is the device's board when it is the simulator, else nil. A kind whose simulated
// part is reached other than through Gobot's pin and bus interfaces (a serial receiver: see
// sim.Adaptor.OpenSerial) opens it here; on real hardware it opens the real device.
func (b *Builder) SimBoard() *sim.Adaptor {
	if b.d.board == nil {
		return nil
	}
	return b.d.board.sim
}

// BoardKind is the kind of the device's board ("sim", "raspi", "firmata"; "" for none).
func (b *Builder) BoardKind() string {
	if b.d.board == nil {
		return ""
	}
	return b.d.board.cfg.Kind
}

// Need returns the device's board as the capability T a Gobot driver asks for, or an error
// naming what is missing (Gobot's constructors would panic instead).
func Need[T any](b *Builder, what string) (T, error) {
	var zero T
	if b.d.board == nil {
		return zero, fmt.Errorf("%s is wired to no board: it cannot %s", b.d.name, what)
	}
	return need[T](b.d.board, what)
}

// AddDriver adds a Gobot driver, started with the device. halt false skips its Halt on Close
// (a driver whose Halt would block or fail on a board already gone).
func (b *Builder) AddDriver(drv gobot.Driver, halt bool) { b.d.addDriver(drv, halt) }

// Sensor makes the device a sensor writing its Spec's Keys at s's rate: read fills vals, one
// per key (booleans as 0 or 1; NaN leaves that key alone), or returns ErrNoSample when nothing
// new arrived. It may block; it is never called by two goroutines at once.
func (b *Builder) Sensor(s SampleConfig, read func(now time.Time, vals []float64) error) {
	b.d.sens = newSensor(b.d, s, read)
}

// QuickSensor is Sensor for a read that does not wait (a pin, a register, memory): the sensor
// may share its board's sampling goroutine and timer with the board's other quick sensors.
func (b *Builder) QuickSensor(s SampleConfig, read func(now time.Time, vals []float64) error) {
	b.d.sens = newSensor(b.d, s, read)
	b.d.sens.quick = true
}

// TimedSensor is Sensor for values measured at a time of their own (a timestamped pose from
// outside the robot): read returns that time, or the zero time for now.
func (b *Builder) TimedSensor(s SampleConfig, read func(now time.Time, vals []float64) (time.Time, error)) {
	var sens *sensor
	sens = newSensor(b.d, s, func(now time.Time, vals []float64) error {
		at, err := read(now, vals)
		sens.at = at
		return err
	})
	b.d.sens = sens
}

// RobotName is the robot's name (Options.Name).
func (b *Builder) RobotName() string { return b.r.name }

// Detail sets what the self-test says about the device beyond its values.
func (b *Builder) Detail(f func() string) { b.d.detail = f }

// Go adds a goroutine of the device's own (a serial reader), started with the sensors and
// stopped (stop closed, or ctx done) before the drivers halt. It must return then.
func (b *Builder) Go(run func(ctx context.Context, stop <-chan struct{})) { b.d.run = run }

// Link sets what Build runs once every device is built (a device finds the devices it reads:
// see Linked and Builder.SensorReading).
func (b *Builder) Link(f func() error) { b.d.link = f }

// Now is the robot's clock.
func (b *Builder) Now() time.Time { return b.r.now() }

// Logger is the robot's logger.
func (b *Builder) Logger() *slog.Logger { return b.r.log }

// Options are the robot's build options. A kind that needs a goroutine of its own refuses
// Options.Sync (the caller samples, and no goroutine runs) with an error from Build.
func (b *Builder) Options() Options { return b.r.opts }

// ErrNoSample is what a sensor's read returns when nothing new arrived since its last read
// (not a failure: the sensor's values keep their age).
var ErrNoSample = errNoSample

// need returns the board's adaptor as the capability T a Gobot driver asks for, or an error
// naming what is missing (Gobot's constructors would panic instead).
func need[T any](b *board, what string) (T, error) {
	v, ok := b.adaptor.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("board %q (%s) cannot %s", b.name, b.cfg.Kind, what)
	}
	return v, nil
}
