package drivers

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"sync"
	"time"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/platforms/dji/tello"
)

// KindTello is a DJI Tello (or Tello EDU) quadcopter.
const KindTello = "tello"

// TelloConfig is a DJI Tello flown over Wi-Fi with gobot's tello driver (the drone's binary
// UDP protocol: commands and flight data on its port 8889, video to port 11111 here). It is
// an actuator (TelloTakeoff, TelloLand, TelloMove, TelloFlip) and a sensor writing, under its
// key (default "tello"): height (m), battery (percent), north_speed, east_speed,
// vertical_speed and speed (m/s), flying (boolean), fly_time (s) and wifi (the link's
// strength as the drone reports it). It is wired to no board.
//
// Its safe state is hover (sticks centred: in the air it stays where it is, on the ground
// nothing happens); an e-stop lands it (gobot's driver has no motors-off command). Closing the
// robot lands it too (gobot's Halt).
type TelloConfig struct {
	// Address is the drone's IP address (default 192.168.10.1, the Tello's own access point;
	// a Tello EDU on a station network has another). Its command port is 8889: gobot's driver
	// fixes it.
	Address string `yaml:"address,omitempty"`
	// LocalPort is the UDP port here the drone answers to (default 8888).
	LocalPort int `yaml:"local_port,omitempty"`
	// MaxSpeed bounds TelloMove's stick deflections, 0..1 of full stick (default 0.5).
	MaxSpeed float64 `yaml:"max_speed,omitempty"`
	// AllowFlips enables TelloFlip (default false: a flip loses height and needs room).
	AllowFlips   bool `yaml:"allow_flips,omitempty"`
	SampleConfig `yaml:",inline"`
}

// Kind implements Spec.
func (*TelloConfig) Kind() string { return KindTello }

func (c *TelloConfig) Defaults(string) {
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

func (c *TelloConfig) Validate(v *Validator, path string) {
	if ip := net.ParseIP(c.Address); ip == nil {
		v.Errorf(path+".address", "%q is not an IP address (the Tello's is 192.168.10.1)", c.Address)
	}
	if c.LocalPort < 1 || c.LocalPort > 65535 || c.LocalPort == telloVideoPort {
		v.Errorf(path+".local_port", "%d is not a UDP port botd can use (1..65535, not the video port %d)", c.LocalPort, telloVideoPort)
	}
	if v.Positive(path+".max_speed", c.MaxSpeed) && c.MaxSpeed > 1 {
		v.Errorf(path+".max_speed", "must be at most 1 (full stick; got %v)", c.MaxSpeed)
	}
	c.SampleConfig.Check(v, path)
}

func (*TelloConfig) Pins() []Pin { return nil }

// telloKeys are what a Tello writes under its key; flying is a boolean.
var telloKeys = [...]string{"height", "battery", "north_speed", "east_speed", "vertical_speed", "speed", "flying", "fly_time", "wifi"}

func (c *TelloConfig) Keys(string) []Key {
	out := make([]Key, len(telloKeys))
	for i, k := range telloKeys {
		out[i] = Key{Name: c.Key + "." + k, Bool: k == "flying"}
	}
	return out
}

// telloVideoPort is where gobot's driver listens for the drone's video (fixed by gobot).
const telloVideoPort = 11111

// telloCommand is what the Tello's leaves ask of it: the sticks (hover when all are 0), or a
// takeoff, landing or flip request. req identifies a request, so each is sent once however
// often the command is written (-1: the e-stop's landing, sent whenever forced).
type telloCommand struct {
	mode                    uint8
	forward, right, up, yaw float64 // -1..1 of full stick (yaw clockwise)
	flip                    int     // gobot's FlipType
	req                     int64
}

// Tello command modes.
const (
	telloSticks uint8 = iota
	telloTakeoff
	telloLand
	telloFlip
)

// telloImpl drives the gobot driver.
type telloImpl struct {
	drv  *tello.Driver
	cfg  *TelloConfig
	act  *Actuator[telloCommand]
	now  func() time.Time
	sent int64 // req of the last request sent
	// started: gobot's driver is started (it writes to its connection only then).
	started bool
}

var (
	_ ActuatorImpl[telloCommand] = (*telloImpl)(nil)
	_ EStopper[telloCommand]     = (*telloImpl)(nil)
	_ FenceActions               = (*telloImpl)(nil)
)

func (t *telloImpl) Safe() telloCommand { return telloCommand{mode: telloSticks} }

// EStopState lands the drone.
func (t *telloImpl) EStopState() telloCommand { return telloCommand{mode: telloLand, req: -1} }

func (t *telloImpl) Clamp(c telloCommand) telloCommand {
	m := t.cfg.MaxSpeed
	lim := func(x float64) float64 {
		if math.IsNaN(x) {
			return 0
		}
		return math.Max(-m, math.Min(m, x))
	}
	switch {
	case c.mode == telloSticks:
		c.forward, c.right, c.up, c.yaw = lim(c.forward), lim(c.right), lim(c.up), lim(c.yaw)
	case c.mode == telloFlip && !t.cfg.AllowFlips, c.mode > telloFlip:
		c = telloCommand{mode: telloSticks}
	}
	return c
}

// Write sends the command. The sticks are set on every write (gobot sends them every 20 ms);
// a request goes out once. Every call that numbers a packet (TakeOff, Land, Flip) is
// bracketed by stick writes, which take the driver's lock: gobot numbers packets under that
// lock only when it sends the date on connecting, so this orders the two.
func (t *telloImpl) Write(c telloCommand, _ time.Time, force bool) error {
	if !t.started {
		return nil
	}
	var err error
	switch c.mode {
	case telloSticks:
		err = t.drv.SetVector(float32(c.forward), float32(c.right), float32(c.up), float32(c.yaw))
	default:
		err = t.drv.SetVector(0, 0, 0, 0)
		if err == nil && (c.req != t.sent || force && c.req == -1) {
			switch c.mode {
			case telloTakeoff:
				err = t.drv.TakeOff()
			case telloLand:
				err = t.drv.Land()
			case telloFlip:
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
func (t *telloImpl) Hold() error {
	return ignoreEStop(t.act.Command(Owner{}, telloCommand{mode: telloSticks}, false))
}

// Land lands the drone where it is.
func (t *telloImpl) Land() error {
	return ignoreEStop(t.act.Command(Owner{}, telloCommand{mode: telloLand, req: t.now().UnixNano()}, false))
}

// ReturnHome lands: a Tello has no position of its own to fly home to.
func (t *telloImpl) ReturnHome() error { return t.Land() }

// telloData is the latest flight data and Wi-Fi strength.
type telloData struct {
	mu     sync.Mutex
	fd     tello.FlightData
	wifi   float64
	seq    uint64
	read   uint64
	conned bool
}

func (d *telloData) readSample(_ time.Time, vals []float64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seq == d.read {
		return errNoSample
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

// telloDriver is gobot's driver with botd's start: it refuses to start when the video port is
// taken (gobot's driver would panic on its own goroutine once the drone answers), and it
// follows the driver's events into the sample.
type telloDriver struct {
	*tello.Driver
	impl *telloImpl
	data *telloData
	stop chan struct{}
	done chan struct{}
}

func (t *telloDriver) Start() error {
	c, err := net.ListenUDP("udp", &net.UDPAddr{Port: telloVideoPort})
	if err != nil {
		return fmt.Errorf("UDP port %d, where gobot's tello driver receives the video, is taken: %w", telloVideoPort, err)
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
func (t *telloDriver) follow(events chan *gobot.Event) {
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
func (t *telloDriver) Halt() error {
	err := t.Driver.Halt()
	if t.stop != nil {
		close(t.stop)
		<-t.done
		t.stop = nil
	}
	return err
}

func buildTello(b *Builder) error {
	c := b.Spec().(*TelloConfig)
	drv := tello.NewDriverWithIP(c.Address, strconv.Itoa(c.LocalPort))
	drv.SetName(b.Name())
	impl := &telloImpl{drv: drv, cfg: c, now: b.r.now}
	data := &telloData{}
	b.AddDriver(&telloDriver{Driver: drv, impl: impl, data: data}, true)
	impl.act = NewActuator[telloCommand](b, impl)
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
	if err == ErrEStopped {
		return nil
	}
	return err
}
