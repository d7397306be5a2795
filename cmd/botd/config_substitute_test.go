package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A simulated robot's config may stand nodes in for others in every
// mission, with the rules -substitute takes; a robot with a real board
// refuses them, and a malformed rule is reported with its place.
func TestConfigSubstitute(t *testing.T) {
	dir := t.TempDir()
	configs := mustAbs(t, "../../configs")
	write := func(name, body string) string {
		t.Helper()
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// A Nav2 tree whose actions botd does not have.
	write("nav.xml", `<root BTCPP_format="4"><BehaviorTree ID="Main"><Sequence>
		<ComputePathToPose goal="{goal}" path="{path}"/><FollowPath path="{path}"/></Sequence></BehaviorTree></root>`)
	sim := "robot: r\nhardware: " + filepath.Join(configs, "sim.yaml") + "\nmission: nav.xml\n"

	// Without rules the mission does not load.
	err := checkConfigFile(write("plain.yaml", sim))
	if err == nil || !strings.Contains(err.Error(), `unknown node type "ComputePathToPose"`) {
		t.Fatalf("without substitutions: %v", err)
	}
	// With them it does, and a mission the runner loads later gets them
	// too (runner.Config.Substitutions; TestRunnerSubstitutions).
	f := write("sim.yaml", sim+"substitute: ['*=Succeed', 'FollowPath=Running:2,Success']\n")
	if err := checkConfigFile(f); err != nil {
		t.Fatalf("with substitutions: %v", err)
	}
	cfg, err := loadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	subs, err := cfg.substitutions()
	if err != nil || len(subs) != 2 {
		t.Fatalf("rules %v, %v", subs, err)
	}
	// A malformed rule is a config error at its index.
	err = checkConfigFile(write("bad-rule.yaml", sim+"substitute: ['*=Succeed', 'FollowPath']\n"))
	if err == nil || !strings.Contains(err.Error(), "substitute[1]") {
		t.Errorf("a malformed rule: %v", err)
	}
	// A real board refuses substitutions, naming it.
	err = checkConfigFile(write("raspi.yaml", "robot: r\nhardware: "+filepath.Join(configs, "rover-raspi.yaml")+"\nsubstitute: ['*=Succeed']\n"))
	if err == nil || !strings.Contains(err.Error(), "allowed only when every board is simulated") || !strings.Contains(err.Error(), "(raspi)") {
		t.Errorf("on a raspi robot: %v", err)
	}
}
