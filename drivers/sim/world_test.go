package sim_test

import (
	"errors"
	"math"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers/sim"
)

func TestDefaultWorldFile(t *testing.T) {
	w, err := sim.LoadWorld("testdata/yard.json")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.Spec(), sim.DefaultWorldSpec(); !reflect.DeepEqual(got, want) {
		t.Fatalf("testdata/yard.json = %+v, DefaultWorldSpec = %+v; keep them equal", got, want)
	}
}

func TestParseWorldErrors(t *testing.T) {
	for name, src := range map[string]string{
		"not json":      `bounds: {}`,
		"unknown field": `{"bounds": {"min_x": 0, "min_y": 0, "max_x": 1, "max_y": 1}, "walls": []}`,
		"empty bounds":  `{}`,
		"flat box":      `{"bounds": {"min_x": 0, "min_y": 0, "max_x": 5, "max_y": 5}, "boxes": [{"min_x": 1, "min_y": 1, "max_x": 1, "max_y": 2}]}`,
		"duplicate box": `{"bounds": {"min_x": 0, "min_y": 0, "max_x": 5, "max_y": 5}, "boxes": [{"name": "a", "min_x": 1, "min_y": 1, "max_x": 2, "max_y": 2}, {"name": "a", "min_x": 3, "min_y": 3, "max_x": 4, "max_y": 4}]}`,
		"trailing":      `{"bounds": {"min_x": 0, "min_y": 0, "max_x": 1, "max_y": 1}} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := sim.ParseWorld([]byte(src)); !errors.Is(err, sim.ErrInvalidWorld) {
				t.Fatalf("ParseWorld(%s) error = %v, want ErrInvalidWorld", src, err)
			}
		})
	}
	if _, err := sim.LoadWorld("testdata/missing.json"); err == nil {
		t.Fatal("LoadWorld of a missing file succeeded")
	}
}

func FuzzParseWorld(f *testing.F) {
	seed, err := os.ReadFile("testdata/yard.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"bounds": {"min_x": 0, "min_y": 0, "max_x": 1e308, "max_y": 1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := sim.ParseWorld(data)
		if err != nil {
			return
		}
		// Whatever parses must simulate without panicking.
		r := w.AddRobot("r", sim.RobotConfig{})
		a := sim.NewAdaptor(r)
		if err := a.Connect(); err != nil {
			t.Fatal(err)
		}
		defer a.Finalize()
		_ = a.PwmWrite("11", 255)
		w.Step(50 * time.Millisecond)
		r.SonarRange()
		w.Raycast(0, 0, 1)
	})
}

func TestRaycastDefaultWorld(t *testing.T) {
	w := sim.DefaultWorld()
	for _, c := range []struct {
		name    string
		x, y, a float64
		want    float64
	}{
		{"crate ahead of home", 0, 0, 0, 3.0},
		{"west wall", 0, 0, math.Pi, 2.0},
		{"south wall", 0, 0, -math.Pi / 2, 2.0},
		{"bench ahead of leg 2", 2, 0, math.Pi / 2, 3.2},
		{"north-east diagonal", 0, 0, math.Pi / 4, math.Sqrt2 * 5}, // tank corner (5,5)
		{"outside the yard", 9, 9, 0, 0},
		{"inside the crate", 3.3, 0, 0, 0},
	} {
		if got := w.Raycast(c.x, c.y, c.a); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: Raycast(%v, %v, %v) = %v, want %v", c.name, c.x, c.y, c.a, got, c.want)
		}
	}
}

func TestRobotConfigValidate(t *testing.T) {
	if err := (sim.RobotConfig{}).Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for name, cfg := range map[string]sim.RobotConfig{
		"negative wheel base":  {WheelBase: -1},
		"pin used twice":       {Pins: sim.PinMap{LeftSpeed: "7", RightSpeed: "7"}},
		"forward without back": {Pins: sim.PinMap{LeftForward: "5"}},
		"min above max range":  {Sonar: sim.SonarConfig{MinRange: 5}},
		"charge above 1":       {Battery: sim.BatteryConfig{InitialCharge: 1.5}},
		"bad i2c address":      {IMU: sim.IMUConfig{Address: 0x90}},
		"NaN radius":           {Radius: math.NaN()},
	} {
		if err := cfg.Validate(); !errors.Is(err, sim.ErrInvalidConfig) {
			t.Errorf("%s: Validate() = %v, want ErrInvalidConfig", name, err)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("AddRobot with an invalid config did not panic")
			}
		}()
		sim.DefaultWorld().AddRobot("r", sim.RobotConfig{WheelBase: -1})
	}()
	w := sim.DefaultWorld()
	w.AddRobot("r", sim.RobotConfig{})
	func() {
		defer func() {
			if recover() == nil {
				t.Error("AddRobot with a duplicate name did not panic")
			}
		}()
		w.AddRobot("r", sim.RobotConfig{})
	}()
	if w.Robot("r") == nil || w.Robot("x") != nil || len(w.Robots()) != 1 {
		t.Error("Robot/Robots lookup wrong")
	}
}

func TestDefaultRobotConfig(t *testing.T) {
	c := sim.DefaultRobotConfig()
	p := c.Pins
	if c.WheelBase != 0.2 || c.MaxWheelSpeed != 0.5 || c.Radius != 0.15 ||
		p.LeftSpeed != "11" || p.LeftDir != "13" || p.RightSpeed != "15" || p.RightDir != "16" ||
		p.SonarTrigger != "18" || p.SonarEcho != "22" || p.Battery != "A0" || p.Bump != "29" ||
		c.IMU.Bus != 1 || c.IMU.Address != 0x68 || c.Battery.ADCFullScale != 16.8 || c.Battery.Cells != 3 {
		t.Fatalf("DefaultRobotConfig() = %+v; the documented defaults changed", c)
	}
	paired := sim.RobotConfig{Pins: sim.PinMap{LeftForward: "5", LeftBackward: "6"}}
	if got := sim.DefaultRobotConfig(); got.Pins.LeftDir == "" {
		t.Fatal("default left dir pin missing")
	}
	r := sim.DefaultWorld().AddRobot("r", paired)
	if r.Config().Pins.LeftDir != "" {
		t.Fatalf("a forward/backward pair must not also get the default direction pin: %+v", r.Config().Pins)
	}
}

func TestBatteryCurve(t *testing.T) {
	r := sim.DefaultWorld().AddRobot("r", sim.RobotConfig{})
	full := r.Battery()
	if math.Abs(full.Voltage-(12.6-0.25*0.06)) > 1e-9 || full.Charge != 1 {
		t.Fatalf("full battery = %+v, want 12.585 V at charge 1", full)
	}
	prev := full.Voltage
	for _, c := range []float64{0.8, 0.5, 0.2, 0} {
		r.SetBatteryCharge(c)
		if v := r.Battery().Voltage; v >= prev {
			t.Fatalf("voltage at charge %v = %v, not below %v", c, v, prev)
		} else {
			prev = v
		}
	}
}
