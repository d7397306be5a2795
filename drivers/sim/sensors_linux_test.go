//go:build linux

package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"gobot.io/x/gobot/v2/drivers/aio"
	"gobot.io/x/gobot/v2/drivers/gpio"
	"gobot.io/x/gobot/v2/drivers/i2c"

	"github.com/botd-project/botd/drivers/sim"
)

func startSonar(t *testing.T, ro *rover) *gpio.HCSR04Driver {
	t.Helper()
	d := gpio.NewHCSR04Driver(ro.a, "18", "22", gpio.WithName("sonar"))
	must(t, d.Start())
	t.Cleanup(func() { must(t, d.Halt()) }) // runs before the adaptor's Finalize
	return d
}

func TestHCSR04MeasuresTheCrate(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	sonar := startSonar(t, ro)
	for _, c := range []struct {
		x, want float64
	}{
		{0, 2.85},   // home: crate face at 3.0, sonar on the rim 0.15 m ahead
		{2, 0.85},   // waypoint (2,0)
		{2.7, 0.15}, // close
	} {
		ro.r.SetPose(c.x, 0, 0)
		truth, ok := ro.r.SonarRange()
		if !ok || !near(truth, c.want, 1e-9) {
			t.Fatalf("at x=%v SonarRange() = %v, %v, want %v", c.x, truth, ok, c.want)
		}
		got, err := sonar.MeasureDistance()
		if err != nil {
			t.Fatalf("at x=%v: %v", c.x, err)
		}
		if !near(got, c.want, 0.01) {
			t.Fatalf("at x=%v HC-SR04 = %v m, want %v ± 1 cm", c.x, got, c.want)
		}
		t.Logf("HC-SR04 at x=%.2f: %.3f m (true %.3f, error %.1f mm)", c.x, got, c.want, (got-c.want)*1000)
	}

	// Nothing within 4 m: the sensor's 38 ms "no echo" pulse, ≈6.5 m.
	ro.r.SetPose(0, 0, math.Pi/2)
	got, err := sonar.MeasureDistance()
	if err != nil || !near(got, 0.038*343/2, 0.01) {
		t.Fatalf("out of range: %v, %v, want ≈6.5 m", got, err)
	}
}

func TestHCSR04Faults(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	sonar := startSonar(t, ro)

	boom := errors.New("trigger line shorted")
	ro.r.FailSensor(sim.SensorSonar, boom)
	if _, err := sonar.MeasureDistance(); !errors.Is(err, boom) {
		t.Fatalf("failed sonar: err = %v, want %v", err, boom)
	}

	ro.r.SilenceSensor(sim.SensorSonar)
	start := time.Now()
	if _, err := sonar.MeasureDistance(); err == nil {
		t.Fatal("silenced sonar returned a distance")
	}
	t.Logf("silenced sonar gave up after %v (the driver's 160 ms timeout)", time.Since(start).Round(time.Millisecond))

	ro.r.RestoreSensor(sim.SensorSonar)
	if got, err := sonar.MeasureDistance(); err != nil || !near(got, 2.85, 0.01) {
		t.Fatalf("restored sonar: %v, %v", got, err)
	}
}

// TestHCSR04MonitorWhileStepping runs the driver's own monitor goroutine against a world that
// is being stepped, for the race detector.
func TestHCSR04MonitorWhileStepping(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	sonar := startSonar(t, ro)
	must(t, sonar.StartDistanceMonitor())
	must(t, ro.left.Forward(150))
	must(t, ro.right.Forward(150))
	deadline := time.Now().Add(250 * time.Millisecond)
	for time.Now().Before(deadline) {
		ro.w.Step(10 * time.Millisecond)
		time.Sleep(5 * time.Millisecond)
	}
	must(t, sonar.StopDistanceMonitor())
	x, _, _ := ro.r.Pose()
	if d := sonar.Distance(); d <= 0 || d > 2.85 || d < 2.85-x-0.2 {
		t.Fatalf("monitored distance %v with robot at x=%v", d, x)
	}
}

func TestBatteryThroughAnalogSensor(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	full := sim.DefaultRobotConfig().Battery.ADCFullScale
	batt := aio.NewAnalogSensorDriver(ro.a, "A0",
		aio.WithName("battery"), aio.WithSensorScaler(aio.AnalogSensorLinearScaler(0, sim.ADCMax, 0, full)))
	must(t, batt.Start())
	defer batt.Halt()

	before, err := batt.Read()
	must(t, err)
	truth := ro.r.Battery().Voltage
	if !near(before, truth, full/sim.ADCMax) {
		t.Fatalf("battery reads %v V, true %v V", before, truth)
	}

	// Spin for a minute (no walls in the way), then stop and let one idle step pass.
	must(t, ro.left.Backward(200))
	must(t, ro.right.Forward(200))
	steps(ro.w, 600, 100*time.Millisecond)
	loaded, err := batt.Read()
	must(t, err)
	must(t, ro.left.Off())
	must(t, ro.right.Off())
	ro.w.Step(100 * time.Millisecond)
	after, err := batt.Read()
	must(t, err)
	t.Logf("battery: %.3f V full, %.3f V under load after 60 s, %.3f V resting (charge %.4f)",
		before, loaded, after, ro.r.Battery().Charge)
	if !(loaded < after && after < before) {
		t.Fatalf("want loaded < resting < full, got %v, %v, %v", loaded, after, before)
	}

	ro.r.SilenceSensor(sim.SensorBattery)
	if raw, err := batt.ReadRaw(); err != nil || raw != 0 {
		t.Fatalf("silenced battery sense = %d, %v, want 0 counts", raw, err)
	}
	ro.r.FailSensor(sim.SensorBattery, nil)
	if _, err := batt.Read(); !errors.Is(err, sim.ErrSensorFault) {
		t.Fatalf("failed battery sense: %v", err)
	}
}

func startIMU(t *testing.T, ro *rover) *i2c.MPU6050Driver {
	t.Helper()
	imu := i2c.NewMPU6050Driver(ro.a, i2c.WithBus(1), i2c.WithAddress(0x68))
	imu.SetName("imu")
	must(t, imu.Start())
	t.Cleanup(func() { must(t, imu.Halt()) })
	return imu
}

func TestMPU6050(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	imu := startIMU(t, ro)

	must(t, imu.GetData())
	if !near(imu.Accelerometer.Z, 9.80665, 0.001) || !near(imu.Accelerometer.X, 0, 1e-9) ||
		imu.Gyroscope.Z != 0 || !near(imu.Temperature, 25, 0.01) {
		t.Fatalf("at rest: accel %+v gyro %+v temp %v", imu.Accelerometer, imu.Gyroscope, imu.Temperature)
	}

	must(t, ro.left.Backward(200))
	must(t, ro.right.Forward(200))
	steps(ro.w, 3, 100*time.Millisecond)
	must(t, imu.GetData())
	_, omega := ro.r.Velocity()
	want := omega * 180 / math.Pi // °/s
	if !near(imu.Gyroscope.Z, want, 1/131.0) || want < 200 {
		t.Fatalf("turning: gyro Z = %v °/s, want %v", imu.Gyroscope.Z, want)
	}
	t.Logf("turning at %.2f °/s: MPU6050 gyro Z = %.2f °/s, accel Z = %.3f m/s²", want, imu.Gyroscope.Z, imu.Accelerometer.Z)

	must(t, ro.left.Off())
	must(t, ro.right.Off())
	ro.w.Step(100 * time.Millisecond)
	ro.r.SetTilt(10*math.Pi/180, 0) // nose up on a 10° ramp
	must(t, imu.GetData())
	if !near(imu.Accelerometer.X, 9.80665*math.Sin(10*math.Pi/180), 0.002) || imu.Gyroscope.Z != 0 {
		t.Fatalf("tilted: accel %+v gyro %+v", imu.Accelerometer, imu.Gyroscope)
	}

	ro.r.SilenceSensor(sim.SensorIMU)
	if err := imu.GetData(); !errors.Is(err, sim.ErrNoDevice) {
		t.Fatalf("silenced IMU: %v", err)
	}
	ro.r.RestoreSensor(sim.SensorIMU)
	must(t, imu.GetData())
}

func TestMPU6050FullScaleAndRegisters(t *testing.T) {
	ro := newRover(t, sim.DefaultWorld(), "r1")
	imu := i2c.NewMPU6050Driver(ro.a, i2c.WithMPU6050AccelFullScaleRange(i2c.MPU6050Accel_AFsSel8g),
		i2c.WithMPU6050GyroFullScaleRange(i2c.MPU6050Gyro_FsSel2000dps))
	must(t, imu.Start())
	defer imu.Halt()
	must(t, ro.left.Backward(255))
	must(t, ro.right.Forward(255))
	ro.w.Step(50 * time.Millisecond)
	must(t, imu.GetData())
	if !near(imu.Accelerometer.Z, 9.80665, 0.003) || !near(imu.Gyroscope.Z, 5*180/math.Pi, 1/16.4) {
		t.Fatalf("±8 g / ±2000 °/s: accel %+v gyro %+v", imu.Accelerometer, imu.Gyroscope)
	}

	conn, err := ro.a.GetI2cConnection(0x68, 1)
	must(t, err)
	if who, err := conn.ReadByteData(0x75); err != nil || who != 0x68 {
		t.Fatalf("WHO_AM_I = %#x, %v", who, err)
	}
	must(t, conn.WriteByteData(0x6B, 0x80)) // reset: bit 7 reads back clear, SLEEP set
	if v, err := conn.ReadByteData(0x6B); err != nil || v != 0x40 {
		t.Fatalf("PWR_MGMT_1 after reset = %#x, %v, want 0x40", v, err)
	}
	buf := make([]byte, 14)
	must(t, conn.ReadBlockData(0x3B, buf))
	for _, b := range buf {
		if b != 0 {
			t.Fatalf("asleep, data registers read %x, want zeros", buf)
		}
	}
	if conn.ReadBlockData(0x3B, make([]byte, 33)) == nil {
		t.Error("a 33-byte block read succeeded; Linux refuses it")
	}
	if _, err := ro.a.GetI2cConnection(0x68, 0); !errors.Is(err, sim.ErrNoBus) {
		t.Errorf("bus 0: %v", err)
	}
	other, err := ro.a.GetI2cConnection(0x40, 1)
	must(t, err)
	if _, err := other.ReadByteData(0); !errors.Is(err, sim.ErrNoDevice) {
		t.Errorf("nobody at 0x40: %v", err)
	}
	if ro.a.DefaultI2cBus() != 1 {
		t.Errorf("DefaultI2cBus() = %d", ro.a.DefaultI2cBus())
	}
}
