package odometry

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/botd-project/botd/drivers"
)

// This file is the arithmetic of wheel odometry, apart from any board: counting encoder edges,
// integrating the wheels' travel into a pose at a fixed rate, fusing the heading with the gyro
// and noticing a wheel whose encoder stops counting while its motor is driven. The device that
// wires it to pins, the drive and the gyro is in device_linux.go.

// Edge names as gobot's system package reports them to an edge handler
// (system.DigitalPinEventRisingEdge and DigitalPinEventFallingEdge).
const (
	risingEdge  = "rising edge"
	fallingEdge = "falling edge"
)

// odoSource is what an odometry pose is made from: its quality, written to <key>.quality (how
// far a mission may trust it; the simulator's ground truth would be 1), and how fast its
// position uncertainty (<key>.sigma, m) grows per metre travelled. Encoders lose a few percent
// to slip and wheel wear; commanded speeds know nothing of load, battery sag or a blocked
// wheel.
type odoSource struct {
	quality, sigmaPerMetre float64
}

var (
	srcEncodersGyro  = odoSource{0.7, 0.02}  // wheel encoders, heading fused with the gyro
	srcEncoders      = odoSource{0.5, 0.05}  // wheel encoders alone (no IMU, or a stale one)
	srcCommandedGyro = odoSource{0.3, 0.10}  // dead reckoning: commanded wheel speeds, gyro heading
	srcCommanded     = odoSource{0.15, 0.25} // dead reckoning alone: a rough guess
)

// wheelCounter counts one wheel's encoder edges. Its pins' edge handlers call edge from the
// goroutines gpiocdev runs per line (or the simulated board's stepper), so it has its own lock;
// the handlers only count, never allocate, and never block on anything but that lock.
type wheelCounter struct {
	quad    bool // channels A and B (x4 decoding); else channel A alone (both edges)
	reverse bool // counts down when the wheel turns forward (a mirrored encoder)

	mu     sync.Mutex
	a, b   int8  // last levels of A and B (quadrature)
	count  int64 // quadrature: signed counts, forward positive (before reverse); single: edges
	missed int64 // transitions that cannot happen without a lost edge
	last   time.Duration
}

// setLevels seeds the quadrature state with the pins' levels read at start.
func (w *wheelCounter) setLevels(a, b int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.a, w.b = int8(a&1), int8(b&1)
}

// edge records an edge on channel A (chB false) or B. With x4 decoding of the Gray sequence
// (A,B) = 00 → 10 → 11 → 01 → 00 forward, an edge on A is forward when A's new level differs
// from B, and an edge on B is forward when B's new level equals A. An edge that leaves its
// channel where it was means one was lost in between; it is counted as missed, not guessed.
func (w *wheelCounter) edge(chB bool, kind string, ts time.Duration) {
	level := int8(0)
	if kind == risingEdge {
		level = 1
	} else if kind != fallingEdge {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = ts
	if !w.quad {
		if !chB {
			w.count++
		}
		return
	}
	switch {
	case !chB && level == w.a, chB && level == w.b:
		w.missed++
	case !chB:
		w.a = level
		if w.a != w.b {
			w.count++
		} else {
			w.count--
		}
	default:
		w.b = level
		if w.b == w.a {
			w.count++
		} else {
			w.count--
		}
	}
}

// read returns the counts so far (with reverse applied) and the missed edges.
func (w *wheelCounter) read() (count, missed int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.count
	if w.reverse && w.quad {
		c = -c
	}
	return c, w.missed
}

// countsPerRev is how many counts one wheel revolution gives: four per cycle with both
// channels, two (both edges of A) with one.
func (w *wheelCounter) countsPerRev(ticksPerRev float64) float64 {
	if w.quad {
		return 4 * ticksPerRev
	}
	return 2 * ticksPerRev
}

// odometer integrates a differential drive's pose from its wheels' travel, sampled at a fixed
// rate, with the heading fused from the wheels and the gyro by a complementary filter: each
// heading change is gyroWeight parts the gyro's and the rest the wheels'. The gyro does not
// see wheel slip; the wheels do not see gyro bias, and the bias is also learnt while the robot
// stands still (no counts, motors off) and taken out.
type odometer struct {
	track      float64 // m between the wheels' contact lines
	gyroWeight float64

	x, y, heading float64
	travelled     float64 // m, for the uncertainty
	sigma         float64 // m
	bias          float64 // rad/s, learnt gyro bias
	still         int     // consecutive samples standing still
}

// stillSamples: this many samples without wheel motion and with the motors off before the
// gyro's reading counts as its bias (the body may still be settling before). A rover learns
// its gyro's bias in the first second it stands still after starting, and keeps it up to date
// at every stop; one that never stops drifts by the bias it has not learnt.
const stillSamples = 10

// biasGain is the weight of one still sample in the gyro bias estimate.
const biasGain = 0.05

// step integrates one sample: the wheels moved dl and dr metres; the gyro's heading changed
// by dGyro over gyroDt seconds (haveGyro false: no usable gyro sample); still says the robot
// stands still (no counts and motors off), when the gyro's rate is its bias; src is what the
// sample was made from.
func (o *odometer) step(dl, dr float64, dGyro, gyroDt float64, haveGyro, still bool, src odoSource) {
	dEnc := (dr - dl) / o.track
	d := dEnc
	if haveGyro {
		if still && gyroDt > 0 {
			o.still++
			if k := o.still - stillSamples + 1; k > 0 {
				// A running mean of the first still samples, then a slow average.
				o.bias += math.Max(1/float64(k), biasGain) * (dGyro/gyroDt - o.bias)
			}
		} else {
			o.still = 0
		}
		d = o.gyroWeight*(dGyro-o.bias*gyroDt) + (1-o.gyroWeight)*dEnc
		if still {
			d = 0 // no wheel moved and no motor drives: what the gyro says is its noise
		}
	}
	ds := (dl + dr) / 2
	mid := o.heading + d/2
	o.x += ds * math.Cos(mid)
	o.y += ds * math.Sin(mid)
	o.heading = drivers.WrapAngle(o.heading + d)
	travel := (math.Abs(dl) + math.Abs(dr)) / 2
	o.travelled += travel
	o.sigma += src.sigmaPerMetre * travel
}

// stallCheck notices a wheel whose encoder counts nothing while its motor is driven hard
// enough to turn it: a broken wire, a slipped magnet, or a stalled motor.
type stallCheck struct {
	after time.Duration
	duty  float64
	since time.Time // driven without counts since; zero: not
	err   error     // set once stalled, until the encoder counts again
}

// update is one sample of a wheel: its written duty and whether its count changed.
func (s *stallCheck) update(side string, duty float64, moved bool, now time.Time) {
	switch {
	case moved:
		s.since, s.err = time.Time{}, nil
	case math.Abs(duty) < s.duty:
		s.since = time.Time{}
	case s.since.IsZero():
		s.since = now
	case s.err == nil && now.Sub(s.since) >= s.after:
		s.err = fmt.Errorf("encoder stall: the %s wheel's encoder counted nothing for %v while its motor was driven at %.0f%% "+
			"(a broken encoder wire, or a stalled motor)", side, s.after, math.Abs(duty)*100)
	}
}

// sideNames name the wheels by index.
var sideNames = [2]string{"left", "right"}
