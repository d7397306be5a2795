package protocol

import "testing"

func TestVehicleModeName(t *testing.T) {
	for _, c := range []struct {
		names []string
		v     float64
		want  string
	}{
		{nil, 10, "guided"},
		{nil, 8, "land"},
		{nil, 99, "unknown"},
		{nil, 1.5, "unknown"},
		{nil, -1, "unknown"},
		{[]string{"a", "b"}, 1, "b"},
		{[]string{"a", "b"}, 2, "unknown"},
	} {
		if got := VehicleModeName(c.names, c.v); got != c.want {
			t.Errorf("VehicleModeName(%v, %v) = %q, want %q", c.names, c.v, got, c.want)
		}
	}
}
