package mavlink

import (
	"testing"

	"github.com/botd-project/botd/drivers/sim/multicopter"
)

// The simulated multicopter encodes PX4's custom modes as the vehicle kind reads and sets them.
func TestSimMulticopterSpeaksTheVehicleKindsModes(t *testing.T) {
	pairs := [][2]uint32{{px4Manual, multicopter.PX4Manual}, {px4AltCtl, multicopter.PX4AltCtl}, {px4PosCtl, multicopter.PX4PosCtl},
		{px4Auto, multicopter.PX4Auto}, {px4Acro, multicopter.PX4Acro}, {px4Offboard, multicopter.PX4Offboard},
		{px4Stabilized, multicopter.PX4Stabilized}, {px4AutoTakeoff, multicopter.PX4AutoTakeoff}, {px4AutoLoiter, multicopter.PX4AutoLoiter},
		{px4AutoMission, multicopter.PX4AutoMission}, {px4AutoRTL, multicopter.PX4AutoRTL}, {px4AutoLand, multicopter.PX4AutoLand}}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("PX4 mode constant %d here, %d in the simulator", p[0], p[1])
		}
	}
	want := map[flightMode]string{modeHold: "AUTO.LOITER", modeMission: "AUTO.MISSION", modeReturn: "AUTO.RTL", modeLand: "AUTO.LAND",
		modeTakeoff: "AUTO.TAKEOFF", modeGuided: "OFFBOARD", modePosition: "POSCTL", modeAltitude: "ALTCTL", modeManual: "MANUAL"}
	for m, name := range want {
		main, sub, err := encodeMode(apPX4, m)
		if err != nil {
			t.Fatal(err)
		}
		if got := multicopter.ModeName(uint32(main), uint32(sub)); got != name {
			t.Errorf("%s is %s to the simulator, want %s", m, got, name)
		}
		if back := decodeMode(apPX4, uint32(main)<<16|uint32(sub)<<24); back != m {
			t.Errorf("%s reads back as %s", m, back)
		}
	}
}
