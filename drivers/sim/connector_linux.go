//go:build linux

package sim

import (
	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/drivers/aio"
	"gobot.io/x/gobot/v2/drivers/gpio"
	"gobot.io/x/gobot/v2/drivers/i2c"
)

// Gobot's gpio and i2c driver packages import go-gpiocdev, which builds only on Linux, so the
// i2c.Connector half of the adaptor and these guards are Linux-only; the rest of the package
// (world, physics, digital/PWM/analog pins) builds everywhere.
var (
	_ gobot.Adaptor                 = (*Adaptor)(nil)
	_ gobot.DigitalPinnerProvider   = (*Adaptor)(nil)
	_ gpio.DigitalWriter            = (*Adaptor)(nil)
	_ gpio.DigitalReader            = (*Adaptor)(nil)
	_ gpio.PwmWriter                = (*Adaptor)(nil)
	_ gpio.ServoWriter              = (*Adaptor)(nil)
	_ aio.AnalogReader              = (*Adaptor)(nil)
	_ i2c.Connector                 = (*Adaptor)(nil)
	_ gobot.DigitalPinner           = (*simPin)(nil)
	_ gobot.DigitalPinOptioner      = (*simPin)(nil)
	_ gobot.DigitalPinOptionApplier = (*simPin)(nil)
)

// GetI2cConnection implements i2c.Connector. It fails for a bus the board does not have; a
// missing device at address shows up on the first transfer (ErrNoDevice), as on Linux.
func (a *Adaptor) GetI2cConnection(address, bus int) (i2c.Connection, error) {
	c, err := a.i2cConnection(address, bus)
	if err != nil {
		return nil, err // a nil *i2cConn must not become a non-nil interface
	}
	return c, nil
}
