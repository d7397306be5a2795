//go:build !firmata

package drivers

import (
	"fmt"

	"gobot.io/x/gobot/v2"
)

// firmataBuilt: the default build leaves gobot's firmata adaptor out, because it drags gobot's
// BLE client, tinygo's bluetooth and dbus into every binary; -tags firmata puts it back.
const firmataBuilt = false

// newFirmataBoard is not reached through Build, whose Validate refuses firmata boards in this
// build; it fails the same way for a robot made some other way.
func newFirmataBoard(name string, _ *AdaptorConfig) (gobot.Adaptor, error) {
	return nil, fmt.Errorf("drivers: board %q: %s", name, noFirmataMessage)
}
