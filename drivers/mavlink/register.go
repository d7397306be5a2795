// Package mavlink is the MAVLink vehicle family: a PX4 or ArduPilot vehicle flown over
// MAVLink 2 (gomavlib) with botd as its ground station, its config, its link, the mission and
// fence protocols, its command type and its UAV leaves (Arm, Takeoff, GoTo, Land, ...).
//
// The vehicle gives the robot its run-time abilities (drivers.Settler, Failsafer, FenceGuard,
// Autopilot; its actuator drivers.OwnDeadman and drivers.FenceActions), through which the
// core and the daemon reach it without naming it.
package mavlink

import "github.com/botd-project/botd/drivers"

// Register adds the mavlink_vehicle kind to r.
func Register(r *drivers.Registry) {
	r.Add(drivers.KindInfo{Name: Kind, Doc: "a PX4 or ArduPilot vehicle over MAVLink 2", Actuator: true, Boardless: true,
		New: func() drivers.Spec { return &Config{} }, Build: build, Leaves: uavTypes})
}
