package main

import (
	"fmt"
	"io"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers"
)

// runCheckConfig validates a daemon config: the file itself, its hardware
// section, its world and its mission. Exit status 0 when valid.
func runCheckConfig(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: botd check-config FILE")
		return 2
	}
	if err := checkConfigFile(args[0]); err != nil {
		fmt.Fprintln(stdout, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok\n", args[0])
	return 0
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
	if cfg.World != "" {
		if _, err := loadWorld(cfg); err != nil {
			return fmt.Errorf("%s: %w", cfg.source, err)
		}
	}
	if cfg.Mission != "" {
		reg := bt.NewRegistry()
		drivers.Register(reg, hw)
		if _, _, err := configuredMission(cfg, reg, append(hw.SensorKeys(), cfg.Writable...)); err != nil {
			return err
		}
	}
	return nil
}
