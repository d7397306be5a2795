package drivers_test

import (
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/gpio"
	"github.com/botd-project/botd/drivers/odometry"
)

// The device families the core's tests configure (see AddTestFamilies).
func init() {
	drivers.AddTestFamilies = func(r *drivers.Registry) {
		gpio.Register(r)
		odometry.Register(r)
	}
	drivers.TestDrive = func(r *drivers.Robot, device string, o drivers.Owner, linear, angular float64, owned bool) error {
		x, err := drivers.ActuatorOf[gpio.DriveCommand](r, device)
		if err != nil {
			return err
		}
		return x.Command(o, gpio.DriveCommand{Linear: linear, Angular: angular}, owned)
	}
	drivers.TestDriveWiring = func(s drivers.Spec) (drivers.TestDriveSection, bool) {
		c, ok := s.(*gpio.DiffDriveConfig)
		if !ok {
			return drivers.TestDriveSection{}, false
		}
		out := drivers.TestDriveSection{WheelBase: c.WheelBase, MaxWheelSpeed: c.MaxWheelSpeed, MaxLinear: c.MaxLinear}
		for i, m := range [2]gpio.MotorPins{c.Left, c.Right} {
			out.Motors[i] = drivers.TestMotorPins{Speed: m.Speed, Dir: m.Dir, Forward: m.Forward, Backward: m.Backward, Reverse: m.Reverse}
		}
		return out, true
	}
	drivers.TestOdometry = func(s drivers.Spec) (drivers.TestOdometrySection, bool) {
		c, ok := s.(*odometry.Config)
		if !ok {
			return drivers.TestOdometrySection{}, false
		}
		out := drivers.TestOdometrySection{IMU: &c.IMU}
		if e := c.Encoders; e != nil {
			out.Encoders = &drivers.TestEncoderWiring{
				A:           [2]string{e.Left.A, e.Right.A},
				B:           [2]string{e.Left.B, e.Right.B},
				Reverse:     [2]bool{e.Left.Reverse, e.Right.Reverse},
				TicksPerRev: e.TicksPerRev,
				WheelRadius: c.WheelRadius,
			}
		}
		return out, true
	}
}
