package odometry

import (
	"math"
	"strings"
	"testing"
	"time"
)

// gray plays n quadrature counts (negative: backward) into a counter through the edge
// handler, as the pins would report them.
func gray(w *wheelCounter, pos *int, n int) {
	levels := func(s int) (a, b int) {
		s = ((s % 4) + 4) % 4
		return btoiT(s == 1 || s == 2), btoiT(s == 2 || s == 3)
	}
	step := 1
	if n < 0 {
		step, n = -1, -n
	}
	for range n {
		a0, b0 := levels(*pos)
		*pos += step
		a1, b1 := levels(*pos)
		kind := func(l int) string {
			if l == 1 {
				return risingEdge
			}
			return fallingEdge
		}
		if a1 != a0 {
			w.edge(false, kind(a1), 0)
		}
		if b1 != b0 {
			w.edge(true, kind(b1), 0)
		}
	}
}

func btoiT(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestQuadratureCounting(t *testing.T) {
	w := &wheelCounter{quad: true}
	pos := 0
	gray(w, &pos, 10)
	if c, m := w.read(); c != 10 || m != 0 {
		t.Fatalf("10 forward: count %d missed %d", c, m)
	}
	gray(w, &pos, -25)
	if c, m := w.read(); c != -15 || m != 0 {
		t.Fatalf("25 back: count %d missed %d", c, m)
	}
	// A lost edge: A rises twice in a row. It is counted as missed, not as motion.
	a, _ := w.a, w.b
	kind := fallingEdge
	if a == 0 {
		kind = risingEdge
	}
	w.edge(false, kind, 0)
	w.edge(false, kind, 0)
	if c, m := w.read(); c != -14 && c != -16 || m != 1 {
		t.Errorf("after a doubled edge: count %d missed %d, want ±1 and 1 missed", c, m)
	}
	rev := &wheelCounter{quad: true, reverse: true}
	pos = 0
	gray(rev, &pos, 8)
	if c, _ := rev.read(); c != -8 {
		t.Errorf("reversed: %d, want -8", c)
	}
	single := &wheelCounter{}
	pos = 0
	gray(single, &pos, -12) // direction does not matter: only edges of A, counted
	if c, _ := single.read(); c != 6 {
		t.Errorf("single channel: %d edges of A in 12 counts, want 6", c)
	}
	if got := (&wheelCounter{quad: true}).countsPerRev(20); got != 80 {
		t.Errorf("quadrature counts per rev %v", got)
	}
	if got := single.countsPerRev(20); got != 40 {
		t.Errorf("single counts per rev %v", got)
	}
}

func TestOdometerIntegrates(t *testing.T) {
	o := &odometer{track: 0.2, gyroWeight: 0.98}
	// A quarter circle of radius 1 m to the left, in 100 steps; wheels and gyro agree.
	for range 100 {
		dth := math.Pi / 2 / 100
		dl, dr := dth*(1-0.1), dth*(1+0.1)
		o.step(dl, dr, dth, 0.02, true, false, srcEncodersGyro)
	}
	if math.Hypot(o.x-1, o.y-1) > 1e-3 || math.Abs(o.heading-math.Pi/2) > 1e-9 {
		t.Errorf("quarter circle ends at (%.4f, %.4f) heading %.4f, want (1, 1) π/2", o.x, o.y, o.heading)
	}
	if math.Abs(o.sigma-0.02*math.Pi/2) > 1e-9 {
		t.Errorf("sigma %v after π/2 m", o.sigma)
	}
	// The right wheel slips 10%: the wheels think the rover turns right, the gyro says it goes
	// straight. The fused heading follows the gyro, the wheels alone drift.
	fused := &odometer{track: 0.2, gyroWeight: 0.98}
	wheels := &odometer{track: 0.2, gyroWeight: 0.98}
	for range 200 {
		fused.step(0.01, 0.009, 0, 0.02, true, false, srcEncodersGyro)
		wheels.step(0.01, 0.009, 0, 0, false, false, srcEncoders)
	}
	// (The filter keeps 2% of the wheels' view: 2% of their drift.)
	f, w := math.Abs(fused.heading)*180/math.Pi, math.Abs(wheels.heading)*180/math.Pi
	if w < 20 {
		t.Fatalf("wheels alone drifted only %.2f°: the slip case is not a test", w)
	}
	if f > 0.021*w {
		t.Errorf("fused heading drifted %.2f° with a slipping wheel (wheels alone %.2f°)", f, w)
	}
}

func TestOdometerLearnsGyroBias(t *testing.T) {
	o := &odometer{track: 0.2, gyroWeight: 1}
	const bias = 0.02 // rad/s
	for range 200 {
		o.step(0, 0, bias*0.02, 0.02, true, true, srcEncodersGyro)
	}
	if o.heading != 0 {
		t.Errorf("standing still moved the heading to %v", o.heading)
	}
	if math.Abs(o.bias-bias) > 1e-4 {
		t.Fatalf("learnt bias %v, want %v", o.bias, bias)
	}
	// Driving straight for 60 s: the bias no longer turns the heading.
	for range 3000 {
		o.step(0.01, 0.01, bias*0.02, 0.02, true, false, srcEncodersGyro)
	}
	if h := math.Abs(o.heading) * 180 / math.Pi; h > 0.5 {
		t.Errorf("heading drifted %.2f° in 60 s with the learnt bias (%.1f° without)", h, bias*60*180/math.Pi)
	}
}

func TestStallCheck(t *testing.T) {
	s := stallCheck{after: 500 * time.Millisecond, duty: 0.3}
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	s.update("left", 0.2, false, at(0)) // below stall duty: never
	s.update("left", 0.2, false, at(2000))
	if s.err != nil {
		t.Fatal("stalled below the stall duty")
	}
	s.update("left", 0.5, false, at(2000))
	s.update("left", 0.5, false, at(2400))
	if s.err != nil {
		t.Fatal("stalled before stall_ms")
	}
	s.update("left", -0.5, false, at(2500))
	if s.err == nil || !strings.Contains(s.err.Error(), "left wheel") {
		t.Fatalf("no stall after 500 ms driven at 50%%: %v", s.err)
	}
	s.update("left", 0, false, at(3000))
	if s.err == nil {
		t.Error("a stall cleared by stopping the motor: it must hold until the encoder counts")
	}
	s.update("left", 0.5, true, at(3100))
	if s.err != nil {
		t.Error("counting again did not clear the stall")
	}
}

// BenchmarkEncoderEdge is one edge event through a quadrature counter (what gpiocdev's event
// goroutine runs for every edge).
func BenchmarkEncoderEdge(b *testing.B) {
	w := &wheelCounter{quad: true}
	pos := 0
	if n := testing.AllocsPerRun(100, func() { gray(w, &pos, 1) }); n != 0 {
		b.Fatalf("%v allocations per edge, want 0", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		gray(w, &pos, 1)
	}
}
