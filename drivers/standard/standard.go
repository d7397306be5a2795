// Package standard is the one list of the device families botd compiles in: one line per
// family. A new family adds its line here and touches nothing else outside its own folder.
package standard

import (
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/gpio"
	"github.com/botd-project/botd/drivers/gps"
	"github.com/botd-project/botd/drivers/mavlink"
	"github.com/botd-project/botd/drivers/mqttpose"
	"github.com/botd-project/botd/drivers/odometry"
	"github.com/botd-project/botd/drivers/tello"
)

// Kinds returns a registry of every device kind botd knows.
func Kinds() *drivers.Registry {
	r := drivers.NewRegistry()
	gpio.Register(r)
	gps.Register(r)
	mavlink.Register(r)
	mqttpose.Register(r)
	odometry.Register(r)
	tello.Register(r)
	return r
}
