package drivers

import (
	"strings"
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

func TestCountProblems(t *testing.T) {
	fwd := [2]float64{1, 1}
	quad := [2]bool{true, true}
	if p := countProblems("forward", fwd, [2]int64{120, 118}, quad); len(p) != 0 {
		t.Errorf("good counts: %v", p)
	}
	p := countProblems("forward", fwd, [2]int64{0, -118}, quad)
	if len(p) != 2 || !strings.Contains(p[0], "the left encoder counted nothing forward") || !strings.Contains(p[1], "the right encoder counted -118 forward: swap its a and b") {
		t.Errorf("bad counts: %q", p)
	}
	if p := countProblems("backward", [2]float64{-1, -1}, [2]int64{60, 58}, [2]bool{}); len(p) != 0 {
		t.Errorf("single channel counts edges whatever the direction: %v", p)
	}
}
