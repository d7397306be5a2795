package gpio

import (
	"strings"
	"testing"
)

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
