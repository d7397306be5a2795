//go:build firmata

package drivers

import (
	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/platforms/firmata"
)

// firmataBuilt: this binary was built with -tags firmata and links gobot's firmata adaptor
// (and, through it, gobot's BLE client, tinygo's bluetooth and dbus).
const firmataBuilt = true

func newFirmataBoard(name string, a *AdaptorConfig) (gobot.Adaptor, error) {
	f := firmata.NewAdaptor(a.Port)
	f.SetName(name)
	return f, nil
}
