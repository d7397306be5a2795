package main

import (
	"os"
	"strings"
	"testing"

	"github.com/botd-project/botd/configs"
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
	hw, err := deviceKinds.ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range hw.SensorKeys() {
		if !strings.Contains(string(doc), "`"+k+"`") {
			t.Errorf("docs/SENSORS.md does not name the sim rover's key %q", k)
		}
	}
	for _, kind := range deviceKinds.Names() {
		if !strings.Contains(string(doc), "`"+kind+"`") {
			t.Errorf("docs/SENSORS.md does not name the device kind %q", kind)
		}
	}
}

// docs/CONFIGURATION.md's table of device kinds has a row for every kind
// the daemon compiles in (drivers/standard), naming each of its leaves, and
// `botd nodes` lists every kind's leaves whatever the config.
func TestKindDocsFollowTheRegistry(t *testing.T) {
	doc, err := os.ReadFile("../../docs/CONFIGURATION.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		cols := strings.Split(line, "|")
		if len(cols) < 6 || !strings.HasPrefix(strings.TrimSpace(cols[1]), "`") {
			continue
		}
		for _, k := range strings.Split(cols[1], ",") {
			rows[strings.Trim(strings.TrimSpace(k), "`")] = line
		}
	}
	code, js, _ := runCmd(t, "nodes", "-json")
	if code != 0 {
		t.Fatalf("botd nodes: exit %d", code)
	}
	for _, kind := range deviceKinds.Names() {
		row, ok := rows[kind]
		if !ok {
			t.Errorf("docs/CONFIGURATION.md's device table has no row for the kind %q", kind)
			continue
		}
		for _, leaf := range deviceKinds.Leaves(kind) {
			if !strings.Contains(row, "`"+leaf+"`") {
				t.Errorf("docs/CONFIGURATION.md: the row of %q does not name its leaf %q", kind, leaf)
			}
			if !strings.Contains(js, `"name":"`+leaf+`"`) && !strings.Contains(js, `"name": "`+leaf+`"`) {
				t.Errorf("botd nodes does not list %s's leaf %q", kind, leaf)
			}
		}
	}
	if len(deviceKinds.Leaves("tello")) == 0 {
		t.Error("no Tello leaves registered")
	}
}
