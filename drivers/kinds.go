package drivers

import (
	"slices"

	"github.com/botd-project/botd/bt"
)

// The seam between the drivers core and the device families: a family describes each of its
// kinds with a KindInfo and adds it to a Registry; the core decodes, validates, builds and
// registers leaves through the Registry alone and names no kind.
//
// Lifecycle of a kind's device: ParseConfig decodes its section into the Spec that New returns,
// Validate calls Spec.Defaults and Spec.Validate and checks Spec.Pins and Spec.Keys against the
// board and the other devices; Build calls KindInfo.Build with a Builder, through which the kind
// adds its Gobot drivers, its actuator, its sensor and its goroutines; Robot.Start starts them
// (actuators first, each put in its safe state), Robot.Close stops them in reverse order.
// Register adds every registered kind's leaves (KindInfo.Leaves) to a bt.Registry, whether or
// not the config has a device of the kind.

// KindInfo describes a device kind.
type KindInfo struct {
	// Name is the kind's name in the configuration (a device section's kind field).
	Name string
	// Doc is one line saying what the kind is, for catalogs.
	Doc string
	// Actuator: the kind's devices take commands (they are in the robot's actuator layout).
	Actuator bool
	// Boardless: the kind is wired to no board (a drone over Wi-Fi, a pose over MQTT).
	Boardless bool
	// New returns an empty section for the decoder to fill.
	New func() Spec
	// Build makes a device of the kind (Linux only: on other systems Build is never called).
	Build func(b *Builder) error
	// Leaves returns the kind's behavior-tree leaves, given what the config says (Leaves.Config
	// is nil for a catalog). Several kinds may share one leaves function: Register adds each
	// node type once.
	Leaves func(k *LeafKit) []bt.NodeType
}

// Registry is the set of device kinds a program knows. The zero value is not usable: make one
// with NewRegistry.
type Registry struct {
	kinds map[string]*KindInfo
	names []string // sorted
}

// NewRegistry returns a registry holding kinds.
func NewRegistry(kinds ...KindInfo) *Registry {
	r := &Registry{kinds: map[string]*KindInfo{}}
	for _, k := range kinds {
		r.Add(k)
	}
	return r
}

// Add registers a kind. It panics on a kind without a name or a New function, and on a name
// registered already: two families claiming one kind is a programming error.
func (r *Registry) Add(k KindInfo) {
	switch {
	case k.Name == "":
		panic("drivers: Registry.Add: a kind without a name")
	case k.New == nil:
		panic("drivers: Registry.Add: kind " + k.Name + " has no New")
	case r.kinds[k.Name] != nil:
		panic("drivers: Registry.Add: kind " + k.Name + " registered twice")
	}
	r.kinds[k.Name] = &k
	i, _ := slices.BinarySearch(r.names, k.Name)
	r.names = slices.Insert(r.names, i, k.Name)
}

// Kind returns a registered kind.
func (r *Registry) Kind(name string) (KindInfo, bool) {
	if r == nil {
		return KindInfo{}, false
	}
	k, ok := r.kinds[name]
	if !ok {
		return KindInfo{}, false
	}
	return *k, true
}

// Names returns the registered kinds' names, sorted.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.names)
}

// Spec is a device kind's own section of the configuration.
type Spec interface {
	// Kind is the kind's name in the configuration (KindInfo.Name).
	Kind() string
	// Defaults fills in the zero fields for a board of the given kind ("" for none).
	Defaults(board string)
	// Validate reports the section's problems under path ("devices[2]").
	Validate(v *Validator, path string)
	// Pins lists the board pins and i2c addresses the device uses.
	Pins() []Pin
	// Keys are the blackboard keys a sensor writes (nil for an actuator); name is the
	// device's name.
	Keys(name string) []Key
}

// Key is one value a sensor writes to the blackboard.
type Key struct {
	Name string
	Bool bool // written as a boolean rather than a number
}

// PoseSource is a Spec whose device writes a pose (KEY.x, KEY.y, KEY.heading, ...): the
// drive leaves read the pose of one, the geofence watches one.
type PoseSource interface {
	Spec
	// PoseKey is the key prefix of the pose, "" when the device writes none.
	PoseKey() string
}

// ModeNamer is a Spec whose device writes a mode number (a vehicle's KEY.mode): ModeNames
// names the numbers, by number. The daemon gives them to ground stations in its factsheet.
type ModeNamer interface {
	Spec
	ModeNames() []string
}

// PoseKeys are what every pose source writes under its key: the pose and how good it is.
var PoseKeys = [...]string{"x", "y", "heading", "quality", "sigma"}

// PinMode is what a device does with a pin; boards check that they can do it on that pin.
type PinMode uint8

const (
	PinOut     PinMode = iota // digital output (DigitalWrite)
	PinIn                     // digital input (DigitalRead)
	PinPWM                    // PwmWrite
	PinServo                  // ServoWrite
	PinAnalog                 // AnalogRead
	PinTrigger                // HC-SR04 trigger: a DigitalPin driven as output
	PinEcho                   // HC-SR04 echo: a DigitalPin with edge events
	PinI2C                    // an i2c device (bus, address) rather than a pin
	PinEncoder                // a wheel encoder channel: a DigitalPin input with edge events
	PinUART                   // a pin of the board's serial port
)

var pinModeNames = [...]string{"digital output", "digital input", "PWM output", "servo output",
	"analog input", "HC-SR04 trigger", "HC-SR04 echo (edge events)", "i2c device", "encoder input (edge events)",
	"serial port"}

func (m PinMode) String() string { return pinModeNames[m] }

// Pin is one pin (or i2c address) a device uses, with the config field naming it.
type Pin struct {
	Field string
	Pin   string
	Mode  PinMode
	Bus   int // PinI2C
	Addr  int // PinI2C
}

// SampleConfig is what every sensor section has: where it writes and how often it reads.
type SampleConfig struct {
	// Key is the blackboard key (or key prefix for sensors writing several values).
	Key string `yaml:"key,omitempty"`
	// RateHz is how often the sensor is read.
	RateHz float64 `yaml:"rate_hz,omitempty"`
	// StaleAfterMs: a sensor without a good sample for this long is reported as
	// SENSOR_STALE (default: 3 periods, at least 500 ms).
	StaleAfterMs float64 `yaml:"stale_after_ms,omitempty"`
}

func (s *SampleConfig) SetDefaults(key string, rate float64) {
	if s.Key == "" {
		s.Key = key
	}
	if s.RateHz == 0 {
		s.RateHz = rate
	}
	if s.StaleAfterMs == 0 && s.RateHz > 0 {
		s.StaleAfterMs = max(500, 3000/s.RateHz)
	}
}

func (s *SampleConfig) Check(v *Validator, path string) {
	if v.Positive(path+".rate_hz", s.RateHz) && s.RateHz > 1000 {
		v.Errorf(path+".rate_hz", "must be at most 1000 (got %v)", s.RateHz)
	}
	if v.Positive(path+".stale_after_ms", s.StaleAfterMs) && s.RateHz > 0 && s.StaleAfterMs < 1000/s.RateHz {
		v.Errorf(path+".stale_after_ms", "%v ms is shorter than one sampling period (%v ms)", s.StaleAfterMs, 1000/s.RateHz)
	}
}

// Leaves returns the names of a kind's leaves, as a catalog lists them (no config).
func (r *Registry) Leaves(kind string) []string {
	k, ok := r.Kind(kind)
	if !ok || k.Leaves == nil {
		return nil
	}
	var out []string
	for _, t := range k.Leaves(newLeafKit(r, nil)) {
		out = append(out, t.Name)
	}
	return out
}
