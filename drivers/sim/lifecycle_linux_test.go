//go:build linux

package sim_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"gobot.io/x/gobot/v2/drivers/gpio"

	"github.com/botd-project/botd/drivers/sim"
)

// simGoroutines counts goroutines running code of package sim (not its tests).
func simGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "botd/drivers/sim.") {
			n++
		}
	}
	return n
}

// waitSimGoroutines waits until n goroutines run sim code. Goroutines
// only end meanwhile (a timer's callback or a driver's reader of an
// earlier test still finishing, slowly under emulation), so more than n
// for longer than the bound is a goroutine that does not end.
func waitSimGoroutines(t *testing.T, n int, when string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for simGoroutines() != n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%s: %d sim goroutines, want %d:\n%s", when, simGoroutines(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFinalizeStopsGoroutines(t *testing.T) {
	waitSimGoroutines(t, 0, "before the test (earlier tests' goroutines)")
	base := runtime.NumGoroutine()
	w := sim.DefaultWorld()
	a := sim.NewAdaptor(w.AddRobot("r", sim.RobotConfig{}))
	for round := range 2 { // and again after a reconnect
		must(t, a.Connect())
		must(t, a.Connect()) // idempotent
		waitSimGoroutines(t, 1, fmt.Sprintf("round %d, connected (the echo goroutine only)", round))
		sonar := gpio.NewHCSR04Driver(a, "18", "22", gpio.WithName("sonar"))
		must(t, sonar.Start())
		if _, err := sonar.MeasureDistance(); err != nil {
			t.Fatal(err)
		}
		must(t, sonar.Halt())
		must(t, a.Finalize())
		must(t, a.Finalize()) // idempotent
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base || simGoroutines() > 0 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutines %d > baseline %d after Finalize:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFinalizeStopsMotors(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r")
	must(t, ro.left.Forward(255))
	must(t, ro.right.Forward(255))
	must(t, ro.a.Finalize())
	if l, r := ro.r.Wheels(); l != 0 || r != 0 {
		t.Fatalf("wheels after Finalize = %v, %v", l, r)
	}
	if err := ro.left.Forward(10); !errors.Is(err, sim.ErrNotConnected) {
		t.Fatalf("write after Finalize: %v", err)
	}
}

func TestPinErrors(t *testing.T) {
	w := sim.DefaultWorld()
	a := sim.NewAdaptor(w.AddRobot("r", sim.RobotConfig{}), sim.WithName("board"))
	if a.Name() != "board" {
		t.Errorf("Name() = %q", a.Name())
	}
	if err := a.DigitalWrite("7", 1); !errors.Is(err, sim.ErrNotConnected) {
		t.Errorf("write before Connect: %v", err)
	}
	if _, err := a.DigitalPin("22"); !errors.Is(err, sim.ErrNotConnected) {
		t.Errorf("DigitalPin before Connect: %v", err)
	}
	if _, err := a.GetI2cConnection(0x68, 1); !errors.Is(err, sim.ErrNotConnected) {
		t.Errorf("i2c before Connect: %v", err)
	}
	must(t, a.Connect())
	defer a.Finalize()

	for name, err := range map[string]error{
		"digital read of an unknown pin": func() error { _, err := a.DigitalRead("3"); return err }(),
		"analog read of an unknown pin":  func() error { _, err := a.AnalogRead("A1"); return err }(),
	} {
		if !errors.Is(err, sim.ErrUnknownPin) || !strings.Contains(err.Error(), `"`) {
			t.Errorf("%s: %v, want ErrUnknownPin naming the pin", name, err)
		}
	}
	for name, err := range map[string]error{
		"write to the bump input":    a.DigitalWrite("29", 1),
		"write to the echo input":    a.DigitalWrite("22", 1),
		"PWM on a direction pin":     a.PwmWrite("13", 10),
		"servo on a motor speed pin": a.ServoWrite("11", 90),
		"digital read of battery":    func() error { _, err := a.DigitalRead("A0"); return err }(),
	} {
		if !errors.Is(err, sim.ErrPinMode) {
			t.Errorf("%s: %v, want ErrPinMode", name, err)
		}
	}
	if err := a.ServoWrite("32", 200); err == nil {
		t.Error("servo angle 200 accepted")
	}
	if _, ok := a.PinValue("3"); ok {
		t.Error("PinValue of a never-written pin reported ok")
	}
}

func TestDigitalPinActiveLowAndOptions(t *testing.T) {
	w := sim.DefaultWorld()
	a := sim.NewAdaptor(w.AddRobot("r", sim.RobotConfig{}))
	must(t, a.Connect())
	defer a.Finalize()
	p, err := a.DigitalPin("36")
	must(t, err)
	if q, _ := a.DigitalPin("36"); q != p {
		t.Error("DigitalPin returned a different pin for the same id")
	}
	opt, ok := p.(interface {
		SetActiveLow() bool
		SetDirectionOutput(int) bool
	})
	if !ok {
		t.Fatal("pin is not a DigitalPinOptioner")
	}
	opt.SetActiveLow()
	opt.SetDirectionOutput(1)
	must(t, p.ApplyOptions())
	if v, _ := a.PinValue("36"); v != 0 {
		t.Errorf("active-low output initialised high: electrical level %d, want 0", v)
	}
	must(t, p.Write(0))
	if v, _ := a.PinValue("36"); v != 1 {
		t.Errorf("active-low Write(0): electrical level %d, want 1", v)
	}
	if v, err := p.Read(); err != nil || v != 0 {
		t.Errorf("active-low Read() = %d, %v, want 0", v, err)
	}
	must(t, p.Export())
	must(t, p.Unexport())
}
