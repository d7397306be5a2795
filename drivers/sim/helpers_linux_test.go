//go:build linux

package sim_test

import (
	"math"
	"testing"
	"time"

	"gobot.io/x/gobot/v2/drivers/gpio"

	"github.com/botd-project/botd/drivers/sim"
)

// rover is a robot on its board with both motors on real Gobot MotorDrivers, wired as the
// default PinMap says.
type rover struct {
	w           *sim.World
	r           *sim.Robot
	a           *sim.Adaptor
	left, right *gpio.MotorDriver
}

func newRover(t *testing.T, w *sim.World, name string) *rover {
	t.Helper()
	r := w.AddRobot(name, sim.RobotConfig{})
	a := sim.NewAdaptor(r)
	if err := a.Connect(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Finalize(); err != nil {
			t.Errorf("Finalize: %v", err)
		}
	})
	ro := &rover{
		w: w, r: r, a: a,
		left:  gpio.NewMotorDriver(a, "11", gpio.WithMotorDirectionPin("13"), gpio.WithName(name+"-left")),
		right: gpio.NewMotorDriver(a, "15", gpio.WithMotorDirectionPin("16"), gpio.WithName(name+"-right")),
	}
	for _, m := range []*gpio.MotorDriver{ro.left, ro.right} {
		if err := m.Start(); err != nil {
			t.Fatal(err)
		}
	}
	return ro
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func steps(w *sim.World, n int, dt time.Duration) {
	for range n {
		w.Step(dt)
	}
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// wheelSpeed is the default robot's wheel speed at a PWM value.
func wheelSpeed(pwm float64) float64 { return pwm / 255 * sim.DefaultRobotConfig().MaxWheelSpeed }
