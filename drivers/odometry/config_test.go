package odometry

import (
	"strings"
	"testing"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
)

// kinds are the kinds an odometry's tests configure: odometry and a
// stand-in drive (wheels), so that the tests need no other family.
func kinds() *drivers.Registry {
	r := drivers.NewRegistry()
	Register(r)
	r.Add(drivers.KindInfo{Name: "wheels", Actuator: true, New: func() drivers.Spec { return &wheels{} }})
	return r
}

// wheels is a drive as odometry sees its section: a drivers.Track.
type wheels struct {
	WheelBase float64 `yaml:"wheel_base"`
}

func (*wheels) Kind() string                        { return "wheels" }
func (*wheels) Defaults(string)                     {}
func (*wheels) Validate(*drivers.Validator, string) {}
func (*wheels) Pins() []drivers.Pin                 { return nil }
func (*wheels) Keys(string) []drivers.Key           { return nil }
func (w *wheels) Track() float64                    { return w.WheelBase }

func parse(t testing.TB, y string) *drivers.Config { return drivertest.Parse(t, kinds(), y) }

// TestOdometryConfig: what an odometry section may say, and what it is told.
func TestOdometryConfig(t *testing.T) {
	const base = `
adaptors: {pi: {kind: raspi}}
devices:
  - {name: base, kind: wheels, wheel_base: 0.16}
`
	cfg := parse(t, base+"  - {name: odom, kind: odometry, encoders: {left: {a: \"13\", b: \"15\"}, right: {a: \"38\"}, ticks_per_rev: 20}, wheel_radius: 0.03}\n")
	o := cfg.Devices[1].Spec.(*Config)
	if o.Drive != "base" || o.TrackWidth != 0.16 || o.IMU != "" || *o.GyroWeight != 0.98 || o.Key != "pose" || o.RateHz != 50 {
		t.Errorf("defaults: %+v", o)
	}
	for _, tc := range []struct{ dev, want string }{
		{`{name: o, kind: odometry, encoders: {left: {a: "13"}, right: {a: "13"}, ticks_per_rev: 20}, wheel_radius: 0.03}`, `devices[1].encoders.right.a: pin "13" is already used`},
		{`{name: o, kind: odometry, encoders: {left: {a: "13"}, right: {a: "15"}, ticks_per_rev: 20}}`, "devices[1].wheel_radius: must be > 0"},
		{`{name: o, kind: odometry, encoders: {left: {a: "13", reverse: true}, right: {a: "15"}, ticks_per_rev: 20}, wheel_radius: 0.03}`, "devices[1].encoders.left.reverse"},
		{`{name: o, kind: odometry, encoders: {left: {a: "2"}, right: {a: "15"}, ticks_per_rev: 20}, wheel_radius: 0.03}`, `devices[1].encoders.left.a: "2" is not a GPIO pin`},
		{`{name: o, kind: odometry, wheel_radius: 0.03}`, "devices[1].wheel_radius: only used with encoders"},
		{`{name: o, kind: odometry, drive: nope}`, `devices[1].drive: no device "nope"`},
		{`{name: o, kind: odometry, imu: base}`, `devices[1].imu: "base" is of kind wheels, not imu`},
		{`{name: o, kind: odometry, gyro_weight: 1.5}`, "devices[1].gyro_weight: must be within [0, 1]"},
	} {
		_, err := kinds().ParseConfig([]byte(base + "  - " + tc.dev + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.dev, err, tc.want)
		}
	}
	_, err := kinds().ParseConfig([]byte("adaptors: {pi: {kind: raspi}}\ndevices:\n  - {name: o, kind: odometry}\n"))
	if err == nil || !strings.Contains(err.Error(), "devices[0].drive: needs a drive device") {
		t.Errorf("odometry without a drive: %v", err)
	}
}
