package drivers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"gobot.io/x/gobot/v2"

	"github.com/botd-project/botd/drivers/sim"
)

// Options configure Build.
type Options struct {
	// World is where a sim board's robot lives; Build adds a robot named Name to it.
	World *sim.World
	// Name is the robot's name (in the sim world, logs and faults); default "robot".
	Name string
	// Now is the clock sensor samples, faults and LED blinking read (default time.Now). In
	// virtual time it returns the virtual time.
	Now func() time.Time
	// Sync: sensors are sampled by the caller through Robot.Sample, and the Robot starts no
	// goroutine of its own (for virtual time). Otherwise sampling goroutines read the sensors
	// at their rates from Start to Close: one per board for its quick sensors, one for each
	// sensor whose read may wait.
	Sync bool
	// WorldStep, if set (and not Sync), makes the robot step World on the real clock from
	// Start to Close: on the goroutine that samples its sim board, before each of its reads
	// and at least every WorldStep. Otherwise the caller steps the world.
	WorldStep time.Duration
	// Logger receives device events (default slog.Default()).
	Logger *slog.Logger
	// Events, if set, receives the devices' events (an external pose refused). It is called
	// from the devices' goroutines and must not block.
	Events func(Event)
	// MQTT connects a device that reads a topic (a pose over MQTT): broker is the device's
	// broker URL, "" for the daemon's; clientID is the client id to use. Without it such a
	// device fails to start.
	MQTT func(broker, clientID string) (Subscriber, error)
	// NewBoard, if set, makes the Gobot adaptor of every board but a sim board in place of
	// the real one (tests: a Pi made of gobot's adaptor parts on its mock system access, or a
	// bare adaptor for a device that opens its own port).
	NewBoard func(name string, a *AdaptorConfig) (gobot.Adaptor, error)
}

// Device is one configured device and the Gobot drivers it is built on.
type Device interface {
	Name() string
	Kind() string
	// Keys are the blackboard keys a sensor writes (nil for an actuator).
	Keys() []string
	// Drivers are the device's Gobot drivers, in start order.
	Drivers() []gobot.Driver
	// Adaptor is the board the device is wired to (nil for none).
	Adaptor() gobot.Adaptor
}

// Robot is a configured robot: its boards, its devices, the safety envelope between leaves and
// drivers, and the latest sensor samples. Build it, Start it, tick with Bind/Snapshot and
// Apply, and Close it.
type Robot struct {
	name string
	cfg  *Config
	opts Options
	log  *slog.Logger
	now  func() time.Time

	boards  []*board
	devices []*device
	byName  map[string]*device
	sensors []*sensor
	env     envelope
	table   sampleTable
	sim     *sim.Robot
	// layout is the robot's actuators (env.acts), kinds and names in order: device leaves
	// compiled for a config with the same actuators reach theirs by index (actuatorRef).
	layout actuatorLayout

	mu          sync.Mutex // lifecycle
	state       atomic.Int32
	stop        chan struct{}
	dmChanged   chan struct{} // SetDeadman wakes the deadman's goroutine
	wg          sync.WaitGroup
	startFaults []Fault // guarded by mu
}

const (
	stateBuilt int32 = iota
	stateStarted
	stateFailed // Start returned an error: only Close remains
	stateClosed
)

// board is one Gobot adaptor.
type board struct {
	name      string
	cfg       *AdaptorConfig
	adaptor   gobot.Adaptor
	sim       *sim.Adaptor // for a sim board
	connected bool
}

// device is one configured device.
type device struct {
	name, kind string
	path       string // "devices[3]": where the config says it
	cfg        *DeviceConfig
	board      *board
	drivers    []gobot.Driver
	started    []bool
	noHalt     []bool // drivers whose Halt is skipped (see addDriver)
	act        *actuator
	sens       *sensor
	// ability, if set, holds the device's optional abilities (Builder.Ability).
	ability any
	// link, if set, is run by Build once every device is built (a device finds the devices
	// it reads).
	link func() error
	// detail, if set, says more about the device than its values (counts, refusals).
	detail func() string
	// run, if set, is a goroutine of the device's own (reading a serial port), started with
	// the sampling goroutines and stopped before the drivers halt.
	run func(ctx context.Context, stop <-chan struct{})
}

func (d *device) Name() string            { return d.name }
func (d *device) Kind() string            { return d.kind }
func (d *device) Drivers() []gobot.Driver { return append([]gobot.Driver(nil), d.drivers...) }

// Adaptor is the device's board, nil for a device wired to none (a pose over MQTT).
func (d *device) Adaptor() gobot.Adaptor {
	if d.board == nil {
		return nil
	}
	return d.board.adaptor
}

func (d *device) Keys() []string {
	if d.sens == nil {
		return nil
	}
	out := make([]string, len(d.sens.keys))
	for i, k := range d.sens.keys {
		out[i] = k.Name
	}
	return out
}

// addDriver appends a Gobot driver to start with the device. halt false skips its Halt on
// Close (a driver whose Halt would fail on a board already released).
func (d *device) addDriver(drv gobot.Driver, halt bool) {
	d.drivers = append(d.drivers, drv)
	d.started = append(d.started, false)
	d.noHalt = append(d.noHalt, !halt)
}

func newRobot(cfg *Config, opts Options) *Robot {
	if opts.Name == "" {
		opts.Name = "robot"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := &Robot{name: opts.Name, cfg: cfg, opts: opts, now: opts.Now, byName: map[string]*device{}, dmChanged: make(chan struct{}, 1)}
	r.log = opts.Logger.With("robot", opts.Name)
	r.env.log, r.env.now = r.log, r.now
	r.env.dm.base = r.now()
	return r
}

// addDevice registers a built device.
func (r *Robot) addDevice(d *device) {
	r.devices = append(r.devices, d)
	r.byName[d.name] = d
	if d.act != nil {
		d.act.env = &r.env
		d.act.toSafe()
		r.env.acts = append(r.env.acts, d.act)
	}
	if d.sens != nil {
		r.table.add(d.sens)
		r.sensors = append(r.sensors, d.sens)
	}
}

// sealActuators records the robot's actuators once they are all built.
func (r *Robot) sealActuators() {
	r.layout = layoutOf(r.env.acts, func(a *actuator) (string, string) { return a.dev.kind, a.dev.name })
}

// Name is the robot's name.
func (r *Robot) Name() string { return r.name }

// Config is the configuration the robot was built from.
func (r *Robot) Config() *Config { return r.cfg }

// Devices returns the devices in configuration order.
func (r *Robot) Devices() []Device {
	out := make([]Device, len(r.devices))
	for i, d := range r.devices {
		out[i] = d
	}
	return out
}

// Device returns the device with that name.
func (r *Robot) Device(name string) (Device, bool) {
	d, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return d, true
}

// Adaptor returns a board's Gobot adaptor (*sim.Adaptor for a sim board).
func (r *Robot) Adaptor(name string) (gobot.Adaptor, bool) {
	for _, b := range r.boards {
		if b.name == name {
			return b.adaptor, true
		}
	}
	return nil, false
}

// SimRobot is the robot in the sim world that the sim board drives, or nil.
func (r *Robot) SimRobot() *sim.Robot { return r.sim }

// Start connects the boards, starts every actuator's drivers and puts the actuator in its safe
// state at once, then starts the sensors and, unless Options.Sync, their sampling goroutines
// (which end at Close or when ctx ends; see Options.WorldStep). After an error only Close is left to do. An error
// names the board (adaptors.<name>) or device (devices[i]) of the configuration that failed.
func (r *Robot) Start(ctx context.Context) error {
	_, err := r.start(ctx, false)
	return err
}

// start is Start; tolerant, it goes on past a board or device that fails (the self-test):
// their devices are left out (not ready, not sampled) and returned with their errors.
func (r *Robot) start(ctx context.Context, tolerant bool) (map[*device]error, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch r.state.Load() {
	case stateClosed:
		return nil, ErrClosed
	case stateStarted, stateFailed:
		return nil, errors.New("drivers: Start called twice")
	}
	r.state.Store(stateFailed) // until everything worked
	failed := map[*device]error{}
	lost := map[*board]error{}
	for _, b := range r.boards {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := guard(b.adaptor.Connect); err != nil {
			r.startFault(b.name, err)
			err = fmt.Errorf("drivers: adaptors.%s (board %q): connect: %w", b.name, b.name, err)
			if !tolerant {
				return nil, err
			}
			lost[b] = err
			continue
		}
		b.connected = true
	}
	// begin starts a device's drivers; false: it failed (tolerant) and is left out.
	begin := func(d *device) (bool, error) {
		if err := lost[d.board]; d.board != nil && err != nil {
			failed[d] = err
			return false, nil
		}
		if err := r.startDrivers(d); err != nil {
			failed[d] = err
			return false, err
		}
		return true, nil
	}
	// Actuators first: the robot is safe before any sensor or goroutine starts.
	for _, d := range r.devices {
		if d.act == nil {
			continue
		}
		ok, err := begin(d)
		if !ok {
			if !tolerant {
				return nil, err
			}
			continue
		}
		r.env.setReady(d.act, true)
		if err := r.env.forceSafe(d.act); err != nil {
			r.startFault(d.name, err)
			err = fmt.Errorf("drivers: %s (%s %q): safe state: %w", d.path, d.kind, d.name, err)
			if !tolerant {
				return nil, err
			}
			failed[d] = err
		}
	}
	for _, d := range r.devices {
		if d.sens == nil {
			continue
		}
		if d.act != nil { // both (a vehicle): its drivers started with the actuators
			if failed[d] != nil {
				d.sens.left = true
			}
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if d.act != nil { // a device that is both (a drone): its drivers started above
			if failed[d] != nil {
				d.sens.left = true
			}
			continue
		}
		ok, err := begin(d)
		if !ok {
			if !tolerant {
				return nil, err
			}
			d.sens.left = true
		}
	}
	now := r.now()
	r.table.mu.Lock()
	for _, s := range r.sensors {
		if !s.left {
			s.started = now
			s.counted = true
			r.table.pending++
		}
	}
	if r.table.pending == 0 {
		close(r.table.firstCh())
	}
	r.table.mu.Unlock()
	if !r.opts.Sync {
		r.stop = make(chan struct{})
		r.startDeadman()
		for _, d := range r.devices {
			if d.run != nil && failed[d] == nil {
				r.wg.Add(1)
				go func() {
					defer r.wg.Done()
					d.run(ctx, r.stop)
				}()
			}
		}
		for _, p := range r.samplers() {
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				p.run(ctx, r.stop, &r.table, r.now, r.log)
			}()
		}
	}
	r.state.Store(stateStarted)
	r.log.Info("robot started", "devices", len(r.devices)-len(failed), "failed", len(failed), "sync", r.opts.Sync)
	return failed, nil
}

func (r *Robot) startDrivers(d *device) error {
	for i, drv := range d.drivers {
		if err := guard(drv.Start); err != nil {
			err = fmt.Errorf("drivers: %s (%s %q): start %s: %w", d.path, d.kind, d.name, drv.Name(), err)
			r.startFault(d.name, err)
			return err
		}
		d.started[i] = true
	}
	return nil
}

func (r *Robot) startFault(dev string, err error) {
	r.startFaults = append(r.startFaults, Fault{Device: dev, Code: FaultDriverError, Message: err.Error(), Since: r.now()})
}

// closeSettle bounds how long Close waits for the safe state to be confirmed (Settle).
const closeSettle = 5 * time.Second

// Close stops the sampling goroutines and waits for them, puts every actuator in its safe
// state, halts the drivers that started and finalizes the boards that connected. It works after
// a failed Build or Start and is idempotent; only the first call can return an error.
func (r *Robot) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state.Load() == stateClosed {
		return nil
	}
	r.state.Store(stateClosed)
	if r.stop != nil {
		close(r.stop)
		r.wg.Wait()
	}
	var errs []error
	if err := r.env.safeAll(); err != nil {
		errs = append(errs, err)
	}
	// Safe state first, then close: the drivers (a vehicle's link) stay up until the safe
	// state has reached them.
	ctx, cancel := context.WithTimeout(context.Background(), closeSettle)
	if err := r.Settle(ctx); err != nil {
		errs = append(errs, err)
	}
	cancel()
	for _, act := range r.env.acts {
		r.env.setReady(act, false)
	}
	for i := len(r.devices) - 1; i >= 0; i-- {
		d := r.devices[i]
		for j := len(d.drivers) - 1; j >= 0; j-- {
			if !d.started[j] {
				continue
			}
			d.started[j] = false
			if d.noHalt[j] {
				continue
			}
			if err := guard(d.drivers[j].Halt); err != nil {
				errs = append(errs, fmt.Errorf("drivers: %s (%s %q): halt: %w", d.path, d.kind, d.name, err))
			}
		}
	}
	for i := len(r.boards) - 1; i >= 0; i-- {
		b := r.boards[i]
		if !b.connected {
			continue
		}
		b.connected = false
		if err := guard(b.adaptor.Finalize); err != nil {
			errs = append(errs, fmt.Errorf("drivers: board %q: finalize: %w", b.name, err))
		}
	}
	r.log.Info("robot closed")
	return errors.Join(errs...)
}

// Apply writes the actuator commands that changed since the last Apply to the Gobot drivers
// (call it after each tick). A driver error is returned, reported as a DRIVER_ERROR fault and
// makes the owning leaf return ERROR on its next tick.
func (r *Robot) Apply() error {
	switch r.state.Load() {
	case stateStarted:
		return r.env.apply()
	case stateClosed:
		return ErrClosed
	}
	return ErrNotStarted
}

// EStop forces every actuator to its safe state at once and refuses every command until
// ReleaseEStop. It may be called from any goroutine, before Start and after Close too.
func (r *Robot) EStop(reason string) error {
	r.log.Warn("e-stop", "reason", reason)
	return r.env.eStop(reason)
}

// ReleaseEStop lets commands through again; actuators stay in their safe state until
// commanded.
func (r *Robot) ReleaseEStop() {
	r.log.Info("e-stop released")
	r.env.releaseEStop()
}

// EStopped reports whether the e-stop is engaged, and why.
func (r *Robot) EStopped() (bool, string) { return r.env.estopped() }

// Safe puts every actuator in its safe state now and forgets all commands and owners (mission
// end, abort). Unlike EStop it leaves commands allowed.
func (r *Robot) Safe() error { return r.env.safeAll() }

// Settle waits until the safe state has reached the devices that take it in their own time
// (every Settler: a vehicle's hold is acknowledged by its autopilot). The daemon calls it at
// shutdown, after Safe and before it says the actuators are safe and closes the robot (which
// stops the links). It gives up when ctx ends.
func (r *Robot) Settle(ctx context.Context) error {
	var errs []error
	for _, s := range Abilities[Settler](r) {
		if err := s.Settle(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Sample reads, on the caller's goroutine, every sensor that is due at now (sync mode only; in
// async mode the sensors' goroutines sample and Sample does nothing). Call it from the goroutine
// that ticks and closes the robot.
func (r *Robot) Sample(now time.Time) {
	if !r.opts.Sync || r.state.Load() != stateStarted {
		return
	}
	for _, s := range r.sensors {
		if !s.left && s.due(now) {
			s.sample(&r.table, now, r.log)
		}
	}
}

// Faults returns the device problems that last: sensors that fail or went stale, actuators
// whose writes fail, drivers that did not start.
func (r *Robot) Faults() []Fault {
	now := r.now()
	r.mu.Lock()
	out := append([]Fault(nil), r.startFaults...)
	r.mu.Unlock()
	out = append(out, r.env.faults()...)
	r.table.mu.Lock()
	defer r.table.mu.Unlock()
	for _, s := range r.sensors {
		if f, ok := s.fault(now); ok {
			out = append(out, f)
		}
	}
	return out
}
