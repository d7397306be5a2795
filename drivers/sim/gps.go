package sim

import (
	"fmt"
	"math"
	"time"
)

// The GPS receiver: at each of its periods World.Step writes an RMC and a GGA sentence (NMEA
// 0183, as a u-blox receiver sends them) for the robot's true position plus noise, converted
// to latitude and longitude around the yard's origin, into the bytes its serial port holds.

// gpsBuffer is how many bytes the receiver's port holds unread; older ones are lost, as a
// UART overruns.
const gpsBuffer = 4096

type gpsState struct {
	next time.Duration // when the next fix is sent
	buf  []byte
	lost uint64
}

// WGS84, the same ellipsoid the drivers' GPS kind projects on.
const (
	wgs84A  = 6378137.0
	wgs84E2 = 6.69437999014e-3
)

// toGeo is the inverse of the drivers' local frame: metres east and north of (lat0, lon0) on
// the tangent plane to degrees.
func toGeo(lat0, lon0, x, y float64) (lat, lon float64) {
	phi := lat0 * math.Pi / 180
	s := math.Sin(phi)
	w := math.Sqrt(1 - wgs84E2*s*s)
	n := wgs84A / w
	m := wgs84A * (1 - wgs84E2) / (w * w * w)
	return lat0 + y/m*180/math.Pi, lon0 + x/(n*math.Cos(phi))*180/math.Pi
}

// stepGPS sends the fixes that fell due in the last step; the caller holds w.mu.
func (r *Robot) stepGPS() {
	g := r.cfg.GPS
	if g.Port == "" {
		return
	}
	period := time.Duration(float64(time.Second) / g.RateHz)
	for r.gps.next <= r.w.elapsed {
		at := r.gps.next
		r.gps.next += period
		if f := r.faults[SensorGPS]; f.silent || f.err != nil {
			continue
		}
		x, y := r.x, r.y
		if n := r.cfg.Noise.GPS; n > 0 {
			x += n * r.rng.NormFloat64()
			y += n * r.rng.NormFloat64()
		}
		lat, lon := toGeo(g.Lat, g.Lon, x, y)
		clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC).Add(at)
		hms := clock.Format("150405.00")
		knots := math.Abs(r.v) * 3600 / 1852
		course := math.Mod(450-r.heading*180/math.Pi, 360) // compass degrees
		if r.v < 0 {
			course = math.Mod(course+180, 360)
		}
		r.sendNMEA(fmt.Sprintf("GPRMC,%s,A,%s,%s,%.3f,%.1f,%s,,,A", hms, nmeaAngle(lat, "N", "S", 2), nmeaAngle(lon, "E", "W", 3), knots, course, clock.Format("020106")))
		r.sendNMEA(fmt.Sprintf("GPGGA,%s,%s,%s,%d,09,1.0,35.0,M,45.0,M,,", hms, nmeaAngle(lat, "N", "S", 2), nmeaAngle(lon, "E", "W", 3), g.Fix))
	}
}

// nmeaAngle writes degrees as NMEA's (d)ddmm.mmmmmm with its hemisphere.
func nmeaAngle(v float64, pos, neg string, degDigits int) string {
	h := pos
	if v < 0 {
		h, v = neg, -v
	}
	d := math.Floor(v)
	return fmt.Sprintf("%0*d%09.6f,%s", degDigits, int(d), (v-d)*60, h)
}

// sendNMEA puts a sentence with its checksum on the port; the caller holds w.mu.
func (r *Robot) sendNMEA(body string) {
	var sum byte
	for i := 0; i < len(body); i++ {
		sum ^= body[i]
	}
	line := fmt.Sprintf("$%s*%02X\r\n", body, sum)
	r.gps.buf = append(r.gps.buf, line...)
	if over := len(r.gps.buf) - gpsBuffer; over > 0 {
		r.gps.buf = append(r.gps.buf[:0], r.gps.buf[over:]...)
		r.gps.lost += uint64(over)
	}
}

// SerialPort is the simulated GPS receiver's serial port (Adaptor.OpenSerial). It is read
// without waiting: time moves only in World.Step, so a reader takes what is there.
type SerialPort struct {
	a    *Adaptor
	name string
}

// OpenSerial opens the serial port of the robot's GPS receiver (RobotConfig.GPS.Port).
func (a *Adaptor) OpenSerial(port string) (*SerialPort, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.checkConnected("open serial", port); err != nil {
		return nil, err
	}
	if port == "" || port != a.robot.cfg.GPS.Port {
		return nil, fmt.Errorf("sim: serial port %q: %w (the GPS receiver is on %q)", port, ErrUnknownPin, a.robot.cfg.GPS.Port)
	}
	return &SerialPort{a: a, name: port}, nil
}

// ReadAvailable copies the bytes the receiver has sent since the last read (at most len(p))
// and returns how many; 0 when there are none.
func (p *SerialPort) ReadAvailable(buf []byte) (int, error) {
	p.a.mu.Lock()
	connected := p.a.connected
	p.a.mu.Unlock()
	if !connected {
		return 0, fmt.Errorf("sim: serial port %s: %w", p.name, ErrNotConnected)
	}
	r := p.a.robot
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	n := copy(buf, r.gps.buf)
	r.gps.buf = append(r.gps.buf[:0], r.gps.buf[n:]...)
	return n, nil
}

// Close does nothing: the port belongs to the board.
func (p *SerialPort) Close() error { return nil }
