package main

import (
	"os"
	"strings"
	"testing"

	"github.com/botd-project/botd/configs"
	"github.com/botd-project/botd/drivers"
)

// docs/SENSORS.md names every sensor key of the default simulated rover
// and every device kind, so mission authors find what their robot writes.
func TestSensorsDocIsComplete(t *testing.T) {
	doc, err := os.ReadFile("../../docs/SENSORS.md")
	if err != nil {
		t.Fatal(err)
	}
	data, err := configs.FS.ReadFile("sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hw, err := drivers.ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range hw.SensorKeys() {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/SENSORS.md does not name the sim rover's key %q", k)
		}
	}
	for _, kind := range []string{drivers.KindDiffDrive, drivers.KindServo, drivers.KindLED, drivers.KindRelay, drivers.KindBuzzer,
		drivers.KindDigitalOut, drivers.KindPWMOut, drivers.KindRange, drivers.KindBattery, drivers.KindIMU, drivers.KindBump,
		drivers.KindPose, drivers.KindOdometry, drivers.KindMQTTPose, drivers.KindGPS} {
		if !strings.Contains(string(doc), "`"+kind+"`") {
			t.Errorf("docs/SENSORS.md does not name the device kind %q", kind)
		}
	}
}
