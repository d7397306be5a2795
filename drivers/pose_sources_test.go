package drivers

import (
	"testing"
)

// TestLeavesReadTheOdometry: Turn and MoveTo read the pose under "pose" when a source writes
// it there, else the only source's key.
func TestLeavesReadTheOdometry(t *testing.T) {
	const base = `
adaptors: {pi: {kind: raspi}}
devices:
  - {name: base, kind: diff_drive, left: {speed: "32", dir: "29"}, right: {speed: "33", dir: "31"},
     wheel_base: 0.16, max_wheel_speed: 0.6, max_linear: 0.4, max_angular: 2}
`
	for _, tc := range []struct{ devices, want string }{
		{"  - {name: odom, kind: odometry}\n", "pose"},
		{"  - {name: odom, kind: odometry, key: odom}\n", "odom"},
	} {
		cfg := parse(t, base+tc.devices)
		if got := newLeafKit(cfg.Kinds, cfg).PoseKey(); got != tc.want {
			t.Errorf("%s: leaves read %q, want %q", tc.devices, got, tc.want)
		}
	}
	if got := newLeafKit(testKinds(), loadSimConfig(t)).PoseKey(); got != "pose" {
		t.Errorf("sim.yaml: leaves read %q", got)
	}
}
