package drivers

import (
	"context"
	"errors"
	"time"
)

// A device's optional abilities are small interfaces a kind gives it: on the value it sets
// with Builder.Ability, on its actuator's implementation or on one of its Gobot drivers. The
// core and the daemon find them by type assertion (Abilities), so neither names a kind.

// Settler is a device whose safe state takes effect in its own time (a vehicle's hold is
// acknowledged by its autopilot): Settle waits until it has, or until ctx ends. Robot.Settle
// waits for every Settler.
type Settler interface {
	Settle(ctx context.Context) error
}

// Failsafer is a device that carries out the runner's failsafe actions itself ("land",
// "return_home", "hold": a vehicle with an autopilot). Failsafe starts the action and returns
// without waiting for it. Robot.Failsafe calls every Failsafer.
type Failsafer interface {
	Failsafe(action string) error
}

// FenceGuard is a device that refuses a target its robot's geofence does not allow before it
// sends anything (a vehicle's Takeoff or GoTo). Robot.SetFence gives the fence to every
// FenceGuard.
type FenceGuard interface {
	SetFence(f *Fence)
}

// OwnDeadman is an ActuatorImpl with a deadman of its own (an autopilot flies its last goal
// and holds there, and its link-loss failsafe covers a daemon that is gone): the robot's
// deadman leaves it alone.
type OwnDeadman interface {
	OwnDeadman()
}

// Autopilot is a device flown by an autopilot of its own over a link (a PX4 or ArduPilot
// vehicle). The daemon holds its configured mission back until every Autopilot's link is up,
// and keeps a global geofence uploaded to each.
type Autopilot interface {
	// Name is the device's name.
	Name() string
	// LinkUp reports whether the autopilot is heard.
	LinkUp() bool
	// Reporting says whether the autopilot is heard and has reported its
	// position and its GPS state at least once: a mission started before
	// that finds its first position or GPS check without a value.
	Reporting() bool
	// KeepFenceUploaded uploads the keep-in polygon (latitude, longitude of each corner)
	// whenever the link comes up (checked every poll), reports each upload's outcome and
	// returns when ctx ends.
	KeepFenceUploaded(ctx context.Context, vertices [][2]float64, poll time.Duration, report func(error))
}

// Ability sets a value whose methods are the device's abilities (a vehicle's Settler,
// Failsafer, FenceGuard and Autopilot), found before those of its actuator and drivers.
func (b *Builder) Ability(a any) { b.d.ability = a }

// Abilities returns the robot's devices' abilities of type T (an interface), in
// configuration order, one per device at most.
func Abilities[T any](r *Robot) []T {
	var out []T
	for _, d := range r.devices {
		if a, ok := abilityOf[T](d); ok {
			out = append(out, a)
		}
	}
	return out
}

// abilityOf finds T on a device: the value set with Builder.Ability, its actuator's
// implementation or one of its Gobot drivers, whichever a kind chose to give the methods to.
func abilityOf[T any](d *device) (T, bool) {
	if a, ok := d.ability.(T); ok {
		return a, true
	}
	if d.act != nil {
		if a, ok := d.act.impl().(T); ok {
			return a, true
		}
	}
	for _, drv := range d.drivers {
		if a, ok := drv.(T); ok {
			return a, true
		}
	}
	var zero T
	return zero, false
}

// Failsafe carries out a runner failsafe action ("land", "return_home" or "hold") on every
// Failsafer of the robot. It waits for nothing; handled is false when the robot has none.
func (r *Robot) Failsafe(action string) (handled bool, err error) {
	var errs []error
	for _, f := range Abilities[Failsafer](r) {
		handled = true
		if err := f.Failsafe(action); err != nil {
			errs = append(errs, err)
		}
	}
	return handled, errors.Join(errs...)
}

// SetFence gives the geofence to every FenceGuard of the robot, which then refuses targets
// outside it before sending them. Call it before Start.
func (r *Robot) SetFence(f *Fence) {
	for _, g := range Abilities[FenceGuard](r) {
		g.SetFence(f)
	}
}
