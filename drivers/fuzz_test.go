package drivers

import (
	"math"
	"testing"
	"time"
)

// FuzzExtPose feeds mqtt_pose messages (outside input: anything may arrive on the topic): no
// panic, and whatever is accepted is a finite pose with a quality within 0..1.
func FuzzExtPose(f *testing.F) {
	for _, s := range []string{
		`{"x": 1, "y": 2, "heading": 0.5, "ts": 1700000000}`,
		`{"x": 1, "y": 2, "heading": 0.5, "ts": 1700000000.1, "frame": "map", "quality": 0.8, "sigma": 0.01}`,
		`{"x": 1e308, "y": -1e308, "heading": 1e300, "ts": 1e300}`,
		`{"x": 1, "y": 2, "heading": 0.5, "ts": 1700000000, "z": 1}`,
		`[1, 2, 3]`, `null`, `{"x": "1"}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := newPoseRig(t, "")
		g.m.handle(data)
		g.m.handle(data)
		if _, _, _, ok := g.latest(); ok {
			for i, v := range g.vals {
				if math.IsNaN(v) || math.IsInf(v, 0) || i == 3 && (v < 0 || v > 1) {
					t.Fatalf("accepted %q as %v", data, g.vals)
				}
			}
		}
	})
}

// FuzzNMEA feeds bytes from a GPS receiver's port (a wire: noise, cut lines, lies): no panic,
// and every fix is a finite position.
func FuzzNMEA(f *testing.F) {
	f.Add([]byte(gga(52.5173, 13.3777, 1, 8, 1.2)+rmc(52.5173, 13.3777, 2, 45)), 7)
	f.Add([]byte("$GPGGA,,,,,,0,00,99.99,,,,,,*48\r\n$GPRMC,,V,,,,,,,,,,N*53\r\n"), 3)
	f.Add([]byte("\x00\xff$GP\n\n\r$GPGGA,1,2,3*00\r\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, chunk int) {
		c := &GPSConfig{Origin: &GeoPoint{Lat: 52.5, Lon: 13.4}}
		c.Defaults(BoardRaspi)
		g := &gpsDevice{nmea: &nmeaReader{cfg: c}}
		if chunk < 1 {
			chunk = 1
		}
		now := time.Unix(1000, 0)
		for len(data) > 0 {
			n := min(chunk, len(data))
			g.nmea.feed(data[:n], now)
			data = data[n:]
		}
		vals := make([]float64, 9)
		if err := g.readFix(now, vals); err == nil {
			if math.IsNaN(vals[0]) || math.IsNaN(vals[1]) || math.IsInf(vals[0], 0) || math.IsInf(vals[1], 0) {
				t.Fatalf("fix %v", vals)
			}
		}
		_ = g.detail()
	})
}
