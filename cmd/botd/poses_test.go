package main

import (
	"slices"
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

// The factsheet names the devices that write the robot's position, found
// by what their kind can do: the simulated rover's truth and its odometry
// (local), the UAV's MAVLink vehicle (NED and lat/lon).
func TestFactsheetPoseSources(t *testing.T) {
	for _, c := range []struct {
		file string
		want []protocol.PoseSource
	}{
		{"", []protocol.PoseSource{{Device: "pose", Key: "pose", Frame: protocol.PoseLocal}, {Device: "odom", Key: "odom", Frame: protocol.PoseLocal}}},
		{"../../configs/sim-odometry.yaml", []protocol.PoseSource{{Device: "truth", Key: "truth", Frame: protocol.PoseLocal}, {Device: "odom", Key: "pose", Frame: protocol.PoseLocal}}},
		{"../../configs/uav-sim-hw.yaml", []protocol.PoseSource{{Device: "uav", Key: "uav", Frame: protocol.PoseVehicle}}},
	} {
		hw, err := loadHardware(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := poseSources(hw); !slices.Equal(got, c.want) {
			t.Errorf("%q: pose sources %+v, want %+v", c.file, got, c.want)
		}
	}
}

// The factsheet names a vehicle's mode numbers (vehicle_modes) from its
// kind's spec; a robot without a vehicle names none.
func TestFactsheetVehicleModes(t *testing.T) {
	hw, err := loadHardware("../../configs/uav-sim-hw.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := vehicleModes(hw)
	if len(got) == 0 || got[5] != "hold" || got[10] != "guided" {
		t.Errorf("the UAV's mode names: %q", got)
	}
	if !slices.Equal(got, protocol.DefaultVehicleModes) {
		t.Errorf("the vehicle's mode names %q differ from the ground station's defaults %q", got, protocol.DefaultVehicleModes)
	}
	rover, err := loadHardware("")
	if err != nil {
		t.Fatal(err)
	}
	if got := vehicleModes(rover); got != nil {
		t.Errorf("a rover names vehicle modes: %q", got)
	}
}
