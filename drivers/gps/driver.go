package gps

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.bug.st/serial"
	"gobot.io/x/gobot/v2"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
)

// readTimeout bounds one read of a real port, so the reader sees Close within it.
const readTimeout = 200 * time.Millisecond

// build builds a GPS device: a driver that opens the port when it starts, a goroutine that
// reads it (a real port; the simulated receiver is drained by the sensor), and a sensor that
// writes the newest fix.
func build(b *drivers.Builder) error {
	c := b.Spec().(*Config)
	g := &device{nmea: &nmeaReader{cfg: c}}
	drv := &driver{name: b.Name(), cfg: c, dev: g, board: b.Board(), sim: b.SimBoard(), now: b.Clock()}
	b.AddDriver(drv, true)
	b.Sensor(c.SampleConfig, g.readFix)
	b.Detail(g.detail)
	if drv.sim == nil {
		if b.Options().Sync {
			return errors.New("a serial GPS is read by a goroutine of its own, which a robot sampled by its caller (Options.Sync) does not run")
		}
		b.Go(drv.readLoop)
	}
	return nil
}

// driver is the Gobot driver of a GPS receiver's serial port.
type driver struct {
	name  string
	cfg   *Config
	dev   *device
	board gobot.Adaptor
	sim   *sim.Adaptor // the board, when it is the simulator
	now   func() time.Time

	mu      sync.Mutex
	port    serial.Port
	simPort *sim.SerialPort // the simulated receiver's, on a sim board
	buf     []byte
}

var _ gobot.Driver = (*driver)(nil)

func (g *driver) Name() string                 { return g.name }
func (g *driver) SetName(n string)             { g.name = n }
func (g *driver) Connection() gobot.Connection { return g.board }

// Start opens the port at its speed, raw, with a read timeout (on a sim board: the simulated
// receiver's port, which the sensor drains as it samples).
func (g *driver) Start() error {
	if g.sim != nil {
		p, err := g.sim.OpenSerial(g.cfg.Port)
		if err != nil {
			return err
		}
		g.mu.Lock()
		g.simPort, g.buf = p, make([]byte, 1024)
		g.mu.Unlock()
		g.dev.poll = g.drain
		return nil
	}
	p, err := serial.Open(g.cfg.Port, &serial.Mode{BaudRate: g.cfg.Baud})
	if err != nil {
		return fmt.Errorf("serial port %s: %w", g.cfg.Port, err)
	}
	if err := p.SetReadTimeout(readTimeout); err != nil {
		_ = p.Close()
		return fmt.Errorf("serial port %s: %w", g.cfg.Port, err)
	}
	g.mu.Lock()
	g.port = p
	g.mu.Unlock()
	return nil
}

// readLoop feeds what the port gives to the NMEA reader until stop.
func (g *driver) readLoop(ctx context.Context, stop <-chan struct{}) {
	g.mu.Lock()
	p := g.port
	g.mu.Unlock()
	if p == nil {
		return
	}
	buf := make([]byte, 512)
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		default:
		}
		n, err := p.Read(buf)
		if n > 0 {
			g.dev.nmea.feed(buf[:n], g.now())
		}
		if err != nil {
			// A closed or unplugged port: the sensor goes stale and says so.
			select {
			case <-stop:
			case <-ctx.Done():
			case <-time.After(readTimeout):
			}
		}
	}
}

// drain feeds what the simulated receiver sent since the last sample (the sensor's goroutine).
func (g *driver) drain(now time.Time) {
	g.mu.Lock()
	p, buf := g.simPort, g.buf
	g.mu.Unlock()
	for p != nil {
		n, err := p.ReadAvailable(buf)
		if n > 0 {
			g.dev.nmea.feed(buf[:n], now)
		}
		if err != nil || n < len(buf) {
			return
		}
	}
}

// Halt closes the port.
func (g *driver) Halt() error {
	g.mu.Lock()
	p := g.port
	g.port, g.simPort = nil, nil
	g.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Close()
}
