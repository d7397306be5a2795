package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestOperatorValue(t *testing.T) {
	for in, want := range map[string]any{
		"0.3": 0.3, "-2": -2.0, "true": true, "false": false, `"12"`: "12", "auto": "auto", "": "", "NaN": "NaN", "1e999": "1e999", `"a\"b"`: `a"b`,
	} {
		if got := operatorValue(in); !reflect.DeepEqual(got, want) {
			t.Errorf("operatorValue(%q) = %#v, want %#v", in, got, want)
		}
	}
}

// botctl set writes a writable key (the robot answers ok) and shows the
// robot's refusal of a key its config does not mark writable.
func TestSetWritesTheBlackboard(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "botd.yaml")
	body := fmt.Sprintf("robot: rover-1\nhardware: %s\nwritable: [cruise]\n", repoFile(t, "configs/sim.yaml"))
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	d := startBotd(t, "-config", conf)
	waitOnline(t, d, "rover-1")
	b := []string{"--broker", d.url, "--timeout", "15s"}
	expect(t, botctl(t, append([]string{"set", "rover-1", "cruise=0.3"}, b...)...), exitOK, "rover-1: cruise = 0.3")
	expect(t, botctl(t, append([]string{"set", "rover-1", "speed=1"}, b...)...), exitRefused, "refused", "not writable")
	expect(t, botctl(t, append([]string{"set", "rover-1"}, b...)...), exitUsage, "KEY=VALUE")
}

// botctl missions lists what the robot keeps: the demo patrol, running.
func TestMissionsListsTheStoredMissions(t *testing.T) {
	d := startBotd(t)
	waitOnline(t, d, "rover-1")
	modeIs(t, d, "rover-1", "RUNNING")
	expect(t, botctl(t, "missions", "rover-1", "--broker", d.url, "--timeout", "15s"), exitOK, "ID", "patrol", "RUNNING", "botctl start rover-1 --mission ID")
}
