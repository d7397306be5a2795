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
