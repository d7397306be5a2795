package sim

import (
	"fmt"

	"gobot.io/x/gobot/v2"
)

// maxBlock is the SMBus i2c-block limit the Linux i2c device enforces; the sim enforces it too
// so a driver that works here works on a Pi.
const maxBlock = 32

// i2cConn is one device address on the simulated bus, implementing gobot.I2cOperations (which
// is what i2c.Connection is). It implements the connection directly instead of a bus-level
// gobot.I2cSystemDevicer wrapped by i2c.NewConnection: that interface's ReadByte(address) and
// WriteByte(address, val) cannot pass go vet's stdmethods check, and NewConnection only
// forwards. The only device on the bus is the robot's MPU6050; every call is one locked
// transaction against its register model.
type i2cConn struct {
	a    *Adaptor
	bus  int
	addr int
}

var _ gobot.I2cOperations = (*i2cConn)(nil)

func (a *Adaptor) i2cConnection(addr, bus int) (*i2cConn, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.connected {
		return nil, fmt.Errorf("sim: %s i2c bus %d: %w", a.name, bus, ErrNotConnected)
	}
	if bus != a.robot.cfg.IMU.Bus {
		return nil, fmt.Errorf("%w %d (the simulated board has bus %d)", ErrNoBus, bus, a.robot.cfg.IMU.Bus)
	}
	if addr < 0 || addr > 0x7f {
		return nil, fmt.Errorf("sim: i2c address %#x is not a 7-bit address", addr)
	}
	return &i2cConn{a: a, bus: bus, addr: addr}, nil
}

func (c *i2cConn) do(op func(x *imuXfer)) error {
	c.a.mu.Lock()
	connected := c.a.connected
	c.a.mu.Unlock()
	if !connected {
		return fmt.Errorf("sim: i2c bus %d address %#02x: %w", c.bus, c.addr, ErrNotConnected)
	}
	return c.a.robot.imu6050(c.addr, op)
}

func checkBlock(n int) error {
	if n > maxBlock {
		return fmt.Errorf("sim: i2c block of %d bytes is larger than %d", n, maxBlock)
	}
	return nil
}

// ReadByte reads at the register pointer and advances it.
func (c *i2cConn) ReadByte() (byte, error) {
	var v byte
	err := c.do(func(x *imuXfer) {
		v = x.read(x.r.imu.ptr)
		x.r.imu.ptr++
	})
	return v, err
}

// ReadByteData reads one register.
func (c *i2cConn) ReadByteData(reg uint8) (uint8, error) {
	var v byte
	err := c.do(func(x *imuXfer) { v = x.read(reg) })
	return v, err
}

// ReadWordData is an SMBus word read: the first register is the low byte.
func (c *i2cConn) ReadWordData(reg uint8) (uint16, error) {
	var v uint16
	err := c.do(func(x *imuXfer) { v = uint16(x.read(reg)) | uint16(x.read(reg+1))<<8 })
	return v, err
}

// ReadBlockData reads len(data) registers from reg on, as one sample.
func (c *i2cConn) ReadBlockData(reg uint8, data []byte) error {
	if err := checkBlock(len(data)); err != nil {
		return err
	}
	return c.do(func(x *imuXfer) { x.readSeq(reg, data) })
}

// WriteByte sets the register pointer, as a one-byte write does on the MPU6050.
func (c *i2cConn) WriteByte(val byte) error {
	return c.do(func(x *imuXfer) { x.r.imu.ptr = val })
}

// WriteByteData writes one register.
func (c *i2cConn) WriteByteData(reg uint8, val uint8) error {
	return c.do(func(x *imuXfer) { x.write(reg, val) })
}

// WriteBlockData writes registers from reg on.
func (c *i2cConn) WriteBlockData(reg uint8, data []byte) error {
	if err := checkBlock(len(data)); err != nil {
		return err
	}
	return c.do(func(x *imuXfer) { x.writeSeq(reg, data) })
}

// WriteWordData is an SMBus word write: the low byte goes to reg.
func (c *i2cConn) WriteWordData(reg uint8, val uint16) error {
	return c.do(func(x *imuXfer) { x.writeSeq(reg, []byte{byte(val), byte(val >> 8)}) })
}

// WriteBytes is a plain write: the first byte sets the register pointer, the rest are written
// from there on.
func (c *i2cConn) WriteBytes(data []byte) error {
	_, err := c.Write(data)
	return err
}

// Read is a plain read from the register pointer on.
func (c *i2cConn) Read(buf []byte) (int, error) {
	err := c.do(func(x *imuXfer) {
		x.readSeq(x.r.imu.ptr, buf)
		x.r.imu.ptr += byte(len(buf))
	})
	if err != nil {
		return 0, err
	}
	return len(buf), nil
}

// Write is a plain write; see WriteBytes.
func (c *i2cConn) Write(data []byte) (int, error) {
	err := c.do(func(x *imuXfer) {
		if len(data) == 0 {
			return
		}
		x.r.imu.ptr = data[0]
		x.writeSeq(data[0], data[1:])
		x.r.imu.ptr = data[0] + byte(len(data)-1)
	})
	if err != nil {
		return 0, err
	}
	return len(data), nil
}

// Close does nothing: the bus belongs to the adaptor.
func (c *i2cConn) Close() error { return nil }
