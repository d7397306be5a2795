//go:build linux

package gpio

import (
	"fmt"
	"math"
	"time"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/drivers/aio"
	"gobot.io/x/gobot/v2/drivers/gpio"
	"gobot.io/x/gobot/v2/drivers/i2c"

	"github.com/botd-project/botd/drivers"
)

// This file builds the sensor kinds on Gobot's drivers and says how each is read.

func buildRange(b *drivers.Builder, c *RangeConfig) error {
	if _, err := drivers.Need[gobot.DigitalPinnerProvider](b, "give DigitalPin access (gobot.DigitalPinnerProvider) for an HC-SR04"); err != nil {
		return err
	}
	hc := gpio.NewHCSR04Driver(b.Board(), c.Trig, c.Echo, gpio.WithName(b.Name()))
	// HCSR04Driver.Halt only stops a distance monitor botd does not use (printing to stdout
	// that it was not running) and closes the channel its echo handler sends on, which
	// panics if an edge arrives before the board releases the pins. The sampler is stopped
	// before any Halt and Finalize releases the pins, so its Halt is skipped.
	b.AddDriver(hc, false)
	b.Sensor(c.SampleConfig, func(_ time.Time, vals []float64) error {
		m, err := hc.MeasureDistance()
		if err != nil {
			return err
		}
		if m > c.MaxRange || m < 0 || math.IsNaN(m) {
			m = c.MaxRange // no echo: nothing within range
		}
		vals[0] = m
		return nil
	})
	return nil
}

func buildBattery(b *drivers.Builder, c *BatteryConfig) error {
	var reader aio.AnalogReader
	if c.ADC != nil {
		conn, err := drivers.Need[i2c.Connector](b, "reach an i2c bus (i2c.Connector) for the battery ADC")
		if err != nil {
			return err
		}
		opts := []func(i2c.Config){i2c.WithBus(*c.ADC.Bus), i2c.WithAddress(c.ADC.Address), i2c.WithADS1x15Gain(*c.ADC.Gain)}
		var adc *i2c.ADS1x15Driver
		if c.ADC.Kind == "ads1015" {
			adc = i2c.NewADS1015Driver(conn, opts...)
		} else {
			adc = i2c.NewADS1115Driver(conn, opts...)
		}
		adc.SetName(b.Name() + ".adc")
		b.AddDriver(adc, true)
		reader = adc
	} else {
		ar, err := drivers.Need[aio.AnalogReader](b, "read analog pins (aio.AnalogReader); use an i2c ADC (adc:)")
		if err != nil {
			return err
		}
		reader = ar
	}
	drv := aio.NewAnalogSensorDriver(reader, c.Pin, aio.WithName(b.Name()),
		aio.WithSensorScaler(aio.AnalogSensorLinearScaler(0, c.Scale.RawMax, 0, c.Scale.VoltsMax)))
	b.AddDriver(drv, true)
	span := c.FullVoltage - c.EmptyVoltage
	read := func(_ time.Time, vals []float64) error {
		v, err := drv.Read()
		if err != nil {
			return err
		}
		// A sense wire that came off reads 0 V; no pack in use sits below half its empty
		// voltage, so such a reading is a fault, not a flat battery.
		if v < c.EmptyVoltage/2 {
			return fmt.Errorf("implausible battery voltage %.2f V (below half the empty voltage %.2f V): sense wire off?", v, c.EmptyVoltage)
		}
		vals[0] = v
		vals[1] = math.Min(math.Max((v-c.EmptyVoltage)/span*100, 0), 100)
		return nil
	}
	// An analog pin reads at once; an ADS1x15 waits for its conversion.
	if c.ADC == nil {
		b.QuickSensor(c.SampleConfig, read)
	} else {
		b.Sensor(c.SampleConfig, read)
	}
	return nil
}

func buildIMU(b *drivers.Builder, c *IMUConfig) error {
	conn, err := drivers.Need[i2c.Connector](b, "reach an i2c bus (i2c.Connector) for the IMU")
	if err != nil {
		return err
	}
	m := i2c.NewMPU6050Driver(conn, i2c.WithBus(*c.Bus), i2c.WithAddress(c.Address))
	m.SetName(b.Name())
	// Gobot's driver writes its reset and settings to whatever answers at the address (a
	// DS3231 clock also sits at 0x68 on many Pi boards): ask the chip who it is first.
	b.AddDriver(&whoAmI{name: b.Name() + ".whoami", board: b.Board(), conn: conn, bus: *c.Bus, addr: c.Address}, false)
	b.AddDriver(m, true)
	// The yaw is the gyro's z rate integrated between samples (from 0 at the first one); it
	// drifts on a real chip and is what Turn uses when no pose is configured.
	var yaw float64
	var prev time.Time
	b.QuickSensor(c.SampleConfig, func(now time.Time, vals []float64) error { // register reads
		if err := m.GetData(); err != nil {
			return err
		}
		a, g := m.Accelerometer, m.Gyroscope
		rate := g.Z * math.Pi / 180
		if !prev.IsZero() {
			yaw = drivers.WrapAngle(yaw + rate*now.Sub(prev).Seconds())
		}
		prev = now
		vals[0] = math.Atan2(a.Y, a.Z)                  // roll: left side up is positive
		vals[1] = math.Atan2(a.X, math.Hypot(a.Y, a.Z)) // pitch: nose up is positive
		vals[2], vals[3] = yaw, rate
		vals[4], vals[5], vals[6] = a.X, a.Y, a.Z
		vals[7] = m.Temperature
		return nil
	})
	return nil
}

func buildBump(b *drivers.Builder, c *BumpConfig) error {
	if _, err := drivers.Need[gpio.DigitalReader](b, "read digital pins (gpio.DigitalReader)"); err != nil {
		return err
	}
	pin := gpio.NewDirectPinDriver(b.Board(), c.Pin, gpio.WithName(b.Name()))
	b.AddDriver(pin, true)
	b.QuickSensor(c.SampleConfig, func(_ time.Time, vals []float64) error {
		v, err := pin.DigitalRead()
		if err != nil {
			return err
		}
		vals[0] = 0
		if (v != 0) != c.ActiveLow {
			vals[0] = 1
		}
		return nil
	})
	return nil
}

func buildPose(b *drivers.Builder, c *PoseConfig) error {
	if b.SimBoard() == nil {
		return fmt.Errorf("pose needs a sim board")
	}
	robot := b.SimBoard().Robot()
	b.QuickSensor(c.SampleConfig, func(_ time.Time, vals []float64) error {
		vals[0], vals[1], vals[2] = robot.Pose()
		return nil
	})
	return nil
}

// mpuIDs are the WHO_AM_I answers of the chips gobot's MPU6050 driver can read: the MPU6050
// itself and the register-compatible MPU6500 and MPU9250 family.
var mpuIDs = map[byte]string{0x68: "MPU6050", 0x70: "MPU6500", 0x71: "MPU9250", 0x73: "MPU9255", 0x74: "MPU6515"}

// whoAmI is a Gobot driver that only checks, when it starts, that an MPU answers at its
// address.
type whoAmI struct {
	name      string
	board     gobot.Adaptor
	conn      i2c.Connector
	bus, addr int
	id        byte
}

var _ gobot.Driver = (*whoAmI)(nil)

func (w *whoAmI) Name() string                 { return w.name }
func (w *whoAmI) SetName(n string)             { w.name = n }
func (w *whoAmI) Connection() gobot.Connection { return w.board }
func (w *whoAmI) Halt() error                  { return nil }

func (w *whoAmI) Start() error {
	c, err := w.conn.GetI2cConnection(w.addr, w.bus)
	if err != nil {
		return err
	}
	id, err := c.ReadByteData(0x75)
	if err != nil {
		return fmt.Errorf("nothing answers at %#02x on i2c bus %d: %w", w.addr, w.bus, err)
	}
	if _, ok := mpuIDs[id]; !ok {
		return fmt.Errorf("the chip at %#02x on i2c bus %d answers WHO_AM_I with %#02x: not an MPU6050 (0x68) or a compatible MPU", w.addr, w.bus, id)
	}
	w.id = id
	return nil
}

// sensorBuilds build the family's sensor kinds.
var sensorBuilds = map[string]func(*drivers.Builder) error{
	KindRange:   func(b *drivers.Builder) error { return buildRange(b, b.Spec().(*RangeConfig)) },
	KindBattery: func(b *drivers.Builder) error { return buildBattery(b, b.Spec().(*BatteryConfig)) },
	KindIMU:     func(b *drivers.Builder) error { return buildIMU(b, b.Spec().(*IMUConfig)) },
	KindBump:    func(b *drivers.Builder) error { return buildBump(b, b.Spec().(*BumpConfig)) },
	KindPose:    func(b *drivers.Builder) error { return buildPose(b, b.Spec().(*PoseConfig)) },
}
