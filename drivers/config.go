package drivers

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/botd-project/botd/drivers/sim"
)

// Config is a robot's wiring: the boards ("adaptors") and the devices on them. Decode it with
// ParseConfig or LoadConfig; a Config built in code must pass Validate before Build.
//
//	adaptors:
//	  board: {kind: sim}                 # sim | raspi (pwm: pi-blaster|sysfs) | firmata (port: /dev/ttyACM0; needs -tags firmata)
//	devices:
//	  - {name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"},
//	     wheel_base: 0.2, max_linear: 0.4, max_angular: 2, max_wheel_speed: 0.5}
//	  - {name: front, kind: range, trig: "18", echo: "22", key: range.front, rate_hz: 10}
type Config struct {
	Adaptors map[string]*AdaptorConfig
	Devices  []*DeviceConfig
}

// AdaptorConfig is one board.
type AdaptorConfig struct {
	// Kind is "sim", "raspi" or "firmata" (only in a binary built with -tags firmata).
	Kind string `yaml:"kind"`
	// Port is the firmata board's serial port (e.g. /dev/ttyACM0).
	Port string `yaml:"port,omitempty"`
	// PWM selects how a Raspberry Pi makes PWM: "pi-blaster" (default: any GPIO header pin,
	// needs the pi-blaster daemon) or "sysfs" (the hardware channels "pwm0" and "pwm1").
	PWM string `yaml:"pwm,omitempty"`
	// Noise makes a sim board's robot imperfect: encoder noise, wheel slip, gyro bias, GPS
	// noise (sim boards only; default none).
	Noise *sim.NoiseConfig `yaml:"noise,omitempty"`
}

// noFirmataMessage says why a firmata board is refused by a default build, and what to do.
const noFirmataMessage = "this binary was built without firmata support (the default build leaves out " +
	"gobot's firmata adaptor and the BLE stack it pulls in): build it with -tags firmata, " +
	"e.g. go build -tags firmata ./cmd/botd"

// Adaptor kinds.
const (
	BoardSim     = "sim"
	BoardRaspi   = "raspi"
	BoardFirmata = "firmata"
)

// DeviceConfig is one device: the fields every kind has, and the kind's own section.
type DeviceConfig struct {
	Name string
	Kind string
	// Adaptor names the board the device is wired to; it may be left out when there is only
	// one.
	Adaptor string
	// Spec is the kind's own configuration: *DiffDriveConfig, *ServoConfig, *OutputConfig
	// (led, relay, buzzer, digital_out), *PWMOutConfig, *RangeConfig, *BatteryConfig,
	// *IMUConfig, *BumpConfig, *PoseConfig or *OdometryConfig.
	Spec DeviceSpec
}

// DeviceSpec is a device kind's own section of the configuration. The package's kinds are the
// only implementations.
type DeviceSpec interface {
	// Kind is the kind's name in the configuration ("diff_drive", "servo", ...).
	Kind() string
	// defaults fills in the zero fields for a board of the given kind.
	defaults(board string)
	// validate reports the section's problems under path ("devices[2]").
	validate(v *validator, path string)
	// pins lists the board pins and i2c addresses the device uses.
	pins() []pinUse
	// keys are the blackboard keys a sensor writes (nil for an actuator).
	keys(name string) []sensorKey
}

// sensorKey is one value a sensor writes to the blackboard.
type sensorKey struct {
	name    string
	boolean bool // written as a boolean rather than a number
}

// LoadConfig reads and parses a YAML robot config.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("drivers: load config: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig decodes a YAML robot config, fills in the defaults and validates it. It reports
// every problem found (as ConfigErrors), each with its path in the document.
func ParseConfig(data []byte) (*Config, error) {
	cfg, errs := decodeConfig(data)
	if len(errs) > 0 {
		return nil, errs
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Validate fills in the defaults and reports every problem with the configuration (as
// ConfigErrors), or nil.
func (c *Config) Validate() error {
	v := &validator{}
	if len(c.Adaptors) == 0 && c.needsBoard() {
		v.errorf("adaptors", "at least one board is needed (e.g. board: {kind: sim})")
	}
	sims := 0
	for _, name := range c.adaptorNames() {
		a := c.Adaptors[name]
		path := "adaptors." + name
		switch {
		case a == nil:
			v.errorf(path, "empty board")
			continue
		case !nameRE.MatchString(name):
			v.errorf(path, "board names may only use letters, digits, '_' and '-'")
		}
		switch a.Kind {
		case BoardSim:
			sims++
			if sims > 1 {
				v.errorf(path+".kind", "only one sim board per robot (the world holds one robot per name)")
			}
		case BoardRaspi:
			if a.PWM != "" && a.PWM != "pi-blaster" && a.PWM != "sysfs" {
				v.errorf(path+".pwm", "%q is not pi-blaster or sysfs", a.PWM)
			}
		case BoardFirmata:
			if a.Port == "" {
				v.errorf(path+".port", "a firmata board needs its serial port (e.g. /dev/ttyACM0)")
			}
			if !firmataBuilt {
				v.errorf(path+".kind", "%s", noFirmataMessage)
			}
		case "":
			v.errorf(path+".kind", "missing board kind (sim, raspi or firmata)")
		default:
			v.errorf(path+".kind", "unknown board kind %q (want sim, raspi or firmata)", a.Kind)
		}
		if a.Port != "" && a.Kind != BoardFirmata {
			v.errorf(path+".port", "only firmata boards take a port")
		}
		if a.PWM != "" && a.Kind != BoardRaspi {
			v.errorf(path+".pwm", "only raspi boards take a pwm mode")
		}
		if a.Noise != nil && a.Kind != BoardSim {
			v.errorf(path+".noise", "only sim boards take noise (a real robot brings its own)")
		}
	}
	names := map[string]string{}
	for i, d := range c.Devices {
		path := fmt.Sprintf("devices[%d]", i)
		if d == nil {
			v.errorf(path, "empty device")
			continue
		}
		c.checkDevice(v, path, d, names)
	}
	c.checkLinks(v)
	c.checkWiring(v)
	return v.errs.err()
}

func (c *Config) checkDevice(v *validator, path string, d *DeviceConfig, names map[string]string) {
	switch {
	case d.Name == "":
		v.errorf(path+".name", "missing device name")
	case !nameRE.MatchString(d.Name):
		v.errorf(path+".name", "%q: device names may only use letters, digits, '_' and '-'", d.Name)
	case names[d.Name] != "":
		v.errorf(path+".name", "duplicate device name %q (also %s)", d.Name, names[d.Name])
	default:
		names[d.Name] = path
	}
	k, ok := kindByName(d.Kind)
	switch {
	case d.Kind == "":
		v.errorf(path+".kind", "missing device kind (%s)", strings.Join(kindNames(), ", "))
		return
	case !ok:
		v.errorf(path+".kind", "unknown device kind %q (want one of %s)", d.Kind, strings.Join(kindNames(), ", "))
		return
	}
	if d.Spec == nil {
		d.Spec = k.newSpec()
	}
	if d.Spec.Kind() != d.Kind {
		v.errorf(path+".kind", "kind %q does not match its section (%s)", d.Kind, d.Spec.Kind())
		return
	}
	if k.boardless {
		if d.Adaptor != "" {
			v.errorf(path+".adaptor", "a %s device is wired to no board", d.Kind)
		}
		d.Spec.defaults("")
		d.Spec.validate(v, path)
		return
	}
	board := c.adaptorOf(v, path, d)
	if board == nil {
		return
	}
	if msg := boardSupports(board, d.Kind); msg != "" {
		v.errorf(path+".kind", "%s", msg)
		return
	}
	d.Spec.defaults(board.Kind)
	d.Spec.validate(v, path)
	rules := rulesFor(board)
	for _, p := range d.Spec.pins() {
		if p.mode == pinI2C {
			if msg := rules.checkBus(p.bus); msg != "" {
				v.errorf(path+"."+p.field, "%s", msg)
			}
			continue
		}
		if p.pin == "" {
			v.errorf(path+"."+p.field, "missing pin")
			continue
		}
		if msg := rules.checkPin(p.mode, p.pin); msg != "" {
			v.errorf(path+"."+p.field, "%s", msg)
		}
	}
}

// adaptorOf resolves a device's board, defaulting to the only one.
func (c *Config) adaptorOf(v *validator, path string, d *DeviceConfig) *AdaptorConfig {
	if d.Adaptor == "" {
		if len(c.Adaptors) == 1 {
			for name := range c.Adaptors {
				d.Adaptor = name
			}
		} else {
			if len(c.Adaptors) > 1 {
				v.errorf(path+".adaptor", "which board? there are several (%s)", strings.Join(c.adaptorNames(), ", "))
			}
			return nil
		}
	}
	a, ok := c.Adaptors[d.Adaptor]
	if !ok || a == nil {
		v.errorf(path+".adaptor", "unknown board %q (boards: %s)", d.Adaptor, strings.Join(c.adaptorNames(), ", "))
		return nil
	}
	switch a.Kind {
	case BoardSim, BoardRaspi, BoardFirmata:
		return a
	}
	return nil // the board's own problem is reported
}

// checkWiring reports pins and i2c addresses used twice on one board, sensor keys written by
// two devices, and what the simulated board cannot do.
func (c *Config) checkWiring(v *validator) {
	type use struct{ path string }
	pins := map[string]use{}
	keys := map[string]string{}
	for i, d := range c.Devices {
		if d == nil || d.Spec == nil || d.Spec.Kind() != d.Kind {
			continue
		}
		path := fmt.Sprintf("devices[%d]", i)
		for _, p := range d.Spec.pins() {
			id := d.Adaptor + "\x00" + p.pin
			if p.mode == pinI2C {
				id = fmt.Sprintf("%s\x00i2c %d/%#x", d.Adaptor, p.bus, p.addr)
			} else if p.pin == "" {
				continue
			}
			if prev, dup := pins[id]; dup {
				what := fmt.Sprintf("pin %q", p.pin)
				if p.mode == pinI2C {
					what = fmt.Sprintf("i2c address %#x on bus %d", p.addr, p.bus)
				}
				v.errorf(path+"."+p.field, "%s is already used by %s", what, prev.path)
				continue
			}
			pins[id] = use{path + "." + p.field}
		}
		for _, k := range d.Spec.keys(d.Name) {
			if msg := checkKeyName(k.name); msg != "" {
				v.errorf(path+".key", "%s", msg)
			}
			if prev, dup := keys[k.name]; dup {
				v.errorf(path+".key", "blackboard key %q is also written by %s", k.name, prev)
				continue
			}
			keys[k.name] = path
		}
	}
	for _, name := range c.adaptorNames() {
		if a := c.Adaptors[name]; a != nil && a.Kind == BoardSim {
			c.checkSimWiring(v, name)
		}
	}
}

func checkKeyName(k string) string {
	switch {
	case k == "":
		return "empty blackboard key"
	case strings.ContainsAny(k, " \t\n{}"), strings.HasPrefix(k, "tree:"), strings.HasPrefix(k, "node:"):
		return fmt.Sprintf("blackboard key %q must be a plain global key (no spaces, braces or scope)", k)
	}
	return ""
}

func (c *Config) adaptorNames() []string {
	out := make([]string, 0, len(c.Adaptors))
	for k := range c.Adaptors {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SensorKeys returns every blackboard key the configured sensors write, sorted (pass them as
// extra keys when compiling a mission so a tree that only watches them still gets slots).
func (c *Config) SensorKeys() []string {
	var out []string
	for _, d := range c.Devices {
		if d != nil && d.Spec != nil {
			for _, k := range d.Spec.keys(d.Name) {
				out = append(out, k.name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// DevicesOfKind returns the devices of a kind, in configuration order.
func (c *Config) DevicesOfKind(kind string) []*DeviceConfig {
	var out []*DeviceConfig
	for _, d := range c.Devices {
		if d != nil && d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

// validator collects configuration problems.
type validator struct{ errs ConfigErrors }

func (v *validator) errorf(path, format string, args ...any) {
	v.errs = append(v.errs, ConfigError{Path: path, Message: fmt.Sprintf(format, args...)})
}

// positive reports a value that is not > 0 (NaN and infinities included).
func (v *validator) positive(path string, x float64) bool {
	if !(x > 0) || x > 1e12 {
		v.errorf(path, "must be > 0 (got %v)", x)
		return false
	}
	return true
}

// within reports a value outside [lo, hi].
func (v *validator) within(path string, x, lo, hi float64) bool {
	if !(x >= lo && x <= hi) {
		v.errorf(path, "must be within [%v, %v] (got %v)", lo, hi, x)
		return false
	}
	return true
}

// needsBoard: the config has no device, or one wired to a board (a config of devices that are
// wired to none, like a Tello, needs no board).
func (c *Config) needsBoard() bool {
	if len(c.Devices) == 0 {
		return true
	}
	for _, d := range c.Devices {
		if d == nil {
			continue
		}
		if k, ok := kindByName(d.Kind); !ok || !k.boardless {
			return true
		}
	}
	return false
}
