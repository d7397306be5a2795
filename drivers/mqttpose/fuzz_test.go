package mqttpose

import (
	"math"
	"testing"
)

// FuzzExtPose feeds mqtt_pose messages (outside input: anything may arrive on the topic): no
// panic, and whatever is accepted is a finite pose with a quality within 0..1.
func FuzzExtPose(f *testing.F) {
	for _, s := range []string{
		`{"x": 1, "y": 2, "heading": 0.5, "ts": 1700000000}`,
		`{"x": 1, "y": 2, "heading": 0.5, "ts": 1700000000.1, "frame": "map", "quality": 0.8, "sigma": 0.01}`,
		`{"x": 1e308, "y": -1e308, "heading": 1e300, "ts": 1e300}`,
		`{"x": 1, "y": 2, "heading": 0.5, "ts": 1700000000, "z": 1}`,
		`[1, 2, 3]`, `null`, `{"x": "1"}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := newPoseRig(t, "")
		g.m.handle(data)
		g.m.handle(data)
		if _, _, _, ok := g.latest(); ok {
			for i, v := range g.vals {
				if math.IsNaN(v) || math.IsInf(v, 0) || i == 3 && (v < 0 || v > 1) {
					t.Fatalf("accepted %q as %v", data, g.vals)
				}
			}
		}
	})
}
