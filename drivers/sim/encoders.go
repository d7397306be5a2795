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

func mod4(k float64) int { return int(math.Mod(math.Mod(k, 4)+4, 4)) }

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
// t0, and queues the edges of its wired channels; the caller holds w.mu.
func (r *Robot) turnEncoder(side int, metres float64, t0, dt time.Duration) {
	c := r.cfg.Encoders
	from := r.enc.pos[side]
	to := from + metres*4*c.TicksPerRev/(2*math.Pi*c.WheelRadius)
	r.enc.pos[side] = to
	if f := r.faults[encoderSensor[side]]; f.silent || f.err != nil {
		return // wires off: no edges
	}
	emit := func(k float64, chB bool, state int) {
		role := r.enc.roles[side][btoi(chB)]
		if role == roleNone {
			return
		}
		if len(r.enc.pending) >= maxPendingEdges {
			r.enc.dropped++
			return
		}
		at := t0 + time.Duration(math.Abs(k-from)/math.Abs(to-from)*float64(dt))
		r.enc.pending = append(r.enc.pending, encEdge{role: role, level: channelLevel(state, chB), at: at, line: r.enc.lines[side][btoi(chB)]})
	}
	a, b := math.Floor(from), math.Floor(to)
	for k := a + 1; k <= b; k++ { // forward: from state k-1 into k
		emit(k, mod4(k-1)%2 == 1, mod4(k))
	}
	for k := a; k > b; k-- { // backward: from state k into k-1
		emit(k, mod4(k-1)%2 == 1, mod4(k-1))
	}
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
	return channelLevel(mod4(math.Floor(r.enc.pos[side])), chB), nil
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
