//go:build !linux

package gpio

import "github.com/botd-project/botd/drivers"

// builds is empty: Gobot's gpio drivers build only on Linux, and drivers.Build is not
// available elsewhere.
var builds, sensorBuilds map[string]func(*drivers.Builder) error
