package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lowBatteryMission logs which branch it takes, three ticks in a row.
const lowBatteryMission = `format: botd/mission@1
name: lowbat
main: main
trees:
  main:
    type: Repeater
    params: {count: 3}
    children:
      - type: Fallback
        children:
          - type: Sequence
            children:
              - {type: IsBatteryLow, params: {min_battery: 20}}
              - {type: Log, params: {message: "low {battery.percent} home={home}"}}
          - {type: Log, params: {message: "fine {battery.percent}"}}
`

// botd sim -set writes the blackboard before the first tick, typed as
// botctl set types values; a sensor's key keeps its value on every tick,
// so a mission's low-battery branch runs without editing the mission.
func TestSimSet(t *testing.T) {
	f := filepath.Join(t.TempDir(), "lowbat.yaml")
	if err := os.WriteFile(f, []byte(lowBatteryMission), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(t, "sim", f)
	if code != 0 || strings.Count(errOut, "info: fine ") != 3 {
		t.Fatalf("without -set: exit %d, log %q", code, errOut)
	}
	code, _, errOut = runCmd(t, "sim", "-set", "battery.percent=15", "-set", `home="dock 2"`, f)
	if code != 0 || strings.Count(errOut, `info: low 15 home=dock 2`) != 3 {
		t.Errorf("with -set: exit %d, log %q, want the low branch on all three ticks", code, errOut)
	}

	code, _, errOut = runCmd(t, "sim", "-set", "battery.percnt=15", f)
	if code != 2 || !strings.Contains(errOut, `-set battery.percnt=15: the mission does not use the key "battery.percnt" (did you mean battery.percent?)`) {
		t.Errorf("a mistyped key: exit %d, log %q", code, errOut)
	}
	if code, _, errOut = runCmd(t, "sim", "-set", "=3", f); code != 2 || !strings.Contains(errOut, "not KEY=VALUE") {
		t.Errorf("no key: exit %d, log %q", code, errOut)
	}
}
