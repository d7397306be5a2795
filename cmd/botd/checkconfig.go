package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/drivers"
)

// runCheckConfig validates a daemon config: the file itself, its hardware
// section, its world and its mission, with the checks the daemon makes
// before it starts (a config it passes, the daemon starts with). A
// hardware file (the `hardware:` a config points at: adaptors and
// devices) is not a daemon config: it is checked and described, and
// refused as a config, unless -hardware says a hardware file is what is
// meant. Exit status 0 when valid.
func runCheckConfig(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hwOnly := fs.Bool("hardware", false, "FILE is a hardware file (adaptors and devices): check it alone")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: botd check-config FILE             a daemon config, with its hardware, world and mission")
		fmt.Fprintln(stderr, "       botd check-config -hardware FILE   a hardware file alone")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	file := fs.Arg(0)
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(stdout, err)
		return 1
	}
	if *hwOnly || isHardwareFile(data) {
		hw, err := deviceKinds.ParseConfig(data)
		switch {
		case err != nil:
			fmt.Fprintf(stdout, "%s: hardware file: %v\n", file, err)
		case *hwOnly:
			fmt.Fprintf(stdout, "%s: ok: a hardware file (%s); a daemon config uses it with `hardware: %s`\n", file, hardwareSummary(hw), filepath.Base(file))
			return 0
		default:
			fmt.Fprintf(stdout, "%s: a hardware file (%s)\n", file, hardwareSummary(hw))
		}
		if !*hwOnly {
			fmt.Fprintln(stdout, hardwareFileError(file))
		}
		return 1
	}
	cfg, err := readConfig(file)
	if cfg != nil {
		err = errors.Join(err, checkConfig(cfg))
	}
	if err != nil {
		fmt.Fprintln(stdout, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok\n", file)
	for _, n := range cfg.failsafeNotes() {
		fmt.Fprintf(stdout, "%s: note: %s\n", file, n)
	}
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

// checkConfigFile is check-config's verdict on a daemon config: every
// problem of the file and of what it refers to.
func checkConfigFile(file string) error {
	cfg, err := readConfig(file)
	if cfg == nil {
		return err
	}
	return errors.Join(err, checkConfig(cfg))
}

// checkConfig validates what a config refers to, without starting
// anything: its hardware, world, geofence and mission, and the failsafe
// against them. The daemon's start (build) makes the same checks with the
// same functions: checkHardware, compileFence, configuredMission.
func checkConfig(cfg *Config) error {
	if cfg.Hardware.Kind == 0 {
		return nil // validate says it is missing
	}
	data, name, err := cfg.hardwareYAML()
	if err != nil {
		return fmt.Errorf("%s: hardware: %w", cfg.source, err)
	}
	hw, err := deviceKinds.ParseConfig(data)
	if err != nil {
		return fmt.Errorf("%s: hardware (%s): %w", cfg.source, name, err)
	}
	var errs []error
	if err := cfg.checkHardware(hw); err != nil {
		errs = append(errs, err)
	}
	if cfg.World != "" {
		if _, err := loadWorld(cfg); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cfg.source, err))
		}
	}
	var fence *drivers.Fence
	if cfg.Geofence == nil || cfg.Geofence.Validate("geofence") == nil { // else validate reported it
		if fence, err = compileFence(cfg, hw); err != nil {
			errs = append(errs, err)
		}
	}
	if err == nil && cfg.Mission != "" {
		reg := catalog.NewRegistry()
		drivers.Register(reg, deviceKinds, hw)
		if _, _, err := configuredMission(cfg, reg, append(hw.SensorKeys(), cfg.Writable...), fence); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
