package gps

import (
	"math"
	"strings"
	"testing"

	"github.com/botd-project/botd/drivers"
)

// Defaults that depend on the hardware: a gps device gives a fence its origin and pose key; a
// pose key nothing writes is refused.
func TestFenceCompileAgainstHardware(t *testing.T) {
	hw, err := kinds().ParseConfig([]byte(`
adaptors: {board: {kind: sim}}
devices:
  - {name: base, kind: diff_drive, left: {speed: "11", dir: "13"}, right: {speed: "15", dir: "16"}, wheel_base: 0.2, max_linear: 0.4, max_angular: 2, max_wheel_speed: 0.5}
  - {name: gps, kind: gps, origin: {lat: 52.5, lon: 13.4}}
`))
	if err != nil {
		t.Fatal(err)
	}
	g := &drivers.GeofenceConfig{Frame: "global", Points: [][2]float64{{52.5, 13.4}, {52.5, 13.401}, {52.501, 13.401}}}
	f, err := drivers.CompileFence(g, hw, "geofence")
	if err != nil {
		t.Fatal(err)
	}
	// The first corner is the gps device's origin: (0, 0) in the local frame.
	xs, ys := f.Corners()
	if f.PoseKey() != "gps" || math.Abs(xs[0]) > 1e-9 || math.Abs(ys[0]) > 1e-9 || xs[1] < 60 || xs[1] > 70 {
		t.Errorf("pose key %q corners %v %v", f.PoseKey(), xs, ys)
	}
	g = &drivers.GeofenceConfig{Frame: "local", PoseKey: "pose", Points: [][2]float64{{0, 0}, {1, 0}, {0, 1}}}
	if _, err := drivers.CompileFence(g, hw, "geofence"); err == nil || !strings.Contains(err.Error(), "geofence.pose_key: no device writes pose.x") {
		t.Errorf("got %v", err)
	}
}
