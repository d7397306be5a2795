package drivers

import "time"

// Fault codes.
const (
	// FaultSensorStale: a sensor has had no good sample for longer than its stale_after_ms.
	FaultSensorStale = "SENSOR_STALE"
	// FaultSensorError: a sensor's last read failed (or gave an implausible value).
	FaultSensorError = "SENSOR_ERROR"
	// FaultDriverError: writing an actuator failed, or a driver did not start.
	FaultDriverError = "DRIVER_ERROR"
)

// Fault is a device problem that lasts: it is reported by Robot.Faults until the device works
// again.
type Fault struct {
	Device string
	// Key is the (first) blackboard key of a sensor; empty for actuators.
	Key     string
	Code    string
	Message string
	// Since is when the problem started (on the robot's clock).
	Since time.Time
}
