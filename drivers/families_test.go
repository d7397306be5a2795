package drivers_test

import (
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/odometry"
)

// The device families the core's tests configure (see AddTestFamilies).
func init() {
	drivers.AddTestFamilies = func(r *drivers.Registry) {
		odometry.Register(r)
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
