package gps

import (
	"math"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers"
)

// FuzzNMEA feeds bytes from a GPS receiver's port (a wire: noise, cut lines, lies): no panic,
// and every fix is a finite position.
func FuzzNMEA(f *testing.F) {
	f.Add([]byte(gga(52.5173, 13.3777, 1, 8, 1.2)+rmc(52.5173, 13.3777, 2, 45)), 7)
	f.Add([]byte("$GPGGA,,,,,,0,00,99.99,,,,,,*48\r\n$GPRMC,,V,,,,,,,,,,N*53\r\n"), 3)
	f.Add([]byte("\x00\xff$GP\n\n\r$GPGGA,1,2,3*00\r\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, chunk int) {
		c := &Config{Origin: &drivers.GeoPoint{Lat: 52.5, Lon: 13.4}}
		c.Defaults(drivers.BoardRaspi)
		g := &device{nmea: &nmeaReader{cfg: c}}
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
