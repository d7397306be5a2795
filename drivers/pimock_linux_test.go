//go:build linux

package drivers

import (
	"encoding/binary"
	"math"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"gobot.io/x/gobot/v2"
	"gobot.io/x/gobot/v2/system"
)

// This file is what the tests of the mock Pi (raspi_linux_test.go) play of the kernel: gobot's
// mock system access records pin writes but takes no edge handlers, and its i2c syscalls answer
// nothing. A pinTap keeps the options a driver applies to one of gobot's mock pins and delivers
// edge events to its handler as the kernel's gpiocdev would; an i2cBusModel answers the SMBus
// ioctls gobot's i2c device makes, with register models of the chips on the bus.

// pinTap wraps one of gobot's mock digital pins.
type pinTap struct {
	gobot.DigitalPinner // the mock pin: writes are recorded, as before

	mu      sync.Mutex
	line    int
	handler func(int, time.Duration, string, uint32, uint32)
	edges   int // system's edge setting: 1 falling, 2 rising, 3 both
	level   int // what Read returns
	seq     uint32
	onWrite func(v int) // called after a Write (the HC-SR04 trigger), never under mu
}

var (
	_ gobot.DigitalPinOptioner      = (*pinTap)(nil)
	_ gobot.DigitalPinOptionApplier = (*pinTap)(nil)
)

// ApplyOptions runs the options on the tap (to catch the edge handler) and gives them to the
// mock pin too (which counts them).
func (p *pinTap) ApplyOptions(opts ...func(gobot.DigitalPinOptioner) bool) error {
	for _, o := range opts {
		o(p)
	}
	if ap, ok := p.DigitalPinner.(gobot.DigitalPinOptionApplier); ok {
		return ap.ApplyOptions(opts...)
	}
	return nil
}

func (p *pinTap) Read() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.level, nil
}

func (p *pinTap) Write(v int) error {
	if err := p.DigitalPinner.Write(v); err != nil {
		return err
	}
	p.mu.Lock()
	f := p.onWrite
	p.mu.Unlock()
	if f != nil {
		f(v)
	}
	return nil
}

func (p *pinTap) SetLabel(string) bool                                      { return false }
func (p *pinTap) SetDirectionOutput(int) bool                               { return false }
func (p *pinTap) SetDirectionInput() bool                                   { return false }
func (p *pinTap) SetActiveLow() bool                                        { return false }
func (p *pinTap) SetBias(int) bool                                          { return false }
func (p *pinTap) SetDrive(int) bool                                         { return false }
func (p *pinTap) SetDebounce(time.Duration) bool                            { return false }
func (p *pinTap) SetPollForEdgeDetection(time.Duration, chan struct{}) bool { return false }

func (p *pinTap) SetEventHandlerForEdge(h func(int, time.Duration, string, uint32, uint32), edges int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handler, p.edges = h, edges
	return true
}

// fire sets the pin's level and, when a handler listens for that edge, delivers the event on
// the caller's goroutine (never under the tap's lock). It reports whether a handler took it.
func (p *pinTap) fire(level int, ts time.Duration) bool {
	p.mu.Lock()
	changed := p.level != level
	p.level = level
	h, edges, line := p.handler, p.edges, p.line
	mask, name := 2, system.DigitalPinEventRisingEdge
	if level == 0 {
		mask, name = 1, system.DigitalPinEventFallingEdge
	}
	if !changed || h == nil || edges&mask == 0 {
		p.mu.Unlock()
		return false
	}
	p.seq++
	seq := p.seq
	p.mu.Unlock()
	h(line, ts, name, seq, seq)
	return true
}

// tap returns the tap on a header pin, made on first use.
func (m *mockPi) tap(header string) (*pinTap, error) {
	m.tapMu.Lock()
	defer m.tapMu.Unlock()
	if t, ok := m.taps[header]; ok {
		return t, nil
	}
	p, err := m.DigitalPinsAdaptor.DigitalPin(header)
	if err != nil {
		return nil, err
	}
	t := &pinTap{DigitalPinner: p, line: piHeader[header]}
	m.taps[header] = t
	return t, nil
}

// DigitalPin is the DigitalPinsAdaptor's, with a tap on the pin.
func (m *mockPi) DigitalPin(id string) (gobot.DigitalPinner, error) { return m.tap(id) }

// quadEdges plays a quadrature encoder from position from to to (in quarter cycles: x4 counts):
// every count crossed toggles A or B, as the Gray sequence (A,B) = 00 10 11 01 goes forward.
// emit gets the channel, its new level and the fraction of the way at which it toggled.
func quadEdges(from, to float64, emit func(chB bool, level int, frac float64)) {
	a, b := math.Floor(from), math.Floor(to)
	if a == b {
		return
	}
	level := func(s int, chB bool) int {
		if chB {
			return btoi(s == 2 || s == 3)
		}
		return btoi(s == 1 || s == 2)
	}
	mod4 := func(k float64) int { return int(math.Mod(math.Mod(k, 4)+4, 4)) }
	if b > a {
		for k := a + 1; k <= b; k++ {
			s := mod4(k) // entering state s from s-1
			chB := mod4(k-1)%2 == 1
			emit(chB, level(s, chB), (k-from)/(to-from))
		}
		return
	}
	for k := a; k > b; k-- {
		s := mod4(k - 1) // entering state k-1 from k
		chB := s%2 == 1
		emit(chB, level(s, chB), (from-k)/(from-to))
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// smbusDevice is a chip on the mock i2c bus, at the SMBus level gobot's i2c device speaks.
type smbusDevice interface {
	readByte(reg byte) byte
	writeByte(reg, v byte)
	// readWord and writeWord are SMBus words: the register's first byte is the low one.
	readWord(reg byte) uint16
	writeWord(reg byte, v uint16)
}

// i2cBusModel answers gobot's i2c ioctls on the mock syscall.
type i2cBusModel struct {
	mu   sync.Mutex
	devs map[int]smbusDevice
	addr func() int // the address gobot's mock syscall last set (it keeps it unexported)
}

// smbusIoctl mirrors the kernel's struct i2c_smbus_ioctl_data (gobot's i2cSmbusIoctlData).
type smbusIoctl struct {
	readWrite byte
	command   byte
	protocol  uint32
	data      unsafe.Pointer
}

// ENXIO: no device answers at the address (what Linux returns for a NACK).
const errNoDevice = system.SyscallErrno(6)

func (b *i2cBusModel) set(addr int, d smbusDevice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.devs[addr] = d
}

func (b *i2cBusModel) ioctl(_, _, signal uintptr, payload unsafe.Pointer) (uintptr, uintptr, system.SyscallErrno) {
	switch signal {
	case system.I2C_FUNCS:
		*(*uint64)(payload) = system.I2C_FUNC_SMBUS_READ_BYTE | system.I2C_FUNC_SMBUS_WRITE_BYTE |
			system.I2C_FUNC_SMBUS_READ_BYTE_DATA | system.I2C_FUNC_SMBUS_WRITE_BYTE_DATA |
			system.I2C_FUNC_SMBUS_READ_WORD_DATA | system.I2C_FUNC_SMBUS_WRITE_WORD_DATA |
			system.I2C_FUNC_SMBUS_READ_I2C_BLOCK | system.I2C_FUNC_SMBUS_WRITE_I2C_BLOCK
		return 0, 0, 0
	case system.I2C_SMBUS:
	default:
		return 0, 0, 0
	}
	b.mu.Lock()
	d := b.devs[b.addr()]
	b.mu.Unlock()
	if d == nil {
		return 0, 0, errNoDevice
	}
	io := (*smbusIoctl)(payload)
	read := io.readWrite == system.I2C_SMBUS_READ
	switch io.protocol {
	case system.I2C_SMBUS_BYTE_DATA:
		p := (*byte)(io.data)
		if read {
			*p = d.readByte(io.command)
		} else {
			d.writeByte(io.command, *p)
		}
	case system.I2C_SMBUS_WORD_DATA:
		p := (*uint16)(io.data)
		if read {
			*p = d.readWord(io.command)
		} else {
			d.writeWord(io.command, *p)
		}
	case system.I2C_SMBUS_I2C_BLOCK_DATA:
		n := int(*(*byte)(io.data))
		buf := unsafe.Slice((*byte)(io.data), n+1)[1:]
		for i := range buf {
			if read {
				buf[i] = d.readByte(io.command + byte(i))
			} else {
				d.writeByte(io.command+byte(i), buf[i])
			}
		}
	default:
		return 0, 0, system.SyscallErrno(system.Syscall_EINVAL)
	}
	return 0, 0, 0
}

// mockAddress reads the address gobot's mock syscall keeps from the last I2C_TARGET ioctl.
func mockAddress(ms any) func() int {
	f := reflect.ValueOf(ms).Elem().FieldByName("devAddress")
	return func() int { return int(f.Uint()) }
}

// mpuModel is an MPU6050's registers as gobot's driver uses them: reset through PWR_MGMT_1,
// WHO_AM_I, the full-scale settings, and 14 data bytes (accel, temperature, gyro) made from the
// rate of turn it is given.
type mpuModel struct {
	mu     sync.Mutex
	regs   [0x76]byte
	whoAmI byte
	rate   float64 // rad/s about z, counter-clockwise
}

func newMPU() *mpuModel {
	m := &mpuModel{whoAmI: 0x68}
	m.regs[0x6B] = 0x40
	return m
}

func (m *mpuModel) setRate(r float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rate = r
}

func (m *mpuModel) readByte(reg byte) byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case reg == 0x75:
		return m.whoAmI
	case reg >= 0x3B && reg <= 0x48:
		var d [14]byte
		lsb := [4]float64{131, 65.5, 32.8, 16.4}[m.regs[0x1B]>>3&3]
		vals := [7]float64{0, 0, 16384 / float64(int(1)<<(m.regs[0x1C]>>3&3)), (25 - 36.53) * 340, 0, 0, m.rate * 180 / math.Pi * lsb}
		for i, v := range vals {
			binary.BigEndian.PutUint16(d[2*i:], uint16(int16(math.Round(math.Max(math.Min(v, 32767), -32768)))))
		}
		return d[reg-0x3B]
	case int(reg) < len(m.regs):
		return m.regs[reg]
	}
	return 0
}

func (m *mpuModel) writeByte(reg, v byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case reg == 0x6B && v&0x80 != 0:
		m.regs = [0x76]byte{}
		m.regs[0x6B] = 0x40
	case int(reg) < len(m.regs):
		m.regs[reg] = v
	}
}

func (m *mpuModel) readWord(reg byte) uint16 {
	return uint16(m.readByte(reg)) | uint16(m.readByte(reg+1))<<8
}

func (m *mpuModel) writeWord(reg byte, v uint16) {
	m.writeByte(reg, byte(v))
	m.writeByte(reg+1, byte(v>>8))
}
