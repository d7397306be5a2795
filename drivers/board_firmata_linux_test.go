//go:build linux && firmata

package drivers

import (
	"context"
	"testing"

	"gobot.io/x/gobot/v2/platforms/firmata"
)

// An Arduino Uno running StandardFirmata, with every kind it can host.
const unoConfig = `
adaptors:
  uno: {kind: firmata, port: /dev/botd-test-no-such-port}
devices:
  - {name: base, kind: diff_drive, left: {speed: "5", dir: "12"}, right: {speed: "6", dir: "13"},
     wheel_base: 0.15, max_wheel_speed: 0.4, max_linear: 0.3, max_angular: 2}
  - {name: pan, kind: servo, pin: "9"}
  - {name: status, kind: led, pin: "2"}
  - {name: pump, kind: relay, pin: "7"}
  - {name: horn, kind: buzzer, pin: "8"}
  - {name: flag, kind: digital_out, pin: "4"}
  - {name: fan, kind: pwm_out, pin: "10"}
  - {name: battery, kind: battery, pin: "0", scale: {raw_max: 1023, volts_max: 15}}
  - {name: imu, kind: imu}
  - {name: bumper, kind: bump, pin: "3"}
`

// TestFirmataBuilds: the devices build on gobot's firmata adaptor; without the board, Start
// fails at connect and Close still works.
func TestFirmataBuilds(t *testing.T) {
	r, err := Build(parse(t, unoConfig), Options{Name: "uno-rover", Sync: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := r.Adaptor("uno")
	if f, ok := a.(*firmata.Adaptor); !ok || f.Port() != "/dev/botd-test-no-such-port" {
		t.Fatalf("board %T", a)
	}
	if imu := sectionOf(t, r.cfg.Devices[8].Spec); imu.Bus == nil || *imu.Bus != 0 {
		t.Errorf("imu on bus %d, want firmata's bus 0", *imu.Bus)
	}
	if err := r.Start(context.Background()); err == nil {
		t.Fatal("Start without a board succeeded")
	} else {
		t.Logf("Start: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
