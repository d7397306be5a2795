//go:build linux

package drivers

import (
	"errors"
	"fmt"
	"time"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/platforms/adaptors"
	"gobot.io/x/gobot/v2/platforms/raspi"

	"github.com/botd-project/botd/drivers/sim"
)

// Build validates cfg (filling in its defaults) and makes the robot: one Gobot adaptor per
// board and the Gobot drivers of every device, nothing connected or started yet. A sim board
// adds a robot named opts.Name to opts.World, wired as the devices say. On error nothing is
// left to clean up, except that a sim robot once added stays in its world (worlds have no
// removal); it is added only after the whole config validated.
func Build(cfg *Config, opts Options) (*Robot, error) {
	if cfg == nil {
		return nil, errors.New("drivers: Build with a nil config")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := newRobot(cfg, opts)
	for _, name := range cfg.adaptorNames() {
		b, err := r.makeBoard(name, cfg.Adaptors[name])
		if err != nil {
			return nil, err
		}
		r.boards = append(r.boards, b)
	}
	for i, dc := range cfg.Devices {
		d, err := r.buildDevice(dc, fmt.Sprintf("devices[%d]", i))
		if err != nil {
			_ = r.Close() // nothing started: a no-op today, kept for kinds that provision more
			return nil, fmt.Errorf("drivers: devices[%d] (%s %q): %w", i, dc.Kind, dc.Name, err)
		}
		r.addDevice(d)
	}
	for i, d := range r.devices {
		if d.link == nil {
			continue
		}
		if err := d.link(); err != nil {
			_ = r.Close()
			return nil, fmt.Errorf("drivers: devices[%d] (%s %q): %w", i, d.kind, d.name, err)
		}
	}
	r.sealActuators()
	return r, nil
}

func (r *Robot) makeBoard(name string, a *AdaptorConfig) (*board, error) {
	b := &board{name: name, cfg: a}
	if a.Kind == BoardSim {
		w := r.opts.World
		if w == nil {
			return nil, fmt.Errorf("drivers: board %q is a sim board: Options.World is needed", name)
		}
		if w.Robot(r.name) != nil {
			return nil, fmt.Errorf("drivers: board %q: the world already has a robot named %q", name, r.name)
		}
		rc := r.cfg.simRobotConfig(name).robot
		if err := rc.Validate(); err != nil {
			return nil, fmt.Errorf("drivers: board %q: %w", name, err)
		}
		r.sim = w.AddRobot(r.name, rc)
		b.sim = sim.NewAdaptor(r.sim, sim.WithName(name))
		b.adaptor = b.sim
		return b, nil
	}
	if r.opts.NewBoard != nil {
		ad, err := r.opts.NewBoard(name, a)
		if err != nil {
			return nil, err
		}
		b.adaptor = ad
		return b, nil
	}
	switch a.Kind {
	case BoardRaspi:
		var o []interface{}
		for _, p := range raspiPWMOptions(r.cfg, name) {
			o = append(o, p)
		}
		pi := raspi.NewAdaptor(o...)
		pi.SetName(name)
		b.adaptor = pi
	case BoardFirmata:
		f, err := newFirmataBoard(name, a)
		if err != nil {
			return nil, err
		}
		b.adaptor = f
	default:
		return nil, fmt.Errorf("drivers: board %q: unknown kind %q", name, a.Kind)
	}
	return b, nil
}

// raspiPWMOptions are the PWM options of a raspi board: pi-blaster unless sysfs is asked for,
// and, for servo pins, 0.5..2.5 ms pulses. gobot's default servo scale is period/40..period/8,
// right only for a 20 ms period: on pi-blaster's fixed 10 ms cycle it would give 0.25..1.25 ms.
// With sysfs the servo pins get the 20 ms (50 Hz) period servos expect.
func raspiPWMOptions(cfg *Config, board string) []adaptors.PwmPinsOptionApplier {
	a := cfg.Adaptors[board]
	var o []adaptors.PwmPinsOptionApplier
	if a.PWM != "sysfs" {
		o = append(o, adaptors.WithPWMUsePiBlaster())
	}
	for _, d := range cfg.Devices {
		if d == nil || d.Adaptor != board {
			continue
		}
		for _, p := range d.Spec.Pins() {
			if p.Mode != PinServo {
				continue
			}
			if a.PWM == "sysfs" {
				o = append(o, adaptors.WithPWMDefaultPeriodForPin(p.Pin, 20_000_000))
			}
			o = append(o, adaptors.WithPWMServoDutyCycleRangeForPin(p.Pin, 500*time.Microsecond, 2500*time.Microsecond))
		}
	}
	return o
}

func (r *Robot) buildDevice(dc *DeviceConfig, path string) (*device, error) {
	var b *board
	for _, x := range r.boards {
		if x.name == dc.Adaptor {
			b = x
		}
	}
	k, _ := r.cfg.Kinds.Kind(dc.Kind)
	if b == nil && !k.Boardless {
		return nil, fmt.Errorf("unknown board %q", dc.Adaptor)
	}
	d := &device{name: dc.Name, kind: dc.Kind, path: path, cfg: dc, board: b}
	if k.Build == nil {
		return nil, fmt.Errorf("kind %q cannot be built", dc.Kind)
	}
	if err := k.Build(&Builder{r: r, d: d}); err != nil {
		return nil, err
	}
	return d, nil
}

var _ gobot.Adaptor = (*sim.Adaptor)(nil)
