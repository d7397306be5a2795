package sim

import (
	"encoding/binary"
	"fmt"
	"math"
)

// MPU6050 register model: the registers the Gobot driver uses, behaving as the datasheet says.
const (
	mpuRegGyroConfig  = 0x1B // FS_SEL in bits 4:3
	mpuRegAccelConfig = 0x1C // AFS_SEL in bits 4:3
	mpuRegDataFirst   = 0x3B // ACCEL_XOUT_H; 14 bytes big-endian: accel xyz, temp, gyro xyz
	mpuRegDataLast    = 0x48 // GYRO_ZOUT_L
	mpuRegPwrMgmt1    = 0x6B // bit 7 DEVICE_RESET (self-clearing), bit 6 SLEEP
	mpuRegWhoAmI      = 0x75
	mpuResetBit       = 0x80
	mpuSleepBit       = 0x40
	mpuNumRegs        = 0x76

	// StandardGravity is what the simulated accelerometer reads at rest on level ground (m/s²),
	// the same constant the Gobot MPU6050 driver divides by, so GetData gives Z = 9.80665.
	StandardGravity = 9.80665
	imuTemperature  = 25.0 // °C
)

var mpuGyroLSB = [4]float64{131, 65.5, 32.8, 16.4} // LSB per °/s for FS_SEL 0..3

type mpu6050 struct {
	regs [mpuNumRegs]byte
	ptr  byte // register pointer for plain reads and writes
}

// reset is the power-on state: everything zero, asleep, WHO_AM_I = 0x68.
func (m *mpu6050) reset() {
	*m = mpu6050{}
	m.regs[mpuRegPwrMgmt1] = mpuSleepBit
	m.regs[mpuRegWhoAmI] = 0x68
}

// imuXfer is one bus transaction with the world locked, so a 14-byte read is one consistent
// sample.
type imuXfer struct {
	r       *Robot
	sample  [14]byte
	sampled bool
}

func (x *imuXfer) read(reg byte) byte {
	m := &x.r.imu
	if reg >= mpuRegDataFirst && reg <= mpuRegDataLast {
		if !x.sampled {
			x.sample, x.sampled = x.r.imuSample(), true
		}
		return x.sample[reg-mpuRegDataFirst]
	}
	if int(reg) >= mpuNumRegs {
		return 0
	}
	return m.regs[reg]
}

func (x *imuXfer) write(reg, val byte) {
	m := &x.r.imu
	switch {
	case reg == mpuRegPwrMgmt1 && val&mpuResetBit != 0:
		m.reset() // the reset completes at once, so bit 7 reads back clear
	case reg == mpuRegWhoAmI, reg >= mpuRegDataFirst && reg <= mpuRegDataLast, int(reg) >= mpuNumRegs:
		// read-only or absent: ignored, as on the chip
	default:
		m.regs[reg] = val
	}
}

// readSeq reads len(buf) registers from reg on, auto-incrementing like the chip.
func (x *imuXfer) readSeq(reg byte, buf []byte) {
	for i := range buf {
		buf[i] = x.read(reg + byte(i))
	}
}

func (x *imuXfer) writeSeq(reg byte, data []byte) {
	for i, v := range data {
		x.write(reg+byte(i), v)
	}
}

// imu6050 runs one transaction against the robot's MPU6050 at addr, applying injected faults.
func (r *Robot) imu6050(addr int, op func(x *imuXfer)) error {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	if addr != r.cfg.IMU.Address {
		return fmt.Errorf("%w %#02x on bus %d", ErrNoDevice, addr, r.cfg.IMU.Bus)
	}
	f := r.faults[SensorIMU]
	switch {
	case f.err != nil:
		return f.err
	case f.silent:
		return fmt.Errorf("%w %#02x on bus %d (silenced)", ErrNoDevice, addr, r.cfg.IMU.Bus)
	}
	op(&imuXfer{r: r})
	return nil
}

// imuSample encodes the present motion as the 14 data registers, scaled by the configured full
// scale ranges. The IMU sits at the robot's centre, X forward, Y left, Z up. Asleep (the reset
// state until a driver clears SLEEP), the data registers read 0.
func (r *Robot) imuSample() [14]byte {
	var out [14]byte
	m := &r.imu
	if m.regs[mpuRegPwrMgmt1]&mpuSleepBit != 0 {
		return out
	}
	accelLSB := 16384.0 / float64(int(1)<<(m.regs[mpuRegAccelConfig]>>3&3)) // per g
	gyroLSB := mpuGyroLSB[m.regs[mpuRegGyroConfig]>>3&3]
	g := StandardGravity
	ax := g*math.Sin(r.pitch) + r.accelX
	ay := g*math.Sin(r.roll)*math.Cos(r.pitch) + r.v*r.omega // centripetal
	az := g * math.Cos(r.roll) * math.Cos(r.pitch)
	vals := [7]float64{
		ax / g * accelLSB, ay / g * accelLSB, az / g * accelLSB,
		(imuTemperature - 36.53) * 340,
		0, 0, (r.omega + r.cfg.Noise.GyroBias) * 180 / math.Pi * gyroLSB,
	}
	for i, v := range vals {
		binary.BigEndian.PutUint16(out[2*i:], uint16(int16(math.Round(math.Min(math.Max(v, math.MinInt16), math.MaxInt16)))))
	}
	return out
}
