package gpio

import (
	"math"

	"github.com/botd-project/botd/drivers"
)

// LED blink rates the envelope allows, Hz.
const (
	minBlinkHz = 0.1
	maxBlinkHz = 50
)

// limits are what the drive and output leaves read from the config.
type limits struct {
	*drivers.LeafKit
	maxLinear, maxAngular float64 // +Inf without a drive
	servoMin, servoMax    float64
	maxDuty               float64
	imuYaw                string // the IMU's yaw key
}

func newLimits(k *drivers.LeafKit) *limits {
	l := &limits{LeafKit: k, maxLinear: math.Inf(1), maxAngular: math.Inf(1), servoMin: 0, servoMax: 180, maxDuty: 1, imuYaw: "imu.yaw"}
	cfg := k.Config()
	if cfg == nil {
		return l
	}
	for i, d := range cfg.DevicesOfKind(KindDiffDrive) {
		if s, ok := d.Spec.(*DiffDriveConfig); ok {
			if i == 0 || s.MaxLinear > l.maxLinear {
				l.maxLinear = s.MaxLinear
			}
			if i == 0 || s.MaxAngular > l.maxAngular {
				l.maxAngular = s.MaxAngular
			}
		}
	}
	for _, d := range cfg.Devices {
		if s, ok := d.Spec.(drivers.GyroSource); ok && d.Kind == s.Kind() {
			l.imuYaw = s.YawKey()
		}
	}
	if servos := cfg.DevicesOfKind(KindServo); len(servos) > 0 {
		l.servoMin, l.servoMax = 180, 0
		for _, d := range servos {
			if s, ok := d.Spec.(*ServoConfig); ok {
				l.servoMin, l.servoMax = math.Min(l.servoMin, s.MinAngle), math.Max(l.servoMax, s.MaxAngle)
			}
		}
	}
	if pwms := cfg.DevicesOfKind(KindPWMOut); len(pwms) > 0 {
		l.maxDuty = 0
		for _, d := range pwms {
			if s, ok := d.Spec.(*PWMOutConfig); ok {
				l.maxDuty = math.Max(l.maxDuty, s.MaxDuty)
			}
		}
	}
	return l
}
