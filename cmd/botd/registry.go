package main

import (
	"fmt"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/configs"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/standard"
)

// deviceKinds are the device kinds this daemon knows (drivers/standard).
var deviceKinds = standard.Kinds()

// simHardware is the default simulated rover's hardware config.
func simHardware() (*drivers.Config, error) {
	data, err := configs.FS.ReadFile("sim.yaml")
	if err != nil {
		return nil, err
	}
	cfg, err := deviceKinds.ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("built-in sim.yaml: %w", err)
	}
	return cfg, nil
}

// loadHardware reads a hardware config file, or the built-in simulated
// rover when file is "".
func loadHardware(file string) (*drivers.Config, error) {
	if file == "" {
		return simHardware()
	}
	return deviceKinds.LoadConfig(file)
}

// newRegistry returns the node types of the built-ins plus the device
// leaves of hw.
func newRegistry(hw *drivers.Config) *bt.Registry {
	r := catalog.NewRegistry()
	if hw != nil {
		drivers.Register(r, deviceKinds, hw)
	}
	return r
}
