package main

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzConfig feeds the daemon's config parser and checker arbitrary YAML
// (relative paths resolve in configs/): a bad config is an error, never a
// panic, even when what it refers to is checked too.
func FuzzConfig(f *testing.F) {
	for _, pattern := range []string{"../../configs/*.yaml", "testdata/*.yaml"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("robot: r\nhardware: sim.yaml\nlimits: {nodes: -1, values: 99999999999}\n"))
	f.Add([]byte("robot: r\nhardware: sim.yaml\nmission: missions/patrol.json\n" +
		"failsafe: {battery_low: 130, battery_critical: 110, link_loss_action: hover, battery_action: lnad, require_gsc: true, sensor_action: go_home}\n"))
	f.Add([]byte("robot: r\nhardware: sim.yaml\ntick: {hz: fast, min_hz: .nan}\ntelemetry: {keyframe_every: 5, deadbands: {a: x}}\nwritable: x\n"))
	f.Add([]byte("adaptors: {board: {kind: sim}}\ndevices: []\n"))
	dir := os.DirFS("../../configs")
	f.Fuzz(func(t *testing.T, data []byte) {
		// check-config checks what a config with problems refers to as
		// well (readConfig): so does the fuzzer.
		cfg, err := decodeAndValidate(data, dir, "fuzz.yaml")
		if cfg == nil {
			if err == nil {
				t.Fatal("no config and no error")
			}
			return
		}
		_ = checkConfig(cfg)
	})
}

// FuzzHardwareConfig feeds the hardware section's parser: every problem
// is an error with a path, never a panic.
func FuzzHardwareConfig(f *testing.F) {
	paths, _ := filepath.Glob("../../configs/*.yaml")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := deviceKinds.ParseConfig(data)
		if err == nil && cfg == nil {
			t.Fatal("no config and no error")
		}
	})
}
