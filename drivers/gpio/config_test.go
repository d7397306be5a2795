package gpio

import (
	"math"
	"testing"

	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/drivertest"
)

// kinds are the family's kinds.
func kinds() *drivers.Registry {
	r := drivers.NewRegistry()
	Register(r)
	return r
}

func TestConfigDefaults(t *testing.T) {
	cfg := drivertest.Parse(t, kinds(), `
adaptors: {b: {kind: sim}}
devices:
  - {name: s, kind: servo, pin: "12"}
  - {name: p, kind: pwm_out, pin: "32"}
  - {name: r, kind: range, trig: "18", echo: "22"}
  - {name: bat, kind: battery, pin: A0}
  - {name: imu, kind: imu}
`)
	s := cfg.Devices[0].Spec.(*ServoConfig)
	if s.MinAngle != 0 || s.MaxAngle != 180 || *s.SafeAngle != 90 {
		t.Errorf("servo defaults: %+v safe %v", s, *s.SafeAngle)
	}
	if p := cfg.Devices[1].Spec.(*PWMOutConfig); p.MaxDuty != 1 {
		t.Errorf("pwm defaults: %+v", p)
	}
	r := cfg.Devices[2].Spec.(*RangeConfig)
	if r.RateHz != 10 || r.StaleAfterMs != 500 || r.MaxRange != 4 || cfg.Devices[2].Adaptor != "b" {
		t.Errorf("range defaults: %+v", r)
	}
	b := cfg.Devices[3].Spec.(*BatteryConfig)
	if b.Cells != 3 || b.EmptyVoltage != 10.5 || math.Abs(b.FullVoltage-12.6) > 1e-9 || b.Scale.RawMax != 4095 || b.Key != "battery" {
		t.Errorf("battery defaults: %+v", b)
	}
	imu := cfg.Devices[4].Spec.(*IMUConfig)
	if imu.Address != 0x68 || *imu.Bus != 1 || imu.RateHz != 50 {
		t.Errorf("imu: %+v", imu)
	}
}
