// Package gps is the GPS family: a receiver speaking NMEA 0183 on a serial port (on the sim
// board, the simulated receiver's port), its fixes converted to the mission's local frame
// around an origin. It writes a pose, so a fence takes its origin and key (GeoReferenced). Add
// it to a drivers.Registry with Register.
package gps

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	nmea "github.com/adrianmo/go-nmea"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
)

// Kind is an NMEA 0183 GPS receiver.
const Kind = "gps"

// Register adds the gps kind to r.
func Register(r *drivers.Registry) {
	r.Add(drivers.KindInfo{Name: Kind, Doc: "an NMEA 0183 GPS receiver on a serial port",
		New: func() drivers.Spec { return &Config{} }, Build: build})
}

// Config is a GPS receiver speaking NMEA 0183 on a serial port (a u-blox NEO-6M/M8N on the
// Pi's UART, a USB receiver), for rovers outdoors. Fixes are converted to the mission's local
// frame around Origin: x east, y north, in metres (a tangent plane on the WGS84 ellipsoid,
// good to a few centimetres within a kilometre); heading is the course over ground while the
// rover moves faster than min_speed (and is left alone below it), counter-clockwise from east.
// It writes, under its key (default "gps"): x, y, heading, quality (by fix: 0.95 RTK fixed,
// 0.8 RTK float, 0.6 DGPS, 0.4 GPS), sigma (m: HDOP times the fix's typical error), speed
// (m/s), fix (the GGA fix quality), sats and hdop. On the sim board the port is the simulated
// receiver's.
type Config struct {
	// Port is the serial device (default /dev/serial0, the Pi's UART on header pins 8 and 10).
	Port string `yaml:"port,omitempty"`
	// Baud is the port's speed (default 9600, what most receivers start at).
	Baud int `yaml:"baud,omitempty"`
	// Origin is where the local frame's (0, 0) is.
	Origin *drivers.GeoPoint `yaml:"origin"`
	// MinFix is the GGA fix quality a fix needs (default 1: GPS; 2 DGPS, 4 RTK fixed, 5 RTK
	// float); MaxHDOP the worst horizontal dilution accepted (default 5).
	MinFix  int     `yaml:"min_fix,omitempty"`
	MaxHDOP float64 `yaml:"max_hdop,omitempty"`
	// MinSpeed is the speed over ground above which the course is the heading, m/s
	// (default 0.2).
	MinSpeed             float64 `yaml:"min_speed,omitempty"`
	drivers.SampleConfig `yaml:",inline"`
}

// Kind implements drivers.Spec.
func (*Config) Kind() string { return Kind }

// Defaults implements drivers.Spec.
func (c *Config) Defaults(board string) {
	if c.Port == "" && board != drivers.BoardFirmata {
		c.Port = "/dev/serial0"
	}
	if c.Baud == 0 {
		c.Baud = 9600
	}
	if c.MinFix == 0 {
		c.MinFix = 1
	}
	if c.MaxHDOP == 0 {
		c.MaxHDOP = 5
	}
	if c.MinSpeed == 0 {
		c.MinSpeed = 0.2
	}
	if c.StaleAfterMs == 0 {
		c.StaleAfterMs = 3000 // receivers send a fix a second
	}
	c.SampleConfig.SetDefaults("gps", 5)
}

// Validate implements drivers.Spec.
func (c *Config) Validate(v *drivers.Validator, path string) {
	if c.Origin == nil {
		v.Errorf(path+".origin", "missing: the latitude and longitude of the local frame's (0, 0), e.g. {lat: 52.5163, lon: 13.3777}")
	} else {
		v.Within(path+".origin.lat", c.Origin.Lat, -89, 89)
		v.Within(path+".origin.lon", c.Origin.Lon, -180, 180)
	}
	if !strings.HasPrefix(c.Port, "/") {
		v.Errorf(path+".port", "%q is not a device path (e.g. /dev/serial0, /dev/ttyUSB0)", c.Port)
	}
	switch c.Baud {
	case 4800, 9600, 19200, 38400, 57600, 115200, 230400:
	default:
		v.Errorf(path+".baud", "%d is not a serial speed receivers use (4800, 9600, ..., 230400)", c.Baud)
	}
	if c.MinFix < 1 || c.MinFix > 5 {
		v.Errorf(path+".min_fix", "must be 1..5 (got %d)", c.MinFix)
	}
	v.Positive(path+".max_hdop", c.MaxHDOP)
	v.Positive(path+".min_speed", c.MinSpeed)
	c.SampleConfig.Check(v, path)
}

// piUART is the Pi's serial port on the header: TXD on pin 8, RXD on pin 10.
var piUART = map[string]bool{"/dev/serial0": true, "/dev/ttyAMA0": true, "/dev/ttyS0": true}

// Pins implements drivers.Spec: the Pi's UART pins when the port is the UART.
func (c *Config) Pins() []drivers.Pin {
	if !piUART[c.Port] {
		return nil
	}
	return []drivers.Pin{{Field: "port", Pin: "8", Mode: drivers.PinUART}, {Field: "port", Pin: "10", Mode: drivers.PinUART}}
}

// gpsKeys are what a GPS writes beyond a pose: drivers.PoseKeys, then these.
var gpsKeys = [...]string{"speed", "fix", "sats", "hdop"}

// Keys implements drivers.Spec.
func (c *Config) Keys(string) []drivers.Key {
	out := make([]drivers.Key, 0, len(drivers.PoseKeys)+len(gpsKeys))
	for _, k := range drivers.PoseKeys {
		out = append(out, drivers.Key{Name: c.Key + "." + k})
	}
	for _, k := range gpsKeys {
		out = append(out, drivers.Key{Name: c.Key + "." + k})
	}
	return out
}

// fixQuality maps a GGA fix quality to the pose quality and the typical horizontal error per
// unit of HDOP (m).
func fixQuality(fix int) (quality, uere float64) {
	switch fix {
	case 4:
		return 0.95, 0.02
	case 5:
		return 0.8, 0.3
	case 2:
		return 0.6, 1
	case 1, 3:
		return 0.4, 3
	}
	return 0, 0
}

// fixState is the receiver's latest state, built from GGA (position, fix, satellites, HDOP) and
// RMC (speed and course; position too for receivers that send no GGA).
type fixState struct {
	x, y      float64
	fix, sats int
	hdop      float64
	speed     float64 // m/s
	course    float64 // rad, counter-clockwise from east; NaN: not moving
}

// nmeaReader turns the bytes of a receiver into fixes. feed runs on the goroutine that reads
// the port (or the sensor's, for the simulated receiver); fix on the sensor's.
type nmeaReader struct {
	cfg *Config

	mu       sync.Mutex
	line     []byte
	fix      fixState
	seq      uint64 // fixes made
	lastGGA  time.Time
	speed    float64
	course   float64
	rmcAt    time.Time
	err      error // the latest state is not a usable fix, and why
	lines    uint64
	bad      uint64 // sentences that did not parse (checksum, garbage)
	lastLine string
}

// maxNMEALine: NMEA sentences are at most 82 characters; longer lines are noise.
const maxNMEALine = 120

// feed takes bytes from the port, at now.
func (r *nmeaReader) feed(p []byte, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.line = append(r.line, p...)
			if len(r.line) > maxNMEALine {
				r.line = r.line[:0]
				r.bad++
			}
			return
		}
		r.line = append(r.line, p[:i]...)
		p = p[i+1:]
		line := strings.TrimSpace(string(r.line))
		r.line = r.line[:0]
		if line != "" {
			r.sentence(line, now)
		}
	}
}

// sentence handles one line; the caller holds r.mu.
func (r *nmeaReader) sentence(line string, now time.Time) {
	r.lines++
	r.lastLine = line
	var s nmea.Sentence
	err := guard(func() (err error) { s, err = nmea.Parse(line); return err }) // bytes from a wire: no panic may take botd down
	if err != nil {
		r.bad++
		return
	}
	switch m := s.(type) {
	case nmea.GGA:
		fix := 0
		fmt.Sscan(m.FixQuality, &fix)
		r.lastGGA = now
		r.position(m.Latitude, m.Longitude, fix, int(m.NumSatellites), m.HDOP, now)
	case nmea.RMC:
		r.speed = m.Speed * 1852.0 / 3600 // knots
		r.course = math.NaN()
		if r.speed >= r.cfg.MinSpeed {
			r.course = drivers.WrapAngle(math.Pi/2 - m.Course*math.Pi/180)
		}
		r.rmcAt = now
		if now.Sub(r.lastGGA) > 2*time.Second { // a receiver that sends no GGA
			fix := 0
			if m.Validity == nmea.ValidRMC {
				fix = 1
			}
			r.position(m.Latitude, m.Longitude, fix, -1, math.NaN(), now)
		}
	}
}

// guard runs f, turning a panic into an error.
func guard(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("driver panic: %v", v)
		}
	}()
	return f()
}

// position makes a fix; the caller holds r.mu.
func (r *nmeaReader) position(lat, lon float64, fix, sats int, hdop float64, now time.Time) {
	c := r.cfg
	switch {
	case fix == 0:
		r.err = fmt.Errorf("no fix (%d satellites in use)", max(sats, 0))
		return
	case fix < c.MinFix:
		r.err = fmt.Errorf("fix quality %d is below min_fix %d", fix, c.MinFix)
		return
	case hdop > c.MaxHDOP:
		r.err = fmt.Errorf("HDOP %.1f is above max_hdop %v (%d satellites)", hdop, c.MaxHDOP, sats)
		return
	}
	r.err = nil
	f := fixState{fix: fix, sats: sats, hdop: hdop, speed: math.NaN(), course: math.NaN()}
	f.x, f.y = c.Origin.ToLocal(lat, lon)
	if now.Sub(r.rmcAt) <= 1500*time.Millisecond {
		f.speed, f.course = r.speed, r.course
	}
	r.fix = f
	r.seq++
}

// errNoGPSData: nothing has come from the receiver yet.
var errNoGPSData = errors.New("no NMEA sentences from the receiver yet")

// device reads a receiver: the sensor writes its newest fix.
type device struct {
	nmea *nmeaReader
	read uint64
	poll func(now time.Time) // drains a port read on the sensor's goroutine (the sim's), or nil
}

// readFix writes the newest fix; drivers.ErrNoSample when there is none since the last read, the
// reason when the receiver has no usable fix.
func (g *device) readFix(now time.Time, vals []float64) error {
	if g.poll != nil {
		g.poll(now)
	}
	r := g.nmea
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	if r.seq == g.read {
		return drivers.ErrNoSample // the stale check reports a receiver that stays silent
	}
	g.read = r.seq
	f := r.fix
	q, uere := fixQuality(f.fix)
	vals[0], vals[1], vals[2] = f.x, f.y, f.course
	vals[3], vals[4] = q, f.hdop*uere
	vals[5], vals[6], vals[7], vals[8] = f.speed, float64(f.fix), float64(f.sats), f.hdop
	if f.sats < 0 {
		vals[7] = math.NaN()
	}
	return nil
}

// detail says what the receiver sent.
func (g *device) detail() string {
	r := g.nmea
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lines == 0 {
		return errNoGPSData.Error()
	}
	s := fmt.Sprintf("%d NMEA sentences (%d unreadable), %d fixes", r.lines, r.bad, r.seq)
	if r.err != nil {
		s += "; " + r.err.Error()
	}
	return s + "; last: " + r.lastLine
}

// PoseKey implements drivers.PoseSource: a GPS is a pose source only when it writes one ("pose").
func (c *Config) PoseKey() string {
	if c.Key == "pose" {
		return c.Key
	}
	return ""
}

// GeoFrame implements drivers.GeoReferenced.
func (c *Config) GeoFrame() (*drivers.GeoPoint, string) { return c.Origin, c.Key }

// WireSim implements drivers.SimPart: the simulated receiver sends on Port at the sample rate.
func (c *Config) WireSim(rc *sim.RobotConfig) {
	rc.GPS = sim.GPSConfig{Port: c.Port, RateHz: math.Max(c.RateHz, 1)}
	if c.Origin != nil {
		rc.GPS.Lat, rc.GPS.Lon = c.Origin.Lat, c.Origin.Lon
	}
}

// CheckSim implements drivers.SimPart: the simulated robot has one receiver.
func (c *Config) CheckSim(v *drivers.Validator, path string, seen map[string]string) {
	drivers.SimOnce(v, seen, Kind, path, ".kind", Kind)
}

// BoardProblem implements drivers.BoardLimited.
func (c *Config) BoardProblem(board string) string {
	if board == drivers.BoardFirmata {
		return "a GPS receiver is read on a serial port of the computer botd runs on: put it on a raspi board"
	}
	return ""
}
