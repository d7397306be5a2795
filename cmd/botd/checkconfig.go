package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
)

// runCheckConfig validates a daemon config: the file itself, its hardware
// section, its world and its mission. Given a hardware file (the
// `hardware:` a config points at: adaptors and devices), it checks that
// and says so. Exit status 0 when valid.
func runCheckConfig(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: botd check-config FILE   (a daemon config, or a hardware file)")
		return 2
	}
	file := args[0]
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(stdout, err)
		return 1
	}
	if isHardwareFile(data) {
		hw, err := drivers.ParseConfig(data)
		if err != nil {
			fmt.Fprintf(stdout, "%s: hardware file: %v\n", file, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: ok: a hardware file (%s), not a daemon config; a daemon config uses it with `hardware: %s`\n",
			file, hardwareSummary(hw), filepath.Base(file))
		return 0
	}
	if err := checkConfigFile(file); err != nil {
		fmt.Fprintln(stdout, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok\n", file)
	return 0
}

// isHardwareFile reports whether data is a hardware file rather than a
// daemon config: its top level has adaptors or devices, and nothing of a
// daemon config.
func isHardwareFile(data []byte) bool {
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(data, &top); err != nil {
		return false
	}
	_, adaptors := top["adaptors"]
	_, devices := top["devices"]
	if !adaptors && !devices {
		return false
	}
	for _, k := range []string{"robot", "hardware", "broker", "mission", "tick", "telemetry", "state_dir", "failsafe", "geofence"} {
		if _, ok := top[k]; ok {
			return false
		}
	}
	return true
}

// hardwareSummary is "8 devices: base (diff_drive), front (range), …;
// boards: pi (raspi)".
func hardwareSummary(hw *drivers.Config) string {
	var devs, boards []string
	for _, d := range hw.Devices {
		devs = append(devs, fmt.Sprintf("%s (%s)", d.Name, d.Kind))
	}
	for name, a := range hw.Adaptors {
		boards = append(boards, fmt.Sprintf("%s (%s)", name, a.Kind))
	}
	slices.Sort(boards)
	if len(boards) == 0 {
		boards = []string{"none (the devices bring their own link)"}
	}
	return fmt.Sprintf("%d devices: %s; boards: %s", len(devs), strings.Join(devs, ", "), strings.Join(boards, ", "))
}

func checkConfigFile(file string) error {
	cfg, err := loadConfig(file)
	if err != nil {
		return err
	}
	return checkConfig(cfg)
}

// checkConfig validates what a config refers to, without starting anything.
func checkConfig(cfg *Config) error {
	data, name, err := cfg.hardwareYAML()
	if err != nil {
		return fmt.Errorf("%s: hardware: %w", cfg.source, err)
	}
	hw, err := drivers.ParseConfig(data)
	if err != nil {
		return fmt.Errorf("%s: hardware (%s): %w", cfg.source, name, err)
	}
	if err := cfg.checkSubstitutionsSim(hw); err != nil {
		return err
	}
	if cfg.World != "" {
		if _, err := loadWorld(cfg); err != nil {
			return fmt.Errorf("%s: %w", cfg.source, err)
		}
	}
	fence, err := compileFence(cfg, hw)
	if err != nil {
		return err
	}
	if cfg.Mission != "" {
		reg := bt.NewRegistry()
		drivers.Register(reg, hw)
		if _, _, err := configuredMission(cfg, reg, append(hw.SensorKeys(), cfg.Writable...), fence); err != nil {
			return err
		}
	}
	return nil
}
