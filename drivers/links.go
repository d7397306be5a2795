package drivers

import (
	"fmt"
	"strings"
	"time"
)

// Devices that read other devices: a kind whose device works from what another device does
// (a pose filter reading a drive's wheel duties and a gyro's heading) finds it by ability, never
// by kind. In the configuration, its Spec is a DeviceLinker resolving the references by the
// Spec abilities they need (Track, GyroSource); once every device is built, its Builder.Link
// finds the other device's run-time abilities with Linked and its sensor values with
// SensorReading.

// DeviceLinker is a Spec that refers to other devices of the configuration. Config.Validate
// calls LinkDevices once every device's section is validated: it resolves the references
// with LinkTo, checks them and fills in the defaults that depend on them.
type DeviceLinker interface {
	Spec
	LinkDevices(l *Links)
}

// Track is a Spec of a wheeled drive: Track is the distance between its wheels' contact
// lines, m.
type Track interface {
	Spec
	Track() float64
}

// GyroSource is a Spec whose device writes a heading integrated from a gyro: YawKey is its
// key (rad, counter-clockwise, integrated since start).
type GyroSource interface {
	Spec
	YawKey() string
}

// WheelDrive is a drive's run-time ability (on its actuator's implementation): the duties
// last written to its left and right wheels (-1..1, forward positive), safe to read from any
// goroutine, and a wheel's speed at full duty, m/s.
type WheelDrive interface {
	Duties() (left, right float64)
	MaxWheelSpeed() float64
}

// WheelCounter is the run-time ability of a device counting a drive's wheel encoders (a pose
// filter on encoders): the self-test checks the drive's pulses with it.
type WheelCounter interface {
	// CountedDrive is the name of the drive whose wheels it counts.
	CountedDrive() string
	// Counts are the wheels' counts so far (left, right; forward positive where Quadrature,
	// else edges whatever the direction).
	Counts() [2]int64
	// Quadrature says which wheels' encoders have two channels.
	Quadrature() [2]bool
}

// Links is what a DeviceLinker resolves its references with.
type Links struct {
	c      *Config
	v      *Validator
	path   string
	byName map[string]*DeviceConfig
}

// Validator is where the problems go.
func (l *Links) Validator() *Validator { return l.v }

// Path is the device's place in the configuration ("devices[2]").
func (l *Links) Path() string { return l.path }

// LinkTo resolves the reference *name, at field (".drive") of the device, to a device whose
// Spec is a T: the device named, or, when the name is left out, the only such device, which
// it then names (required: there must be one). what says what a T is in messages ("imu"). It
// returns false, reporting why, when the reference does not resolve.
func LinkTo[T Spec](l *Links, field string, name *string, what string, required bool) (T, bool) {
	var zero T
	path := l.path + field
	if *name == "" {
		var all []string
		for _, d := range l.c.Devices {
			if d == nil {
				continue
			}
			if _, ok := d.Spec.(T); ok {
				all = append(all, d.Name)
			}
		}
		switch {
		case len(all) == 1:
			*name = all[0]
		case len(all) > 1:
			l.v.Errorf(path, "there are several %s devices (%s): name one", what, strings.Join(all, ", "))
			return zero, false
		case required:
			l.v.Errorf(path, "needs a %s device, and the config has none", what)
			return zero, false
		default:
			return zero, false
		}
	}
	d, ok := l.byName[*name]
	if !ok {
		l.v.Errorf(path, "no device %q", *name)
		return zero, false
	}
	s, ok := d.Spec.(T)
	if !ok {
		l.v.Errorf(path, "%q is of kind %s, not %s", *name, d.Kind, what)
		return zero, false
	}
	return s, true
}

// checkLinks lets every DeviceLinker resolve and check its references.
func (c *Config) checkLinks(v *Validator) {
	byName := map[string]*DeviceConfig{}
	for _, d := range c.Devices {
		if d != nil && d.Name != "" {
			if _, dup := byName[d.Name]; !dup {
				byName[d.Name] = d
			}
		}
	}
	for i, d := range c.Devices {
		if d == nil || d.Spec == nil || d.Spec.Kind() != d.Kind {
			continue
		}
		if dl, ok := d.Spec.(DeviceLinker); ok {
			dl.LinkDevices(&Links{c: c, v: v, path: fmt.Sprintf("devices[%d]", i), byName: byName})
		}
	}
}

// Linked returns the ability T of the built device named name, as Abilities finds it (call it
// from the function given to Builder.Link, once every device is built). built is false when
// the robot has no such device.
func Linked[T any](b *Builder, name string) (a T, built, ok bool) {
	d, built := b.r.byName[name]
	if !built {
		return a, false, false
	}
	a, ok = abilityOf[T](d)
	return a, true, ok
}

// SensorReading is one sensor key of the robot as another device reads it, from its own
// goroutine (a pose filter reading its gyro's heading).
type SensorReading struct {
	t     *sampleTable
	i     int
	stale time.Duration
}

// SensorReading returns the reading of a key a sensor of the robot writes (call it from the
// function given to Builder.Link, once every device is built); false when none writes it.
func (b *Builder) SensorReading(key string) (SensorReading, bool) {
	t := &b.r.table
	i, ok := t.index[key]
	if !ok {
		return SensorReading{}, false
	}
	for _, s := range b.r.sensors {
		if i >= s.off && i < s.off+len(s.keys) {
			return SensorReading{t: t, i: i, stale: s.stale}, true
		}
	}
	return SensorReading{}, false
}

// Get returns the key's latest value and its sample time (time.UnixNano), and whether that
// sample is no older at now than its sensor's stale time.
func (s SensorReading) Get(now time.Time) (v float64, ts int64, fresh bool) {
	s.t.mu.Lock()
	v, ts, have := s.t.vals[s.i], s.t.ts[s.i], s.t.have[s.i]
	s.t.mu.Unlock()
	return v, ts, have && now.UnixNano()-ts <= int64(s.stale)
}
