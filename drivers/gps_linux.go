//go:build linux

package drivers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.bug.st/serial"
	"gobot.io/x/gobot/v2"

	"github.com/botd-project/botd/drivers/sim"
)

// gpsReadTimeout bounds one read of a real port, so the reader sees Close within it.
const gpsReadTimeout = 200 * time.Millisecond

// buildGPS builds a GPS device: a driver that opens the port when it starts, a goroutine that
// reads it (a real port; the simulated receiver is drained by the sensor), and a sensor that
// writes the newest fix.
func (r *Robot) buildGPS(d *device, c *GPSConfig) error {
	g := &gpsDevice{nmea: &nmeaReader{cfg: c}}
	drv := &gpsDriver{name: d.name, cfg: c, dev: g, board: d.board, now: r.now}
	d.addDriver(drv, true)
	d.sens = newSensor(d, c.SampleConfig, g.readFix)
	d.detail = g.detail
	if d.board.sim == nil {
		if r.opts.Sync {
			return errors.New("a serial GPS is read by a goroutine of its own, which a robot sampled by its caller (Options.Sync) does not run")
		}
		d.run = drv.readLoop
	}
	return nil
}

// gpsDriver is the Gobot driver of a GPS receiver's serial port.
type gpsDriver struct {
	name  string
	cfg   *GPSConfig
	dev   *gpsDevice
	board *board
	now   func() time.Time

	mu   sync.Mutex
	port serial.Port
	sim  *sim.SerialPort // the simulated receiver's, on a sim board
	buf  []byte
}

var _ gobot.Driver = (*gpsDriver)(nil)

func (g *gpsDriver) Name() string                 { return g.name }
func (g *gpsDriver) SetName(n string)             { g.name = n }
func (g *gpsDriver) Connection() gobot.Connection { return g.board.adaptor }

// Start opens the port at its speed, raw, with a read timeout (on a sim board: the simulated
// receiver's port, which the sensor drains as it samples).
func (g *gpsDriver) Start() error {
	if g.board.sim != nil {
		p, err := g.board.sim.OpenSerial(g.cfg.Port)
		if err != nil {
			return err
		}
		g.mu.Lock()
		g.sim, g.buf = p, make([]byte, 1024)
		g.mu.Unlock()
		g.dev.poll = g.drain
		return nil
	}
	p, err := serial.Open(g.cfg.Port, &serial.Mode{BaudRate: g.cfg.Baud})
	if err != nil {
		return fmt.Errorf("serial port %s: %w", g.cfg.Port, err)
	}
	if err := p.SetReadTimeout(gpsReadTimeout); err != nil {
		_ = p.Close()
		return fmt.Errorf("serial port %s: %w", g.cfg.Port, err)
	}
	g.mu.Lock()
	g.port = p
	g.mu.Unlock()
	return nil
}

// readLoop feeds what the port gives to the NMEA reader until stop.
func (g *gpsDriver) readLoop(ctx context.Context, stop <-chan struct{}) {
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
			case <-time.After(gpsReadTimeout):
			}
		}
	}
}

// drain feeds what the simulated receiver sent since the last sample (the sensor's goroutine).
func (g *gpsDriver) drain(now time.Time) {
	g.mu.Lock()
	p, buf := g.sim, g.buf
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
func (g *gpsDriver) Halt() error {
	g.mu.Lock()
	p := g.port
	g.port, g.sim = nil, nil
	g.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Close()
}
