// Package tello is the Tello device family: a DJI/Ryze Tello (or Tello EDU) quadcopter flown
// over Wi-Fi with gobot's tello driver, its typed command (sticks, takeoff, land, flip) and its
// leaves (TelloTakeoff, TelloLand, TelloMove, TelloFlip). Add it to a drivers.Registry with
// Register.
package tello

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"sync"
	"time"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/platforms/dji/tello"

	"github.com/botd-project/botd/drivers"
)

// Kind is a DJI Tello (or Tello EDU) quadcopter.
const Kind = "tello"

// Register adds the tello kind to r.
func Register(r *drivers.Registry) {
	r.Add(drivers.KindInfo{Name: Kind, Doc: "a DJI/Ryze Tello drone over Wi-Fi", Actuator: true, Boardless: true,
		New: func() drivers.Spec { return &Config{} }, Build: build, Leaves: leaves})
}

// Config is a DJI Tello flown over Wi-Fi with gobot's tello driver (the drone's binary
// UDP protocol: commands and flight data on its port 8889, video to port 11111 here). It is
// an actuator (TelloTakeoff, TelloLand, TelloMove, TelloFlip) and a sensor writing, under its
// key (default "tello"): height (m), battery (percent), north_speed, east_speed,
// vertical_speed and speed (m/s), flying (boolean), fly_time (s) and wifi (the link's
// strength as the drone reports it). It is wired to no board.
//
// Its safe state is hover (sticks centred: in the air it stays where it is, on the ground
// nothing happens); an e-stop lands it (gobot's driver has no motors-off command). Closing the
// robot lands it too (gobot's Halt).
type Config struct {
	// Address is the drone's IP address (default 192.168.10.1, the Tello's own access point;
	// a Tello EDU on a station network has another). Its command port is 8889: gobot's driver
	// fixes it.
	Address string `yaml:"address,omitempty"`
	// LocalPort is the UDP port here the drone answers to (default 8888).
	LocalPort int `yaml:"local_port,omitempty"`
	// MaxSpeed bounds TelloMove's stick deflections, 0..1 of full stick (default 0.5).
	MaxSpeed float64 `yaml:"max_speed,omitempty"`
	// AllowFlips enables TelloFlip (default false: a flip loses height and needs room).
	AllowFlips           bool `yaml:"allow_flips,omitempty"`
	drivers.SampleConfig `yaml:",inline"`
}

// Kind implements drivers.Spec.
func (*Config) Kind() string { return Kind }

// Defaults implements drivers.Spec.
func (c *Config) Defaults(string) {
	if c.Address == "" {
		c.Address = "192.168.10.1"
	}
	if c.LocalPort == 0 {
		c.LocalPort = 8888
	}
	if c.MaxSpeed == 0 {
		c.MaxSpeed = 0.5
	}
	if c.StaleAfterMs == 0 {
		c.StaleAfterMs = 1000 // the drone sends flight data about ten times a second
	}
	c.SampleConfig.SetDefaults("tello", 20)
}

// Validate implements drivers.Spec.
func (c *Config) Validate(v *drivers.Validator, path string) {
	if ip := net.ParseIP(c.Address); ip == nil {
		v.Errorf(path+".address", "%q is not an IP address (the Tello's is 192.168.10.1)", c.Address)
	}
	if c.LocalPort < 1 || c.LocalPort > 65535 || c.LocalPort == videoPort {
		v.Errorf(path+".local_port", "%d is not a UDP port botd can use (1..65535, not the video port %d)", c.LocalPort, videoPort)
	}
	if v.Positive(path+".max_speed", c.MaxSpeed) && c.MaxSpeed > 1 {
		v.Errorf(path+".max_speed", "must be at most 1 (full stick; got %v)", c.MaxSpeed)
	}
	c.SampleConfig.Check(v, path)
}

// Pins implements drivers.Spec: a Tello is wired to no board.
func (*Config) Pins() []drivers.Pin { return nil }

// keys are what a Tello writes under its key; flying is a boolean.
var keys = [...]string{"height", "battery", "north_speed", "east_speed", "vertical_speed", "speed", "flying", "fly_time", "wifi"}

// Keys implements drivers.Spec.
func (c *Config) Keys(string) []drivers.Key {
	out := make([]drivers.Key, len(keys))
	for i, k := range keys {
		out[i] = drivers.Key{Name: c.Key + "." + k, Bool: k == "flying"}
	}
	return out
}

// videoPort is where gobot's driver listens for the drone's video (fixed by gobot).
const videoPort = 11111

// Command is what the Tello's leaves ask of it: the sticks (hover when all are 0), or a
// takeoff, landing or flip request. req identifies a request, so each is sent once however
// often the command is written (-1: the e-stop's landing, sent whenever forced).
type Command struct {
	mode                    uint8
	forward, right, up, yaw float64 // -1..1 of full stick (yaw clockwise)
	flip                    int     // gobot's FlipType
	req                     int64
}

// Tello command modes.
const (
	modeSticks uint8 = iota
	modeTakeoff
	modeLand
	modeFlip
)

// impl drives the gobot driver.
type impl struct {
	drv  *tello.Driver
	cfg  *Config
	act  *drivers.Actuator[Command]
	now  func() time.Time
	sent int64 // req of the last request sent
	// started: gobot's driver is started (it writes to its connection only then).
	started bool
}

var (
	_ drivers.ActuatorImpl[Command] = (*impl)(nil)
	_ drivers.EStopper[Command]     = (*impl)(nil)
	_ drivers.FenceActions          = (*impl)(nil)
)

func (t *impl) Safe() Command { return Command{mode: modeSticks} }

// EStopState lands the drone.
func (t *impl) EStopState() Command { return Command{mode: modeLand, req: -1} }

func (t *impl) Clamp(c Command) Command {
	m := t.cfg.MaxSpeed
	lim := func(x float64) float64 {
		if math.IsNaN(x) {
			return 0
		}
		return math.Max(-m, math.Min(m, x))
	}
	switch {
	case c.mode == modeSticks:
		c.forward, c.right, c.up, c.yaw = lim(c.forward), lim(c.right), lim(c.up), lim(c.yaw)
	case c.mode == modeFlip && !t.cfg.AllowFlips, c.mode > modeFlip:
		c = Command{mode: modeSticks}
	}
	return c
}

// Write sends the command. The sticks are set on every write (gobot sends them every 20 ms);
// a request goes out once. Every call that numbers a packet (TakeOff, Land, Flip) is
// bracketed by stick writes, which take the driver's lock: gobot numbers packets under that
// lock only when it sends the date on connecting, so this orders the two.
func (t *impl) Write(c Command, _ time.Time, force bool) error {
	if !t.started {
		return nil
	}
	var err error
	switch c.mode {
	case modeSticks:
		err = t.drv.SetVector(float32(c.forward), float32(c.right), float32(c.up), float32(c.yaw))
	default:
		err = t.drv.SetVector(0, 0, 0, 0)
		if err == nil && (c.req != t.sent || force && c.req == -1) {
			switch c.mode {
			case modeTakeoff:
				err = t.drv.TakeOff()
			case modeLand:
				err = t.drv.Land()
			case modeFlip:
				err = t.drv.Flip(tello.FlipType(c.flip))
			}
			if err == nil {
				t.sent = c.req
			}
			t.drv.Hover()
		}
	}
	return err
}

// Hold is a Tello's answer to a geofence breach's hold: hover.
func (t *impl) Hold() error {
	return ignoreEStop(t.act.Command(drivers.Owner{}, Command{mode: modeSticks}, false))
}

// Land lands the drone where it is.
func (t *impl) Land() error {
	return ignoreEStop(t.act.Command(drivers.Owner{}, Command{mode: modeLand, req: t.now().UnixNano()}, false))
}

// ReturnHome lands: a Tello has no position of its own to fly home to.
func (t *impl) ReturnHome() error { return t.Land() }

// flightData is the latest flight data and Wi-Fi strength.
type flightData struct {
	mu     sync.Mutex
	fd     tello.FlightData
	wifi   float64
	seq    uint64
	read   uint64
	conned bool
}

func (d *flightData) readSample(_ time.Time, vals []float64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seq == d.read {
		return drivers.ErrNoSample
	}
	d.read = d.seq
	f := &d.fd
	n, e, u := float64(f.NorthSpeed)/100, float64(f.EastSpeed)/100, float64(f.VerticalSpeed)/100
	vals[0], vals[1] = float64(f.Height)/10, float64(f.BatteryPercentage)
	vals[2], vals[3], vals[4], vals[5] = n, e, u, math.Hypot(n, e)
	vals[6] = 0
	if f.Flying {
		vals[6] = 1
	}
	vals[7], vals[8] = float64(f.FlyTime)/10, d.wifi
	return nil
}

// driver is gobot's driver with botd's start: it refuses to start when the video port is
// taken (gobot's driver would panic on its own goroutine once the drone answers), and it
// follows the driver's events into the sample.
type driver struct {
	*tello.Driver
	impl *impl
	data *flightData
	stop chan struct{}
	done chan struct{}
}

func (t *driver) Start() error {
	c, err := net.ListenUDP("udp", &net.UDPAddr{Port: videoPort})
	if err != nil {
		return fmt.Errorf("UDP port %d, where gobot's tello driver receives the video, is taken: %w", videoPort, err)
	}
	c.Close()
	events := t.Driver.Subscribe()
	t.stop, t.done = make(chan struct{}), make(chan struct{})
	go t.follow(events)
	if err := t.Driver.Start(); err != nil {
		close(t.stop)
		<-t.done
		return err
	}
	t.impl.started = true
	return nil
}

// follow keeps the latest flight data and Wi-Fi strength.
func (t *driver) follow(events chan *gobot.Event) {
	defer close(t.done)
	defer t.Driver.Unsubscribe(events)
	for {
		select {
		case <-t.stop:
			return
		case ev := <-events:
			d := t.data
			switch ev.Name {
			case tello.FlightDataEvent:
				if fd, ok := ev.Data.(*tello.FlightData); ok && fd != nil {
					d.mu.Lock()
					d.fd = *fd
					d.seq++
					d.mu.Unlock()
				}
			case tello.WifiDataEvent:
				if w, ok := ev.Data.(*tello.WifiData); ok && w != nil {
					d.mu.Lock()
					d.wifi = float64(w.Strength)
					d.mu.Unlock()
				}
			case tello.ConnectedEvent:
				d.mu.Lock()
				d.conned = true
				d.mu.Unlock()
			}
		}
	}
}

// Halt lands the drone (gobot's Halt) and stops following its events.
func (t *driver) Halt() error {
	err := t.Driver.Halt()
	if t.stop != nil {
		close(t.stop)
		<-t.done
		t.stop = nil
	}
	return err
}

func build(b *drivers.Builder) error {
	c := b.Spec().(*Config)
	drv := tello.NewDriverWithIP(c.Address, strconv.Itoa(c.LocalPort))
	drv.SetName(b.Name())
	impl := &impl{drv: drv, cfg: c, now: b.Clock()}
	data := &flightData{}
	b.AddDriver(&driver{Driver: drv, impl: impl, data: data}, true)
	impl.act = drivers.NewActuator[Command](b, impl)
	b.Sensor(c.SampleConfig, data.readSample)
	b.Detail(func() string {
		data.mu.Lock()
		defer data.mu.Unlock()
		if !data.conned {
			return fmt.Sprintf("no answer from the drone at %s:8889 yet", c.Address)
		}
		return fmt.Sprintf("connected; %d flight data packets; battery %d%%", data.seq, data.fd.BatteryPercentage)
	})
	return nil
}

// ignoreEStop: during an e-stop the drone is landing already.
func ignoreEStop(err error) error {
	if err == drivers.ErrEStopped {
		return nil
	}
	return err
}
