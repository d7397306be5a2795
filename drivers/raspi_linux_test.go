//go:build linux

package drivers

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/platforms/adaptors"
	"gobot.io/x/gobot/v2/platforms/raspi"
	"gobot.io/x/gobot/v2/system"
)

// TestRaspiConfigBuildsOnTheRaspiAdaptor: configs/rover-raspi.yaml builds every device on
// gobot's real raspi adaptor (nothing is touched before Start: the capabilities each driver
// needs are checked on the adaptor type itself). Start is tried only off a Pi, where it must
// fail cleanly and leave Close working.
func TestRaspiConfigBuildsOnTheRaspiAdaptor(t *testing.T) {
	cfg, err := testKinds().LoadConfig(filepath.Join("..", "configs", "rover-raspi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg, Options{Name: "pi-rover", Sync: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := r.Adaptor("pi")
	if _, ok := a.(*raspi.Adaptor); !ok || a.Name() != "pi" {
		t.Fatalf("board is %T %q", a, a.Name())
	}
	var names []string
	for _, d := range r.Devices() {
		for _, drv := range d.Drivers() {
			names = append(names, fmt.Sprintf("%s(%T)", drv.Name(), drv))
		}
	}
	t.Logf("drivers: %s", strings.Join(names, " "))
	if chips, _ := filepath.Glob("/dev/gpiochip*"); len(chips) > 0 {
		t.Logf("this machine has GPIO chips %v: not starting the rover here", chips)
		return
	}
	err = r.Start(context.Background())
	t.Logf("Start off a Pi: %v", err)
	if err == nil {
		t.Error("Start succeeded without GPIO chips")
	}
	if err := r.Close(); err != nil {
		t.Logf("Close after the failed Start: %v", err)
	}
}

// mockPi is a Raspberry Pi made of the very parts gobot's raspi.Adaptor embeds (digital pins,
// PWM pins through pi-blaster, i2c buses), on gobot's mock system access and with the raspi
// header numbering, so the drivers' writes can be read back. (raspi.Adaptor keeps its system
// access private; LIBRARY-NOTES 4.4.)
type mockPi struct {
	*adaptors.DigitalPinsAdaptor
	*adaptors.PWMPinsAdaptor
	*adaptors.I2cBusAdaptor
	name string
	pins interface {
		Written(chip, pin string) []int
		UseValues(chip, pin string, values []int)
	}
	bus *i2cBusModel // the chips on i2c bus 1

	tapMu sync.Mutex
	taps  map[string]*pinTap
}

func newMockPi(pwm ...adaptors.PwmPinsOptionApplier) *mockPi {
	sys := system.NewAccesser()
	header := func(pin string) (string, int, error) {
		bcm, ok := piHeader[pin]
		if !ok {
			return "", 0, fmt.Errorf("'%s' is not a valid pin id for raspi", pin)
		}
		return "gpiochip0", bcm, nil
	}
	m := &mockPi{name: "pi", taps: map[string]*pinTap{}}
	m.DigitalPinsAdaptor = adaptors.NewDigitalPinsAdaptor(sys, header)
	m.PWMPinsAdaptor = adaptors.NewPWMPinsAdaptor(sys, header, pwm...)
	m.I2cBusAdaptor = adaptors.NewI2cBusAdaptor(sys, adaptors.NewBusNumberValidator([]int{0, 1}).Validate, 1)
	sys.UseMockFilesystem([]string{"/dev/pi-blaster", "/dev/i2c-1"})
	m.pins = sys.UseMockDigitalPinAccess()
	ms := sys.UseMockSyscall()
	m.bus = &i2cBusModel{devs: map[int]smbusDevice{}, addr: mockAddress(ms)}
	ms.Impl = m.bus.ioctl
	return m
}

func (m *mockPi) Name() string     { return m.name }
func (m *mockPi) SetName(n string) { m.name = n }

func (m *mockPi) Connect() error {
	for _, c := range []func() error{m.I2cBusAdaptor.Connect, m.PWMPinsAdaptor.Connect, m.DigitalPinsAdaptor.Connect} {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

func (m *mockPi) Finalize() error {
	m.tapMu.Lock()
	m.taps = map[string]*pinTap{} // the adaptor's pins are released: new ones after a Connect
	m.tapMu.Unlock()
	return joinErrs(m.DigitalPinsAdaptor.Finalize(), m.PWMPinsAdaptor.Finalize(), m.I2cBusAdaptor.Finalize())
}

func joinErrs(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// level is the last level written to a header pin (-1: never written).
func (m *mockPi) level(header string) int {
	w := m.pins.Written("gpiochip0", fmt.Sprint(piHeader[header]))
	if len(w) == 0 {
		return -1
	}
	return w[len(w)-1]
}

// duty is a PWM pin's duty cycle as a fraction of its period.
func (m *mockPi) duty(t testing.TB, header string) float64 {
	t.Helper()
	p, err := m.PWMPin(header)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := p.DutyCycle()
	per, _ := p.Period()
	return float64(d) / float64(per)
}

// TestRaspiWiring drives the rover-raspi wiring (minus the i2c devices: TestRaspiPatrol has
// them) on the mock Pi: safe at start, a Drive command, an e-stop.
func TestRaspiWiring(t *testing.T) {
	cfg, err := testKinds().LoadConfig(filepath.Join("..", "configs", "rover-raspi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var keep []*DeviceConfig
	for _, d := range cfg.Devices {
		if o, ok := TestOdometry(d.Spec); ok {
			*o.IMU = "none" // the wheels alone: no IMU here
		}
		if d.Kind != "imu" && d.Kind != "battery" {
			keep = append(keep, d)
		}
	}
	cfg.Devices = keep
	pi := newMockPi(raspiPWMOptions(cfg, "pi")...)
	r, err := Build(cfg, Options{Name: "pi-rover", Sync: true, Logger: quiet,
		NewBoard: func(string, *AdaptorConfig) (gobot.Adaptor, error) { return pi, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Safe: both bridges off (speed 0, both direction pins low), LED off, servo at 90°
	// (1.5 ms of pi-blaster's 10 ms period).
	want := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check := func(phase string, speed, fwd, bwd float64) {
		t.Helper()
		for _, side := range []struct{ speed, fwd, bwd string }{{"32", "29", "31"}, {"33", "35", "37"}} {
			want(phase+" duty on "+side.speed, pi.duty(t, side.speed), speed)
			want(phase+" forward "+side.fwd, float64(pi.level(side.fwd)), fwd)
			want(phase+" backward "+side.bwd, float64(pi.level(side.bwd)), bwd)
		}
	}
	check("start", 0, 0, 0)
	want("LED", float64(pi.level("7")), 0)
	want("servo", pi.duty(t, "12"), 0.15)

	if err := TestDrive(r, "base", owner{}, 0.3, 0, false); err != nil {
		t.Fatal(err)
	}
	if err := r.Apply(); err != nil {
		t.Fatal(err)
	}
	check("forward", 128.0/255, 1, 0) // 0.3 m/s is half the top wheel speed: PWM 128 of 255
	if err := r.EStop("test"); err != nil {
		t.Fatal(err)
	}
	check("e-stop", 0, 0, 0)
	if err := r.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := os.Stat("/dev/pi-blaster"); err == nil {
		t.Log("note: this machine has a real /dev/pi-blaster; the test used the mock")
	}
}

// TestRaspiStartRefusesAWrongIMU: an IMU that is missing, or another chip answering at its
// address (a DS3231 clock sits at 0x68 on many Pi boards), fails Start with the device's place
// in the config, before gobot's driver writes to it; the motors started before it stay in
// their safe state, and Close leaves them there.
func TestRaspiStartRefusesAWrongIMU(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(g *piRig)
		want string
	}{
		{"missing", func(g *piRig) { g.pi.bus.set(0x68, nil) }, "nothing answers at 0x68 on i2c bus 1"},
		{"a clock chip", func(g *piRig) { g.imu.whoAmI = 0x00 }, "answers WHO_AM_I with 0x00: not an MPU6050"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := buildPiRig(t, parse(t, piOdometry))
			tc.set(g)
			err := g.robot.Start(context.Background())
			if err == nil || !strings.Contains(err.Error(), `devices[1] (imu "imu")`) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Start: %v", err)
			}
			t.Logf("Start: %v", err)
			if g.imu.regs[0x6B] != 0x40 {
				t.Errorf("the driver wrote PWR_MGMT_1 = %#x to the chip", g.imu.regs[0x6B])
			}
			check := func(when string) {
				for _, side := range []string{"32", "33"} {
					if when == "after Close" {
						break // the PWM pins are released: the direction pins tell
					}
					if d := g.pi.duty(t, side); d != 0 {
						t.Errorf("%s: duty on %s = %v", when, side, d)
					}
				}
				for _, p := range []string{"29", "31", "35", "37"} {
					if l := g.pi.level(p); l != 0 {
						t.Errorf("%s: direction pin %s = %d", when, p, l)
					}
				}
			}
			check("after the failed Start")
			if f := fmt.Sprint(g.robot.Faults()); !strings.Contains(f, "DRIVER_ERROR") {
				t.Errorf("faults: %s", f)
			}
			_ = g.robot.Close()
			check("after Close")
		})
	}
}
