package drivers

import (
	"errors"
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
//	  - {name: NAME, kind: KIND, adaptor: board, ...}   # the rest is the kind's own section (its Spec)
type Config struct {
	Adaptors map[string]*AdaptorConfig
	Devices  []*DeviceConfig
	// Kinds are the device kinds the config may use (set by Registry.ParseConfig).
	Kinds *Registry
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
	// Spec is the kind's own configuration: the section its KindInfo.New returns.
	Spec Spec
}

// LoadConfig reads and parses a YAML robot config of the registry's kinds.
func (r *Registry) LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("drivers: load config: %w", err)
	}
	cfg, err := r.ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig decodes a YAML robot config of the registry's kinds, fills in the defaults and
// validates it. It reports every problem found (as ConfigErrors), each with its path in the
// document.
func (r *Registry) ParseConfig(data []byte) (*Config, error) {
	cfg, errs := decodeConfig(r, data)
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
	if c.Kinds == nil {
		return errors.New("drivers: the config has no kinds (parse it with Registry.ParseConfig, or set Config.Kinds)")
	}
	v := &Validator{}
	if len(c.Adaptors) == 0 && c.needsBoard() {
		v.Errorf("adaptors", "at least one board is needed (e.g. board: {kind: sim})")
	}
	sims := 0
	for _, name := range c.adaptorNames() {
		a := c.Adaptors[name]
		path := "adaptors." + name
		switch {
		case a == nil:
			v.Errorf(path, "empty board")
			continue
		case !nameRE.MatchString(name):
			v.Errorf(path, "board names may only use letters, digits, '_' and '-'")
		}
		switch a.Kind {
		case BoardSim:
			sims++
			if sims > 1 {
				v.Errorf(path+".kind", "only one sim board per robot (the world holds one robot per name)")
			}
		case BoardRaspi:
			if a.PWM != "" && a.PWM != "pi-blaster" && a.PWM != "sysfs" {
				v.Errorf(path+".pwm", "%q is not pi-blaster or sysfs", a.PWM)
			}
		case BoardFirmata:
			if a.Port == "" {
				v.Errorf(path+".port", "a firmata board needs its serial port (e.g. /dev/ttyACM0)")
			}
			if !firmataBuilt {
				v.Errorf(path+".kind", "%s", noFirmataMessage)
			}
		case "":
			v.Errorf(path+".kind", "missing board kind (sim, raspi or firmata)")
		default:
			v.Errorf(path+".kind", "unknown board kind %q (want sim, raspi or firmata)", a.Kind)
		}
		if a.Port != "" && a.Kind != BoardFirmata {
			v.Errorf(path+".port", "only firmata boards take a port")
		}
		if a.PWM != "" && a.Kind != BoardRaspi {
			v.Errorf(path+".pwm", "only raspi boards take a pwm mode")
		}
		if a.Noise != nil && a.Kind != BoardSim {
			v.Errorf(path+".noise", "only sim boards take noise (a real robot brings its own)")
		}
	}
	names := map[string]string{}
	for i, d := range c.Devices {
		path := fmt.Sprintf("devices[%d]", i)
		if d == nil {
			v.Errorf(path, "empty device")
			continue
		}
		c.checkDevice(v, path, d, names)
	}
	c.checkLinks(v)
	c.checkWiring(v)
	return v.errs.err()
}

func (c *Config) checkDevice(v *Validator, path string, d *DeviceConfig, names map[string]string) {
	switch {
	case d.Name == "":
		v.Errorf(path+".name", "missing device name")
	case !nameRE.MatchString(d.Name):
		v.Errorf(path+".name", "%q: device names may only use letters, digits, '_' and '-'", d.Name)
	case names[d.Name] != "":
		v.Errorf(path+".name", "duplicate device name %q (also %s)", d.Name, names[d.Name])
	default:
		names[d.Name] = path
	}
	k, ok := c.Kinds.Kind(d.Kind)
	switch {
	case d.Kind == "":
		v.Errorf(path+".kind", "missing device kind (%s)", strings.Join(c.Kinds.Names(), ", "))
		return
	case !ok:
		v.Errorf(path+".kind", "unknown device kind %q (want one of %s)", d.Kind, strings.Join(c.Kinds.Names(), ", "))
		return
	}
	if d.Spec == nil {
		d.Spec = k.New()
	}
	if d.Spec.Kind() != d.Kind {
		v.Errorf(path+".kind", "kind %q does not match its section (%s)", d.Kind, d.Spec.Kind())
		return
	}
	if k.Boardless {
		if d.Adaptor != "" {
			v.Errorf(path+".adaptor", "a %s device is wired to no board", d.Kind)
		}
		d.Spec.Defaults("")
		d.Spec.Validate(v, path)
		return
	}
	board := c.adaptorOf(v, path, d)
	if board == nil {
		return
	}
	if msg := boardSupports(board, d.Spec); msg != "" {
		v.Errorf(path+".kind", "%s", msg)
		return
	}
	d.Spec.Defaults(board.Kind)
	d.Spec.Validate(v, path)
	rules := rulesFor(board)
	for _, p := range d.Spec.Pins() {
		if p.Mode == PinI2C {
			if msg := rules.checkBus(p.Bus); msg != "" {
				v.Errorf(path+"."+p.Field, "%s", msg)
			}
			continue
		}
		if p.Pin == "" {
			v.Errorf(path+"."+p.Field, "missing pin")
			continue
		}
		if msg := rules.checkPin(p.Mode, p.Pin); msg != "" {
			v.Errorf(path+"."+p.Field, "%s", msg)
		}
	}
}

// adaptorOf resolves a device's board, defaulting to the only one.
func (c *Config) adaptorOf(v *Validator, path string, d *DeviceConfig) *AdaptorConfig {
	if d.Adaptor == "" {
		if len(c.Adaptors) == 1 {
			for name := range c.Adaptors {
				d.Adaptor = name
			}
		} else {
			if len(c.Adaptors) > 1 {
				v.Errorf(path+".adaptor", "which board? there are several (%s)", strings.Join(c.adaptorNames(), ", "))
			}
			return nil
		}
	}
	a, ok := c.Adaptors[d.Adaptor]
	if !ok || a == nil {
		v.Errorf(path+".adaptor", "unknown board %q (boards: %s)", d.Adaptor, strings.Join(c.adaptorNames(), ", "))
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
func (c *Config) checkWiring(v *Validator) {
	type use struct{ path string }
	pins := map[string]use{}
	keys := map[string]string{}
	for i, d := range c.Devices {
		if d == nil || d.Spec == nil || d.Spec.Kind() != d.Kind {
			continue
		}
		path := fmt.Sprintf("devices[%d]", i)
		for _, p := range d.Spec.Pins() {
			id := d.Adaptor + "\x00" + p.Pin
			if p.Mode == PinI2C {
				id = fmt.Sprintf("%s\x00i2c %d/%#x", d.Adaptor, p.Bus, p.Addr)
			} else if p.Pin == "" {
				continue
			}
			if prev, dup := pins[id]; dup {
				what := fmt.Sprintf("pin %q", p.Pin)
				if p.Mode == PinI2C {
					what = fmt.Sprintf("i2c address %#x on bus %d", p.Addr, p.Bus)
				}
				v.Errorf(path+"."+p.Field, "%s is already used by %s", what, prev.path)
				continue
			}
			pins[id] = use{path + "." + p.Field}
		}
		for _, k := range d.Spec.Keys(d.Name) {
			if msg := checkKeyName(k.Name); msg != "" {
				v.Errorf(path+".key", "%s", msg)
			}
			if prev, dup := keys[k.Name]; dup {
				v.Errorf(path+".key", "blackboard key %q is also written by %s", k.Name, prev)
				continue
			}
			keys[k.Name] = path
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
			for _, k := range d.Spec.Keys(d.Name) {
				out = append(out, k.Name)
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

// Validator collects configuration problems, each at its path in the document.
type Validator struct{ errs ConfigErrors }

// Errorf reports a problem at path.
func (v *Validator) Errorf(path, format string, args ...any) {
	v.errs = append(v.errs, ConfigError{Path: path, Message: fmt.Sprintf(format, args...)})
}

// Positive reports a value that is not > 0 (NaN and infinities included); false then.
func (v *Validator) Positive(path string, x float64) bool {
	if !(x > 0) || x > 1e12 {
		v.Errorf(path, "must be > 0 (got %v)", x)
		return false
	}
	return true
}

// Within reports a value outside [lo, hi]; false then.
func (v *Validator) Within(path string, x, lo, hi float64) bool {
	if !(x >= lo && x <= hi) {
		v.Errorf(path, "must be within [%v, %v] (got %v)", lo, hi, x)
		return false
	}
	return true
}

// needsBoard: the config has no device, or one wired to a board (a config of devices that are
// wired to none, like a drone over Wi-Fi, needs no board).
func (c *Config) needsBoard() bool {
	if len(c.Devices) == 0 {
		return true
	}
	for _, d := range c.Devices {
		if d == nil {
			continue
		}
		if k, ok := c.Kinds.Kind(d.Kind); !ok || !k.Boardless {
			return true
		}
	}
	return false
}
