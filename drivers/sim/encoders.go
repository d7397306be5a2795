package sim

import (
	"math"
	"time"
)

// Wheel encoders. Each wheel's encoder position is counted in quarter cycles of channel A (x4
// counts): the channels follow the Gray sequence (A,B) = 00 → 10 → 11 → 01 → 00 as the wheel
// turns forward, one channel toggling at each count. World.Step queues the edges of the
// wired channels, each stamped with when in the step it happened, and hands them to the
// robot's adaptor once the world is unlocked; the adaptor calls the pins' edge handlers.

// encEdge is one edge of an encoder channel.
type encEdge struct {
	role  pinRole
	level int
	at    time.Duration // on the world's clock
	line  int
}

// maxPendingEdges bounds the edges one Step queues per robot; past it they are dropped, as
// the kernel drops line events when its buffer is full (a huge Step at speed).
const maxPendingEdges = 4096

type encoderState struct {
	pos     [2]float64 // counts each wheel has turned
	pending []encEdge  // queued by step, under w.mu
	out     []encEdge  // being delivered, under w.deliverMu
	dropped uint64
	roles   [2][2]pinRole // wired roles by side and channel; roleNone when not wired
	lines   [2][2]int
	deliver func([]encEdge) // the adaptor's, set while it is connected
}

func (r *Robot) initEncoders() {
	p := r.cfg.Pins
	for side, chans := range [2][2]string{{p.LeftEncoderA, p.LeftEncoderB}, {p.RightEncoderA, p.RightEncoderB}} {
		for ch, pin := range chans {
			if pin == "" {
				continue
			}
			r.enc.roles[side][ch] = [2][2]pinRole{{roleLeftEncA, roleLeftEncB}, {roleRightEncA, roleRightEncB}}[side][ch]
			r.enc.lines[side][ch] = atoiOr(pin, 0)
		}
	}
}

func atoiOr(s string, def int) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return def
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// gray is the Gray state of encoder position k (floored x4 counts): k mod 4, negative
// positions included (two's complement makes & 3 the floored modulo).
func gray(k int64) int { return int(k & 3) }

// channelLevel is a channel's level in Gray state s.
func channelLevel(s int, chB bool) int {
	if chB {
		if s == 2 || s == 3 {
			return 1
		}
		return 0
	}
	if s == 1 || s == 2 {
		return 1
	}
	return 0
}

// turnEncoder turns wheel side's encoder by metres of rim travel during the dt that started at
// t0, and queues the edges of its wired channels; the caller holds w.mu. The count between
// x4 positions k-1 and k toggles channel A when k-1 is even and B when it is odd; each edge is
// stamped at the share of dt the wheel took to reach k. The positions are floored to integers
// once, so an edge costs integer arithmetic and one append into a buffer reused every step.
func (r *Robot) turnEncoder(side int, metres float64, t0, dt time.Duration) {
	c := r.cfg.Encoders
	from := r.enc.pos[side]
	to := from + metres*4*c.TicksPerRev/(2*math.Pi*c.WheelRadius)
	r.enc.pos[side] = to
	if f := r.faults[encoderSensor[side]]; f.silent || f.err != nil {
		return // wires off: no edges
	}
	fa, fb := math.Floor(from), math.Floor(to)
	if fa == fb || !(math.Abs(fa) < maxEncoderPos && math.Abs(fb) < maxEncoderPos) {
		return // no count crossed, or a position past exact integers (or not a number)
	}
	roles, lines := r.enc.roles[side], r.enc.lines[side]
	wired := [2]bool{roles[0] != roleNone, roles[1] != roleNone}
	if !wired[0] && !wired[1] {
		return
	}
	span := math.Abs(to - from)
	a, b := int64(fa), int64(fb)
	step, state := int64(1), int64(0) // forward: from state k-1 into k
	k, end := a+1, b+1
	if b < a {
		step, state = -1, -1 // backward: from state k into k-1
		k, end = a, b
	}
	for ; k != end; k += step {
		ch := int((k - 1) & 1) // A when k-1 is even
		if !wired[ch] {
			continue
		}
		if len(r.enc.pending) >= maxPendingEdges {
			r.enc.dropped += uint64(wiredEdges(k, end, step, wired))
			return
		}
		at := t0 + time.Duration(math.Abs(float64(k)-from)/span*float64(dt))
		r.enc.pending = append(r.enc.pending, encEdge{role: roles[ch], level: channelLevel(gray(k+state), ch == 1), at: at, line: lines[ch]})
	}
}

// maxEncoderPos bounds the encoder positions turned into edges: below it a float64 holds
// every integer exactly and int64 holds it.
const maxEncoderPos = 1 << 53

// wiredEdges counts the edges of wired channels from position k (included) to end (excluded)
// in steps of step (±1): half of them are channel A's (k-1 even), half B's.
func wiredEdges(k, end, step int64, wired [2]bool) int64 {
	n := (end - k) * step // edges left
	firstA := (k-1)&1 == 0
	a := n / 2
	if n%2 == 1 && firstA {
		a++
	}
	var c int64
	if wired[0] {
		c += a
	}
	if wired[1] {
		c += n - a
	}
	return c
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// encoderLevel is what an encoder pin reads now; the caller holds w.mu.
func (r *Robot) encoderLevel(role pinRole) (int, error) {
	side, chB, _ := role.encoder()
	f := r.faults[encoderSensor[side]]
	switch {
	case f.err != nil:
		return 0, f.err
	case f.silent:
		return 0, nil
	}
	return channelLevel(gray(int64(math.Floor(r.enc.pos[side]))), chB), nil
}

var encoderSensor = [2]string{SensorEncoderLeft, SensorEncoderRight}

// takeEdges swaps out the edges queued by the last step for delivery; the caller holds w.mu
// and w.deliverMu.
func (r *Robot) takeEdges() ([]encEdge, func([]encEdge)) {
	r.enc.out, r.enc.pending = r.enc.pending, r.enc.out[:0]
	return r.enc.out, r.enc.deliver
}

// setEdgeListener sets (nil: clears) who gets the encoder edges.
func (r *Robot) setEdgeListener(f func([]encEdge)) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	r.enc.deliver = f
}

// EncoderCounts are the wheels' true encoder positions in x4 counts (what a perfect decoder
// of every edge would have counted), and the edges dropped because a Step queued too many.
func (r *Robot) EncoderCounts() (left, right float64, dropped uint64) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	return r.enc.pos[0], r.enc.pos[1], r.enc.dropped
}
