package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExampleConfigsAreValid(t *testing.T) {
	if err := checkConfigFile("../../configs/botd.example.yaml"); err != nil {
		t.Fatal(err)
	}
	cfg, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Mission == "" || cfg.Broker.URL != "" || cfg.Robot != "rover-1" {
		t.Fatalf("the default must run the demo mission on the embedded broker: %+v", cfg)
	}
	code, out, _ := runCmd(t, "check-config", "../../configs/botd.example.yaml")
	if code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("check-config: %d %s", code, out)
	}
}

// check-config recognises a hardware file (what a config's hardware:
// points at): it checks and describes it, and refuses it as a daemon
// config, naming the fix; -hardware checks it alone.
func TestCheckConfigHardwareFile(t *testing.T) {
	for _, f := range []string{"../../configs/rover-raspi.yaml", "../../configs/sim.yaml"} {
		code, out, _ := runCmd(t, "check-config", f)
		if code != 1 || !strings.Contains(out, f+": a hardware file (") ||
			!strings.Contains(out, "not a daemon config: name it in a daemon config with `hardware: "+filepath.Base(f)+"`") {
			t.Errorf("check-config %s: %d %s", f, code, out)
		}
		code, out, _ = runCmd(t, "check-config", "-hardware", f)
		if code != 0 || !strings.Contains(out, f+": ok: a hardware file (") {
			t.Errorf("check-config -hardware %s: %d %s", f, code, out)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "hw.yaml")
	os.WriteFile(bad, []byte("adaptors: {board: {kind: sim}}\ndevices:\n  - {name: base, kind: diff_drive, left: {speed: \"11\", dir: \"13\"}, right: {speed: \"15\", dir: \"16\"}, max_linear: -1}\n"), 0o644)
	for _, args := range [][]string{{bad}, {"-hardware", bad}} {
		if code, out, _ := runCmd(t, append([]string{"check-config"}, args...)...); code != 1 || !strings.Contains(out, "hw.yaml: hardware file: ") {
			t.Errorf("a bad hardware file %v: %d %s", args, code, out)
		}
	}
	// A daemon config given to -hardware is no hardware file.
	if code, out, _ := runCmd(t, "check-config", "-hardware", "../../configs/default.yaml"); code != 1 || !strings.Contains(out, "hardware file: ") {
		t.Errorf("-hardware with a daemon config: %d %s", code, out)
	}
}

func TestBadConfigs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "badhw.yaml"), []byte("adaptors: {board: {kind: sim}}\ndevices:\n  - {name: base, kind: diff_drive, left: {speed: \"11\", dir: \"13\"}, right: {speed: \"15\", dir: \"16\"}, max_linear: -1}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad-mission.json"), []byte(`{"format":"botd/mission@1","main":"m","trees":{"m":{"type":"Drive","params":{"linear":5}}}}`), 0o644)
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown field", "robot: r\nhardware: sim.yaml\ntick: {hz: 20, rate: 3}\n", []string{"tick.rate: unknown field (known: deadman_min, deadman_periods, hz, max_hz, min_hz, spin)"}},
		{"several problems", "robot: 'bad id'\nhardware: sim.yaml\ntick: {hz: 900}\nlog: {level: loud}\nsecurity: {require_signed_missions: true}\n",
			[]string{"robot:", "tick.hz: 900 is outside", "log.level", "security.public_keys"}},
		{"no hardware", "robot: r\n", []string{"hardware: missing"}},
		{"bad hardware", "robot: r\nhardware: badhw.yaml\n", []string{"badhw.yaml", "devices[0].max_linear"}},
		{"mission over the limits", "robot: r\nhardware: " + filepath.Join(mustAbs(t, "../../configs"), "sim.yaml") + "\nmission: bad-mission.json\n", []string{"/trees/m/params/linear"}},
		{"broker without scheme", "robot: r\nhardware: sim.yaml\nbroker: {url: localhost:1883}\n", []string{"broker.url"}},
		{"signing keys", "robot: r\nhardware: sim.yaml\nsecurity: {require_signed_missions: true, public_keys: ['a b:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'ops:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'ops:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='], revoked_keys: [' '], max_validity: -1s, clock_skew: -1s}\n",
			[]string{"security.public_keys[0]", "security.public_keys[2]: key id \"ops\" is given twice", "security.revoked_keys[0]", "security.max_validity", "security.clock_skew"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			os.WriteFile(f, []byte(tc.yaml), 0o644)
			err := checkConfigFile(f)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
