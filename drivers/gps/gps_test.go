package gps

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
	"github.com/botd-project/botd/drivers/gpio"
)

// kinds are the gpio family's kinds (a rover to carry the receiver) and gps.
func kinds() *drivers.Registry {
	r := drivers.NewRegistry()
	gpio.Register(r)
	Register(r)
	return r
}

// sentence wraps an NMEA body with its $ and checksum.
func sentence(body string) string {
	var sum byte
	for i := 0; i < len(body); i++ {
		sum ^= body[i]
	}
	return fmt.Sprintf("$%s*%02X\r\n", body, sum)
}

// ddmm writes a latitude or longitude as NMEA's degrees and minutes.
func ddmm(v float64, pos, neg string, degDigits int) string {
	h := pos
	if v < 0 {
		h, v = neg, -v
	}
	d := math.Floor(v)
	return fmt.Sprintf("%0*d%07.4f,%s", degDigits, int(d), (v-d)*60, h)
}

func gga(lat, lon float64, fix, sats int, hdop float64) string {
	return sentence(fmt.Sprintf("GPGGA,120000.00,%s,%s,%d,%02d,%.1f,35.0,M,45.0,M,,", ddmm(lat, "N", "S", 2), ddmm(lon, "E", "W", 3), fix, sats, hdop))
}

func rmc(lat, lon, knots, course float64) string {
	return sentence(fmt.Sprintf("GPRMC,120000.00,A,%s,%s,%.2f,%.1f,241126,,,A", ddmm(lat, "N", "S", 2), ddmm(lon, "E", "W", 3), knots, course))
}

func testConfig(t *testing.T) *Config {
	cfg := drivertest.Parse(t, kinds(), "adaptors: {pi: {kind: raspi}}\ndevices:\n  - {name: gps, kind: gps, origin: {lat: 52.5163, lon: 13.3777}}\n")
	return cfg.Devices[0].Spec.(*Config)
}

func TestNMEAFixes(t *testing.T) {
	c := testConfig(t)
	if c.Port != "/dev/serial0" || c.Baud != 9600 || c.Key != "gps" || c.StaleAfterMs != 3000 {
		t.Errorf("defaults: %+v", c)
	}
	g := &device{nmea: &nmeaReader{cfg: c}}
	now := time.Unix(1000, 0)
	vals := make([]float64, 9)
	read := func() error {
		for i := range vals {
			vals[i] = -1
		}
		return g.readFix(now, vals)
	}
	if err := read(); err != drivers.ErrNoSample {
		t.Fatalf("before any data: %v", err)
	}
	// No fix yet.
	g.nmea.feed([]byte(gga(0, 0, 0, 3, 99)), now)
	if err := read(); err == nil || !strings.Contains(err.Error(), "no fix (3 satellites") {
		t.Fatalf("no fix: %v", err)
	}
	// A fix 111 m north, moving at 2 knots on course 45° (north-east), the lines split across
	// reads as a port gives them.
	lines := rmc(52.5173, 13.3777, 2, 45) + gga(52.5173, 13.3777, 1, 8, 1.2)
	g.nmea.feed([]byte(lines[:30]), now)
	g.nmea.feed([]byte(lines[30:100]), now)
	g.nmea.feed([]byte(lines[100:]), now)
	if err := read(); err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 111.3, math.Pi / 4, 0.4, 1.2 * 3, 2 * 1852.0 / 3600, 1, 8, 1.2}
	for i, w := range want {
		if math.Abs(vals[i]-w) > 0.2 {
			t.Errorf("%s = %v, want %v", c.Keys("")[i].Name, vals[i], w)
		}
	}
	if err := read(); err != drivers.ErrNoSample {
		t.Errorf("the same fix read twice: %v", err)
	}
	// RTK fixed, standing still: the heading is left alone (NaN is not written).
	g.nmea.feed([]byte(rmc(52.5163, 13.3777, 0.1, 300)+gga(52.5163, 13.3777, 4, 14, 0.7)), now)
	if err := read(); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(vals[2]) || vals[3] != 0.95 || math.Abs(vals[4]-0.7*0.02) > 1e-9 {
		t.Errorf("RTK still: heading %v quality %v sigma %v", vals[2], vals[3], vals[4])
	}
	// Poor geometry, then garbage and a bad checksum.
	g.nmea.feed([]byte(gga(52.5163, 13.3777, 1, 4, 9.9)), now)
	if err := read(); err == nil || !strings.Contains(err.Error(), "HDOP 9.9 is above max_hdop 5") {
		t.Errorf("poor HDOP: %v", err)
	}
	g.nmea.feed([]byte("\x00\xffgarbage\r\n$GPGGA,1,2,3*00\r\n"+strings.Repeat("x", 300)), now)
	if d := g.detail(); !strings.Contains(d, "(3 unreadable)") {
		t.Errorf("detail: %s", d)
	}
	// A receiver that sends RMC only.
	now = now.Add(5 * time.Second)
	g.nmea.feed([]byte("\n"+rmc(52.5163, 13.3807, 0, 0)), now)
	if err := read(); err != nil {
		t.Fatal(err)
	}
	if math.Abs(vals[0]-203.6) > 0.5 || vals[6] != 1 || !math.IsNaN(vals[7]) {
		t.Errorf("RMC only: x %v fix %v sats %v", vals[0], vals[6], vals[7])
	}
}

func TestGPSConfig(t *testing.T) {
	for _, tc := range []struct{ dev, want string }{
		{`{name: g, kind: gps}`, "devices[0].origin: missing"},
		{`{name: g, kind: gps, origin: {lat: 95, lon: 0}}`, "devices[0].origin.lat"},
		{`{name: g, kind: gps, origin: {lat: 1, lon: 2}, port: COM3}`, `devices[0].port: "COM3" is not a device path`},
		{`{name: g, kind: gps, origin: {lat: 1, lon: 2}, baud: 1234}`, "devices[0].baud"},
		{`{name: g, kind: gps, origin: {lat: 1, lon: 2}, min_fix: 7}`, "devices[0].min_fix"},
	} {
		_, err := kinds().ParseConfig([]byte("adaptors: {pi: {kind: raspi}}\ndevices:\n  - " + tc.dev + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.dev, err, tc.want)
		}
	}
	// The Pi's UART is header pins 8 and 10: nothing else may use them.
	_, err := kinds().ParseConfig([]byte("adaptors: {pi: {kind: raspi}}\ndevices:\n  - {name: g, kind: gps, origin: {lat: 1, lon: 2}}\n  - {name: l, kind: led, pin: \"10\"}\n"))
	if err == nil || !strings.Contains(err.Error(), `devices[1].pin: pin "10" is already used by devices[0].port`) {
		t.Errorf("LED on the UART's RXD: %v", err)
	}
	// A USB receiver leaves them free.
	drivertest.Parse(t, kinds(), "adaptors: {pi: {kind: raspi}}\ndevices:\n  - {name: g, kind: gps, origin: {lat: 1, lon: 2}, port: /dev/ttyUSB0}\n  - {name: l, kind: led, pin: \"10\"}\n")
}
