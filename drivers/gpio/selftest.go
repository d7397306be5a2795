package gpio

import (
	"fmt"
	"math"
)

// sideNames name the wheels by index.
var sideNames = [2]string{"left", "right"}

func countProblems(pulse string, want [2]float64, delta [2]int64, quad [2]bool) []string {
	var out []string
	for i, n := range delta {
		switch {
		case n == 0:
			out = append(out, fmt.Sprintf("the %s encoder counted nothing %s (its wiring or power, or the wheel did not turn)", sideNames[i], pulse))
		case quad[i] && math.Copysign(1, float64(n)) != want[i]:
			out = append(out, fmt.Sprintf("the %s encoder counted %+d %s: swap its a and b pins (or set reverse: true), unless the motor itself is wired backward", sideNames[i], n, pulse))
		}
	}
	return out
}
