package gpio

import (
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
`)
	s := cfg.Devices[0].Spec.(*ServoConfig)
	if s.MinAngle != 0 || s.MaxAngle != 180 || *s.SafeAngle != 90 {
		t.Errorf("servo defaults: %+v safe %v", s, *s.SafeAngle)
	}
	if p := cfg.Devices[1].Spec.(*PWMOutConfig); p.MaxDuty != 1 {
		t.Errorf("pwm defaults: %+v", p)
	}
}
