//go:build linux

package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"gobot.io/x/gobot/v2/drivers/gpio"

	"github.com/botd-project/botd/drivers/sim"
)

func TestMotorForward(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	must(t, ro.left.Forward(200))
	must(t, ro.right.Forward(200))
	if v, _ := ro.a.PinValue("11"); v != 200 {
		t.Errorf("speed pin 11 = %d, want 200", v)
	}
	if v, _ := ro.a.PinValue("13"); v != 1 {
		t.Errorf("direction pin 13 = %d, want 1", v)
	}
	steps(ro.w, 10, 100*time.Millisecond)

	x, y, h := ro.r.Pose()
	want := wheelSpeed(200) * 1.0 // 0.3922 m in 1 s
	if !near(x, want, 1e-9) || !near(y, 0, 1e-12) || !near(h, 0, 1e-12) {
		t.Fatalf("pose after 1 s at PWM 200 = (%v, %v, %v), want (%v, 0, 0)", x, y, h, want)
	}
	t.Logf("forward 1 s at PWM 200: x = %.6f m", x)
	if v, w := ro.r.Velocity(); !near(v, wheelSpeed(200), 1e-9) || w != 0 {
		t.Errorf("Velocity() = %v, %v", v, w)
	}

	must(t, ro.left.Backward(100))
	must(t, ro.right.Backward(100))
	steps(ro.w, 5, 100*time.Millisecond)
	x2, _, _ := ro.r.Pose()
	if !near(x2, want-wheelSpeed(100)*0.5, 1e-9) {
		t.Fatalf("after backing 0.5 s at PWM 100: x = %v, want %v", x2, want-wheelSpeed(100)*0.5)
	}

	must(t, ro.left.Off())
	must(t, ro.right.Off())
	steps(ro.w, 5, 100*time.Millisecond)
	if x3, _, _ := ro.r.Pose(); x3 != x2 {
		t.Fatalf("robot moved with motors off: %v -> %v", x2, x3)
	}
	if got := ro.r.Odometer(); !near(got, want+wheelSpeed(100)*0.5, 1e-9) {
		t.Errorf("Odometer() = %v", got)
	}
}

func TestRotateInPlace(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	must(t, ro.left.Backward(200))
	must(t, ro.right.Forward(200))
	steps(ro.w, 4, 100*time.Millisecond)

	x, y, h := ro.r.Pose()
	want := 2 * wheelSpeed(200) / sim.DefaultRobotConfig().WheelBase * 0.4 // 1.5686 rad
	if !near(h, want, 1e-9) || !near(x, 0, 1e-9) || !near(y, 0, 1e-9) {
		t.Fatalf("pose after 0.4 s spin = (%v, %v, %v), want (0, 0, %v)", x, y, h, want)
	}
	t.Logf("spin 0.4 s at PWM ±200: heading = %.6f rad (%.2f°)", h, h*180/math.Pi)
	if ro.r.Heading() != h {
		t.Error("Heading() differs from Pose()")
	}
}

func TestMotorDigitalModeAndForwardBackwardPins(t *testing.T) {
	w := sim.DefaultWorld()
	r := w.AddRobot("pair", sim.RobotConfig{Pins: sim.PinMap{
		LeftForward: "31", LeftBackward: "33", RightForward: "35", RightBackward: "37",
	}})
	a := sim.NewAdaptor(r)
	must(t, a.Connect())
	defer a.Finalize()
	left := gpio.NewMotorDriver(a, "11", gpio.WithMotorForwardPin("31"), gpio.WithMotorBackwardPin("33"), gpio.WithName("l"))
	right := gpio.NewMotorDriver(a, "15", gpio.WithMotorForwardPin("35"), gpio.WithMotorBackwardPin("37"), gpio.WithName("r"))
	must(t, left.On()) // digital mode: forward pin high, speed pin PWM 255
	must(t, right.On())
	if l, rr := r.Wheels(); l != 1 || rr != 1 {
		t.Fatalf("On() in digital mode: wheels = %v, %v, want 1, 1", l, rr)
	}
	must(t, left.Off()) // direction "none": both pins low
	if l, _ := r.Wheels(); l != 0 {
		t.Fatalf("Off(): left wheel = %v, want 0", l)
	}
	must(t, left.Backward(255))
	if l, _ := r.Wheels(); l != -1 {
		t.Fatalf("Backward(255): left wheel = %v, want -1", l)
	}

	// Digital mode without forward pins writes the speed pin itself.
	r2 := w.AddRobot("plain", sim.RobotConfig{})
	a2 := sim.NewAdaptor(r2)
	must(t, a2.Connect())
	defer a2.Finalize()
	m := gpio.NewMotorDriver(a2, "11", gpio.WithName("m"))
	must(t, m.On())
	if l, _ := r2.Wheels(); l != 1 {
		t.Fatalf("digital On(): wheel = %v, want 1", l)
	}
	must(t, m.Off())
	if l, _ := r2.Wheels(); l != 0 {
		t.Fatalf("digital Off(): wheel = %v, want 0", l)
	}
}

func TestServoAndLED(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	servo := gpio.NewServoDriver(ro.a, "32", gpio.WithName("gripper"))
	must(t, servo.Start())
	must(t, servo.Move(45))
	if got, ok := ro.a.ServoAngle("32"); !ok || got != 45 {
		t.Fatalf("ServoAngle(32) = %d, %v, want 45", got, ok)
	}
	if servo.Move(181) == nil {
		t.Error("Move(181) succeeded")
	}

	led := gpio.NewLedDriver(ro.a, "7", gpio.WithName("status"))
	relay := gpio.NewRelayDriver(ro.a, "38", gpio.WithName("pump"))
	buzzer := gpio.NewBuzzerDriver(ro.a, "40", gpio.WithName("horn"))
	for _, d := range []interface{ Start() error }{led, relay, buzzer} {
		must(t, d.Start())
	}
	pin := func(p string) int {
		t.Helper()
		v, ok := ro.a.PinValue(p)
		if !ok {
			t.Fatalf("pin %s never written", p)
		}
		return v
	}
	must(t, led.On())
	if pin("7") != 1 {
		t.Error("LED On not recorded")
	}
	must(t, led.Off())
	if pin("7") != 0 {
		t.Error("LED Off not recorded")
	}
	must(t, led.Toggle())
	if pin("7") != 1 || !led.State() {
		t.Error("LED Toggle not recorded")
	}
	must(t, led.Brightness(128))
	if pin("7") != 128 {
		t.Error("LED Brightness not recorded")
	}
	must(t, relay.On())
	must(t, buzzer.On())
	if pin("38") != 1 || pin("40") != 1 {
		t.Error("relay/buzzer On not recorded")
	}
	if v, err := ro.a.DigitalRead("38"); err != nil || v != 1 {
		t.Errorf("reading back an output pin = %d, %v", v, err)
	}
}

func TestSonarPanServo(t *testing.T) {
	w := sim.DefaultWorld()
	r := w.AddRobot("r", sim.RobotConfig{Pins: sim.PinMap{SonarPan: "12"}})
	a := sim.NewAdaptor(r)
	must(t, a.Connect())
	defer a.Finalize()
	pan := gpio.NewServoDriver(a, "12", gpio.WithName("pan"))
	must(t, pan.Start())
	must(t, pan.ToCenter())
	if d, _ := r.SonarRange(); !near(d, 2.85, 1e-9) {
		t.Fatalf("centred sonar sees %v, want the crate at 2.85", d)
	}
	must(t, pan.Move(180)) // look left: the north wall 8 m away is out of range
	if _, ok := r.SonarRange(); ok {
		t.Fatal("sonar panned left still sees something within 4 m")
	}
	must(t, pan.ToMin()) // look right: the south wall, 2 m minus the body
	if d, _ := r.SonarRange(); !near(d, 1.85, 1e-9) {
		t.Fatalf("sonar panned right sees %v, want 1.85", d)
	}
}

func TestCollisionBumpStopsMotion(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	ro.r.SetPose(2, 0, 0) // facing the crate, whose face is at x = 3.0
	if v, err := ro.a.DigitalRead("29"); err != nil || v != 0 {
		t.Fatalf("bump before driving = %d, %v", v, err)
	}
	must(t, ro.left.Forward(255))
	must(t, ro.right.Forward(255))
	steps(ro.w, 40, 100*time.Millisecond) // 2 m of commanded travel, 0.85 m of room

	x, y, h := ro.r.Pose()
	stop := 3.0 - sim.DefaultRobotConfig().Radius
	if !near(x, stop, 1e-6) || y != 0 || h != 0 {
		t.Fatalf("pose against the crate = (%v, %v, %v), want x = %v", x, y, h, stop)
	}
	if v, err := ro.a.DigitalRead("29"); err != nil || v != 1 {
		t.Fatalf("bump against the crate = %d, %v, want 1", v, err)
	}
	if v, _ := ro.r.Velocity(); v != 0 {
		t.Errorf("speed while pushing the crate = %v, want 0", v)
	}

	// Turning in place against the crate is allowed (round body); backing off releases the bump.
	must(t, ro.left.Backward(255))
	must(t, ro.right.Backward(255))
	ro.w.Step(100 * time.Millisecond)
	if x2, _, _ := ro.r.Pose(); !near(x2, stop-wheelSpeed(255)*0.1, 1e-6) {
		t.Fatalf("backing off: x = %v", x2)
	}
	if v, _ := ro.a.DigitalRead("29"); v != 0 {
		t.Fatal("bump still pressed after backing off")
	}

	ro.r.FailSensor(sim.SensorBump, nil)
	if _, err := ro.a.DigitalRead("29"); !errors.Is(err, sim.ErrSensorFault) {
		t.Fatalf("failed bump read error = %v", err)
	}
	ro.r.RestoreSensor(sim.SensorBump)
}

func TestWallsHoldTheRobotIn(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	ro.r.SetPose(0, 0, math.Pi) // facing the west wall at x = -2
	must(t, ro.left.Forward(255))
	must(t, ro.right.Forward(255))
	ro.w.Step(time.Minute) // one huge step must not tunnel through the wall
	if x, _, _ := ro.r.Pose(); !near(x, -2+0.15, 1e-6) || !ro.r.Bumped() {
		t.Fatalf("after a minute into the west wall: x = %v, bumped = %v", x, ro.r.Bumped())
	}
}

func TestTwoRobotsOneWorld(t *testing.T) {
	w := sim.DefaultWorld()
	a := newRover(t, w, "alpha")
	b := newRover(t, w, "bravo")
	b.r.SetPose(0, 2, -math.Pi/2)
	must(t, a.left.Forward(200))
	must(t, a.right.Forward(200))
	must(t, b.left.Forward(100))
	must(t, b.right.Forward(100))
	steps(w, 10, 100*time.Millisecond)

	ax, ay, _ := a.r.Pose()
	bx, by, bh := b.r.Pose()
	if !near(ax, wheelSpeed(200), 1e-9) || ay != 0 {
		t.Errorf("alpha at (%v, %v)", ax, ay)
	}
	if !near(bx, 0, 1e-9) || !near(by, 2-wheelSpeed(100), 1e-9) || !near(bh, -math.Pi/2, 1e-12) {
		t.Errorf("bravo at (%v, %v, %v)", bx, by, bh)
	}
	if a.r.Battery().Charge >= b.r.Battery().Charge {
		t.Error("alpha drove harder but did not drain more battery than bravo")
	}
	if a.a.Name() != "sim-alpha" || b.a.Name() != "sim-bravo" {
		t.Errorf("adaptor names %q, %q", a.a.Name(), b.a.Name())
	}
}

// TestDeterminism runs the same commands and Steps in two worlds: the poses must be identical
// to the bit, not merely close.
func TestDeterminism(t *testing.T) {
	run := func() [4]float64 {
		ro := newRover(t, sim.DefaultWorld(), "r")
		script := []struct {
			l, r int // PWM with sign
			n    int
		}{{200, 200, 30}, {-150, 150, 7}, {255, 180, 40}, {-255, -255, 5}, {90, 255, 60}, {255, 255, 100}}
		drive := func(m *gpio.MotorDriver, v int) {
			if v < 0 {
				must(t, m.Backward(byte(-v)))
			} else {
				must(t, m.Forward(byte(v)))
			}
		}
		for _, s := range script {
			drive(ro.left, s.l)
			drive(ro.right, s.r)
			steps(ro.w, s.n, 33*time.Millisecond)
		}
		x, y, h := ro.r.Pose()
		return [4]float64{x, y, h, ro.r.Battery().Voltage}
	}
	first, second := run(), run()
	if first != second {
		t.Fatalf("same script, different results:\n%v\n%v", first, second)
	}
	t.Logf("scripted drive ends at %v", first)
}

// TestDefaultWorldPatrol drives the patrol (2,0), (2,2), (0,2), home with a turn-then-drive
// controller on the true pose, as a MoveTo leaf would: no bump on the way, and the forward
// sonar sees the crate on the first leg and the bench on the second.
func TestDefaultWorldPatrol(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	drive := func(l, r float64) {
		set := func(m *gpio.MotorDriver, v float64) {
			if v < 0 {
				must(t, m.Backward(byte(-v)))
			} else {
				must(t, m.Forward(byte(v)))
			}
		}
		set(ro.left, l)
		set(ro.right, r)
	}
	goTo := func(tx, ty float64) (minRange float64) {
		minRange = math.Inf(1)
		for range 100000 {
			x, y, h := ro.r.Pose()
			if math.Hypot(tx-x, ty-y) < 0.02 {
				drive(0, 0)
				return minRange
			}
			errH := math.Remainder(math.Atan2(ty-y, tx-x)-h, 2*math.Pi)
			switch {
			case errH > 0.05:
				drive(-80, 80)
			case errH < -0.05:
				drive(80, -80)
			default:
				drive(200-300*errH, 200+300*errH)
				if d, ok := ro.r.SonarRange(); ok {
					minRange = math.Min(minRange, d)
				}
			}
			ro.w.Step(10 * time.Millisecond)
			if ro.r.Bumped() {
				x, y, _ := ro.r.Pose()
				t.Fatalf("bumped into something at (%.2f, %.2f) on the way to (%v, %v)", x, y, tx, ty)
			}
		}
		t.Fatalf("never reached (%v, %v)", tx, ty)
		return 0
	}
	legs := []struct {
		x, y     float64
		seesNear float64 // the nearest sonar reading on the leg is below this
	}{{2, 0, 1.0}, {2, 2, 1.3}, {0, 2, 4}, {0, 0, 4}}
	for _, l := range legs {
		got := goTo(l.x, l.y)
		t.Logf("leg to (%v, %v): nearest sonar reading %.2f m at t=%v", l.x, l.y, got, ro.w.Elapsed())
		if got > l.seesNear {
			t.Errorf("leg to (%v, %v): nearest sonar reading %.2f, want below %v", l.x, l.y, got, l.seesNear)
		}
	}
}
