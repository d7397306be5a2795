package bt

import "testing"

func TestTextValue(t *testing.T) {
	for in, want := range map[string]any{
		"true": true, "false": false, "12": 12.0, "-0.5": -0.5, "1e3": 1000.0,
		`"12"`: "12", `"a b"`: "a b", "dock": "dock", "": "", "Inf": "Inf", "NaN": "NaN", `"broken`: `"broken`,
	} {
		if got := TextValue(in).Interface(); got != want {
			t.Errorf("TextValue(%q) = %#v, want %#v", in, got, want)
		}
	}
}
