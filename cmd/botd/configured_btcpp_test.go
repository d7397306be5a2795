package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/missions"
)

// A BehaviorTree.CPP file as the configured mission, with nodes that load
// and fail only when they run (check-config says ok): the daemon loads it
// too. What it hands the runner, in botd's own form, loads strictly (as
// the runner and its journal read it) to the same tree, with the Faults in
// place; before, the runner refused it and the robot ran no mission.
func TestConfiguredBTCPPMissionWithStandIns(t *testing.T) {
	dir := t.TempDir()
	xml, err := filepath.Abs("../../missions/btcpp/testdata/btcpp-runtime/runtime_values.xml")
	if err != nil {
		t.Fatal(err)
	}
	hwFile, err := filepath.Abs("../../configs/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "botd.yaml")
	conf := "robot: rover-x\nhardware: " + hwFile + "\nmission: " + xml + "\nfailsafe: {require_gcs: false}\n"
	if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCmd(t, "check-config", file); code != 0 {
		t.Fatalf("check-config: %d %s %s", code, out, errOut)
	}
	cfg, err := loadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	hw, err := loadHardware(hwFile)
	if err != nil {
		t.Fatal(err)
	}
	reg := newRegistry(hw)
	keys := append(hw.SensorKeys(), cfg.Writable...)
	js, id, err := configuredMission(cfg, reg, keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := missions.Load(js, missions.Options{Registry: reg, Keys: keys})
	if err != nil {
		t.Fatalf("the daemon's form of the mission does not load strictly: %v\n%s", err, js)
	}
	if m.Doc.ID != id || len(m.Notes) != 0 {
		t.Errorf("id %q (want %q), notes %v", m.Doc.ID, id, m.Notes)
	}
	faults := 0
	for i := range m.Tree.Len() {
		if m.Tree.Node(i).Type.Name == "Fault" {
			faults++
		}
	}
	orig, err := missions.Load(mustRead(t, xml), missions.Options{Registry: reg, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	if faults == 0 || faults != len(orig.Notes) {
		t.Errorf("%d Fault nodes, want one per stand-in note (%d)", faults, len(orig.Notes))
	}
	if !strings.Contains(string(js), "10,000") {
		t.Errorf("the Fault's reason does not name the value: %s", js)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
