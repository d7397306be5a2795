package drivers

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestExampleConfigsLoad(t *testing.T) {
	for _, name := range []string{"sim.yaml", "sim-odometry.yaml", "rover-raspi.yaml"} {
		t.Run(name, func(t *testing.T) {
			cfg, err := testKinds().LoadConfig(filepath.Join("..", "configs", name))
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]bool{}
			for _, d := range cfg.Devices {
				kinds[d.Kind] = true
			}
			for _, k := range []string{"diff_drive", "range", "battery", "imu", "bump", "led", "servo"} {
				if !kinds[k] {
					t.Errorf("no %s device", k)
				}
			}
			t.Logf("sensor keys: %v", cfg.SensorKeys())
		})
	}
}

func TestSimConfigKeys(t *testing.T) {
	cfg := loadSimConfig(t)
	want := []string{"battery.percent", "battery.voltage", "bump.front_bumper", "imu.accel_x", "imu.accel_y", "imu.accel_z",
		"imu.pitch", "imu.roll", "imu.temperature", "imu.yaw", "imu.yaw_rate", "odom.heading", "odom.quality", "odom.sigma", "odom.x", "odom.y",
		"pose.heading", "pose.x", "pose.y", "range.front"}
	if got := cfg.SensorKeys(); !slices.Equal(got, want) {
		t.Errorf("sensor keys\n got %v\nwant %v", got, want)
	}
	base, _ := TestDriveWiring(cfg.DevicesOfKind("diff_drive")[0].Spec)
	if base.MaxLinear != 0.4 || base.Motors[0].Speed != "11" {
		t.Errorf("base: %+v", base)
	}
	imu := sectionOf(t, cfg.DevicesOfKind("imu")[0].Spec)
	if imu.Address != 0x68 || imu.Bus == nil || *imu.Bus != 1 || imu.RateHz != 20 {
		t.Errorf("imu: %+v", imu)
	}
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := testKinds().ParseConfig([]byte(`
adaptors: {b: {kind: sim}}
devices:
  - {name: s, kind: servo, pin: "12"}
  - {name: r, kind: range, trig: "18", echo: "22"}
  - {name: bat, kind: battery, pin: A0}
  - {name: p, kind: pwm_out, pin: "32"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Devices[1].Adaptor != "b" {
		t.Errorf("the only board is not the default: %+v", cfg.Devices[1])
	}
	if got := cfg.SensorKeys(); !slices.Equal(got, []string{"battery.percent", "battery.voltage", "range.r"}) {
		t.Errorf("keys %v", got)
	}
}

// TestConfigErrors: every problem is reported with its path.
func TestConfigErrors(t *testing.T) {
	const drive = `{name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"}, wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.4, max_angular: 2`
	for _, tc := range []struct {
		name string
		yaml string
		want []string // "path: part of the message"
	}{
		{"unknown kind", `{adaptors: {b: {kind: sim}}, devices: [{name: x, kind: laser, pin: "7"}]}`,
			[]string{"devices[0].kind: unknown device kind \"laser\""}},
		{"limit <= 0", `{adaptors: {b: {kind: sim}}, devices: [{name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"}, wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0, max_angular: 2}]}`,
			[]string{"devices[0].max_linear: must be > 0"}},
		{"limit above the wheels", `{adaptors: {b: {kind: sim}}, devices: [{name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"}, wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.9, max_angular: 9}]}`,
			[]string{"devices[0].max_linear: 0.9 m/s is faster than the wheels", "devices[0].max_angular: 9 rad/s is faster"}},
		{"third device", `{adaptors: {b: {kind: sim}}, devices: [` + drive + `}, {name: l, kind: led, pin: "7"}, {name: s, kind: servo, pin: "12", min_angle: 100, max_angle: 90}]}`,
			[]string{"devices[2].max_angle: must be above min_angle"}},
		{"unknown field", `{adaptors: {b: {kind: sim}}, devices: [{name: l, kind: led, pin: "7", colour: red}]}`,
			[]string{"devices[0].colour: unknown field"}},
		{"nested unknown field", `{adaptors: {b: {kind: sim}}, devices: [{name: base, kind: diff_drive, left: {speed: "11", dir: "13", pwm: "12"}, right: {speed: "15", dir: "16"}, wheel_base: 0.2, max_wheel_speed: 0.5, max_linear: 0.4, max_angular: 2}]}`,
			[]string{"devices[0].left.pwm: unknown field"}},
		{"mistyped", "adaptors: {b: {kind: sim}}\ndevices:\n  - name: s\n    kind: servo\n    pin: \"12\"\n    max_angle: wide\n",
			[]string{"devices[0].max_angle: cannot unmarshal"}},
		{"sim pin not on the header", `{adaptors: {b: {kind: sim}}, devices: [{name: l, kind: led, pin: "17"}]}`,
			[]string{"devices[0].pin: \"17\" is not a GPIO pin of the Pi header", "BCM 17 is header pin 11"}},
		{"sim analog pin", `{adaptors: {b: {kind: sim}}, devices: [{name: bat, kind: battery, pin: "7"}]}`,
			[]string{"devices[0].pin: \"7\" is not an analog input of the sim board"}},
		{"sim default wiring", `{adaptors: {b: {kind: sim}}, devices: [{name: l, kind: led, pin: "18"}]}`,
			[]string{"devices[0].pin: pin \"18\" is wired to the simulated robot's sonar trigger"}},
		{"sim has one sonar", `{adaptors: {b: {kind: sim}}, devices: [{name: a, kind: range, trig: "18", echo: "22"}, {name: b, kind: range, trig: "7", echo: "12"}]}`,
			[]string{"devices[1].kind: the simulated robot has one range"}},
		{"pin used twice", `{adaptors: {b: {kind: sim}}, devices: [` + drive + `}, {name: l, kind: led, pin: "11"}]}`,
			[]string{"devices[1].pin: pin \"11\" is already used by devices[0].left.speed"}},
		{"raspi bad pin", `{adaptors: {pi: {kind: raspi}}, devices: [{name: l, kind: led, pin: "4"}]}`,
			[]string{"devices[0].pin: \"4\" is not a GPIO pin of the Pi header", "BCM 4 is header pin 7"}},
		{"raspi no analog", `{adaptors: {pi: {kind: raspi}}, devices: [{name: bat, kind: battery, pin: "0", scale: {raw_max: 1023, volts_max: 15}}]}`,
			[]string{"devices[0].pin: the Raspberry Pi has no analog inputs"}},
		{"raspi sysfs pwm", `{adaptors: {pi: {kind: raspi, pwm: sysfs}}, devices: [{name: s, kind: servo, pin: "12"}]}`,
			[]string{"devices[0].pin: \"12\": with pwm: sysfs only the hardware channels"}},
		{"raspi pose", `{adaptors: {pi: {kind: raspi}}, devices: [{name: p, kind: pose}]}`,
			[]string{"devices[0].kind: pose is the simulator's ground truth"}},
		{"raspi i2c bus", `{adaptors: {pi: {kind: raspi}}, devices: [{name: imu, kind: imu, bus: 3}]}`,
			[]string{"devices[0].address: i2c bus 3: the Raspberry Pi has buses 0 and 1"}},
		{"i2c address twice", `{adaptors: {pi: {kind: raspi}}, devices: [{name: imu, kind: imu}, {name: bat, kind: battery, pin: "0", adc: {kind: ads1115, address: 0x68}, scale: {raw_max: 32767, volts_max: 19}}]}`,
			[]string{"devices[1].adc: i2c address 0x68 on bus 1 is already used by devices[0].address"}},
		{"firmata range", `{adaptors: {uno: {kind: firmata, port: /dev/ttyACM0}}, devices: [{name: r, kind: range, trig: "7", echo: "8"}]}`,
			[]string{"devices[0].kind: the firmata adaptor has no DigitalPin access"}},
		{"firmata pwm pin", `{adaptors: {uno: {kind: firmata, port: /dev/ttyACM0}}, devices: [{name: p, kind: pwm_out, pin: "7"}]}`,
			[]string{"devices[0].pin: \"7\" cannot do PWM on an Arduino Uno"}},
		{"firmata needs a port", `{adaptors: {uno: {kind: firmata}}}`,
			[]string{"adaptors.uno.port: a firmata board needs its serial port"}},
		{"unknown board kind", `{adaptors: {b: {kind: beaglebone}}}`,
			[]string{"adaptors.b.kind: unknown board kind \"beaglebone\""}},
		{"which board", `{adaptors: {a: {kind: sim}, b: {kind: raspi}}, devices: [{name: l, kind: led, pin: "7"}]}`,
			[]string{"devices[0].adaptor: which board? there are several (a, b)"}},
		{"unknown board", `{adaptors: {a: {kind: sim}}, devices: [{name: l, kind: led, pin: "7", adaptor: z}]}`,
			[]string{"devices[0].adaptor: unknown board \"z\""}},
		{"duplicate name", `{adaptors: {a: {kind: sim}}, devices: [{name: l, kind: led, pin: "7"}, {name: l, kind: led, pin: "12"}]}`,
			[]string{"devices[1].name: duplicate device name \"l\""}},
		{"duplicate key", `{adaptors: {a: {kind: sim}}, devices: [{name: p, kind: pose}, {name: q, kind: pose}]}`,
			[]string{"devices[1].key: blackboard key \"pose.x\" is also written by devices[0]"}},
		{"bad rate", `{adaptors: {a: {kind: sim}}, devices: [{name: r, kind: range, trig: "18", echo: "22", rate_hz: -1}]}`,
			[]string{"devices[0].rate_hz: must be > 0"}},
		{"unknown top-level field", `{adaptors: {a: {kind: sim}}, robots: []}`,
			[]string{"robots: unknown field"}},
		{"no boards", `{devices: []}`, []string{"adaptors: at least one board"}},
		{"not yaml", `{adaptors: [`, []string{"yaml:"}},
		{"several problems", `{adaptors: {b: {kind: sim}}, devices: [{name: s, kind: servo, pin: "17", safe_angle: 200}, {kind: led, pin: "7"}]}`,
			[]string{"devices[0].pin: \"17\"", "devices[0].safe_angle: must be within [0, 180]", "devices[1].name: missing device name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := testKinds().ParseConfig([]byte(tc.yaml))
			if err == nil {
				t.Fatalf("parsed (%d devices), want errors %v", len(cfg.Devices), tc.want)
			}
			var ce ConfigErrors
			if !errors.As(err, &ce) {
				t.Fatalf("error is %T (%v), want ConfigErrors", err, err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("missing %q in:\n%s", w, msg)
				}
			}
			for _, e := range ce {
				if e.Path == "" && tc.name != "not yaml" {
					t.Errorf("problem without a path: %v", e)
				}
			}
		})
	}
}

// TestConfigBuiltInCode: a Config made in code is validated (and defaulted) by Validate.
func TestConfigBuiltInCode(t *testing.T) {
	cfg := &Config{
		Adaptors: map[string]*AdaptorConfig{"b": {Kind: BoardSim}},
		Devices:  []*DeviceConfig{{Name: "l", Kind: "bump", Spec: &fakeSpec{kind: "bump", Pin: "7"}}, {Name: "p", Kind: "pose"}},
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "no kinds") {
		t.Errorf("a config without its kinds: %v", err)
	}
	cfg.Kinds = NewRegistry(fakeKind("bump"), fakeKind("pose"), fakeKind("range"))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.Devices[0].Adaptor != "b" || cfg.Devices[1].Spec.(*fakeSpec).RateHz != 20 {
		t.Errorf("defaults not filled: %+v %+v", cfg.Devices[0], cfg.Devices[1].Spec)
	}
	cfg.Devices[0].Spec = &fakeSpec{kind: "range", Pin: "18"}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "devices[0].kind: kind \"bump\" does not match its section (range)") {
		t.Errorf("mismatched section: %v", err)
	}
}
