package sim

import "errors"

// Sentinel errors callers can branch on with errors.Is. The returned errors wrap them with the
// pin, bus or sensor involved.
var (
	// ErrNotConnected: the adaptor was used before Connect or after Finalize. A real board
	// fails the same way when its pins are not exported, so wiring bugs show up in simulation.
	ErrNotConnected = errors.New("sim: adaptor not connected")
	// ErrUnknownPin: a read of a pin that is neither mapped to a robot part nor written before.
	ErrUnknownPin = errors.New("sim: unknown pin")
	// ErrPinMode: the pin is mapped to a robot part that cannot do this operation (for example a
	// write to the bump switch input, or PWM on a direction pin).
	ErrPinMode = errors.New("sim: operation not supported by the pin's role")
	// ErrNoBus: an i2c bus number the simulated board does not have.
	ErrNoBus = errors.New("sim: no such i2c bus")
	// ErrNoDevice: no device answers at that i2c address, or the device was silenced
	// (Robot.SilenceSensor); on Linux this is "remote I/O error".
	ErrNoDevice = errors.New("sim: no i2c device answers at address")
	// ErrSensorFault is what a failed sensor returns when FailSensor was given a nil error.
	ErrSensorFault = errors.New("sim: injected sensor fault")
	// ErrInvalidWorld: a world file or WorldSpec that cannot be simulated.
	ErrInvalidWorld = errors.New("sim: invalid world")
	// ErrInvalidConfig: a RobotConfig that cannot be simulated.
	ErrInvalidConfig = errors.New("sim: invalid robot config")
)

// Sensor names for Robot.FailSensor, Robot.SilenceSensor and Robot.RestoreSensor.
const (
	SensorSonar   = "sonar"   // HC-SR04: fail = trigger write errors, silence = no echo (driver times out)
	SensorIMU     = "imu"     // MPU6050: fail = every transfer errors, silence = address does not ACK
	SensorBattery = "battery" // ADC: fail = AnalogRead errors, silence = reads 0 counts (sense wire off)
	SensorBump    = "bump"    // switch: fail = DigitalRead errors, silence = always reads 0 (released)
	// Wheel encoders: fail = their pins' reads error and they fire no edges, silence = wires
	// off (no edges, reads 0).
	SensorEncoderLeft  = "encoder_left"
	SensorEncoderRight = "encoder_right"
	// GPS receiver: fail or silence = it sends nothing.
	SensorGPS = "gps"
)

func validSensor(name string) bool {
	switch name {
	case SensorSonar, SensorIMU, SensorBattery, SensorBump, SensorEncoderLeft, SensorEncoderRight, SensorGPS:
		return true
	}
	return false
}
