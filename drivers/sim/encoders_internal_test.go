package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// refEdges is the float version of the edge generation that turnEncoder replaced (two floored
// modulos per edge), kept as the reference: the edges of wheel side turning from one position
// to another, queued after a buffer already holding pending edges.
func refEdges(r *Robot, side int, from, to float64, pending int, t0, dt time.Duration) (edges []encEdge, dropped uint64) {
	mod4 := func(k float64) int { return int(math.Mod(math.Mod(k, 4)+4, 4)) }
	emit := func(k float64, chB bool, state int) {
		role := r.enc.roles[side][btoi(chB)]
		if role == roleNone {
			return
		}
		if pending+len(edges) >= maxPendingEdges {
			dropped++
			return
		}
		at := t0 + time.Duration(math.Abs(k-from)/math.Abs(to-from)*float64(dt))
		edges = append(edges, encEdge{role: role, level: channelLevel(state, chB), at: at, line: r.enc.lines[side][btoi(chB)]})
	}
	a, b := math.Floor(from), math.Floor(to)
	for k := a + 1; k <= b; k++ {
		emit(k, mod4(k-1)%2 == 1, mod4(k))
	}
	for k := a; k > b; k-- {
		emit(k, mod4(k-1)%2 == 1, mod4(k-1))
	}
	return edges, dropped
}

func encoderTestRobot(t testing.TB) *Robot {
	t.Helper()
	return DefaultWorld().AddRobot("enc", RobotConfig{
		Pins:     PinMap{LeftEncoderA: "36", LeftEncoderB: "38", RightEncoderA: "40", RightEncoderB: "37"},
		Encoders: EncoderConfig{TicksPerRev: 90, WheelRadius: 0.0325},
	})
}

// TestTurnEncoderMatchesFloatReference: for random turns forward and back, across zero, small
// and huge (past the pending bound), with both, one or no channel wired, turnEncoder queues
// exactly the edges (channel, level, time, line) and drops exactly the count the float
// modulo version did, and the pins read the same levels.
func TestTurnEncoderMatchesFloatReference(t *testing.T) {
	r := encoderTestRobot(t)
	perMetre := 4 * r.cfg.Encoders.TicksPerRev / (2 * math.Pi * r.cfg.Encoders.WheelRadius)
	rng := rand.New(rand.NewPCG(1, 2))
	wirings := [][2]bool{{true, true}, {true, false}, {false, true}, {false, false}}
	full := r.enc.roles
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	edges, compared := 0, 0
	for i := range 20000 {
		side := rng.IntN(2)
		wired := wirings[(i/500)%len(wirings)]
		for ch := range 2 {
			r.enc.roles[side][ch] = roleNone
			if wired[ch] {
				r.enc.roles[side][ch] = full[side][ch]
			}
		}
		var metres float64
		switch rng.IntN(10) {
		case 0:
			metres = 0
		case 1:
			metres = (rng.Float64() - 0.5) * 6000 / perMetre // thousands of edges: past the bound
		case 2:
			metres = float64(rng.IntN(9)-4) / perMetre // whole counts exactly
		default:
			metres = (rng.Float64() - 0.5) * 40 / perMetre
		}
		if rng.IntN(20) == 0 {
			r.enc.pending = r.enc.pending[:0]
		}
		from := r.enc.pos[side]
		t0, dt := time.Duration(i)*20*time.Millisecond, time.Duration(1+rng.IntN(40))*time.Millisecond
		before := slices.Clone(r.enc.pending)
		droppedBefore := r.enc.dropped
		r.turnEncoder(side, metres, t0, dt)
		to := r.enc.pos[side]
		if want := from + metres*perMetre; math.Abs(to-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("turn %d: position %v, want %v", i, to, want)
		}
		gotEdges := slices.Clone(r.enc.pending)
		r.enc.pending = before
		wantEdges, wantDropped := refEdges(r, side, from, to, len(before), t0, dt)
		r.enc.pending = gotEdges
		got := r.enc.pending[len(before):]
		if !slices.Equal(got, wantEdges) || r.enc.dropped-droppedBefore != wantDropped {
			t.Fatalf("turn %d (side %d, wired %v, %v to %v after %d pending): %d edges, %d dropped; want %d, %d\ngot  %v\nwant %v",
				i, side, wired, from, to, len(before), len(got), r.enc.dropped-droppedBefore, len(wantEdges), wantDropped, head(got), head(wantEdges))
		}
		edges += len(got)
		if wantDropped > 0 {
			compared++
		}
		for ch := range 2 {
			role := full[side][ch]
			lv, err := r.encoderLevel(role)
			s := int(math.Mod(math.Mod(math.Floor(to), 4)+4, 4))
			if err != nil || lv != channelLevel(s, ch == 1) {
				t.Fatalf("turn %d: channel %d reads %d (%v) at %v", i, ch, lv, err, to)
			}
		}
	}
	if edges < 100000 || compared < 100 || r.enc.pos[0] > -10 && r.enc.pos[1] > -10 {
		t.Fatalf("the turns did not cover the cases: %d edges, %d with drops, positions %v", edges, compared, r.enc.pos)
	}
}

func head(e []encEdge) []encEdge { return e[:min(len(e), 6)] }

// BenchmarkTurnEncoder is the edge generation of one 20 ms step of a wheel at 0.4 m/s (about
// 14 edges, quadrature); ns/edge is the cost of one edge.
func BenchmarkTurnEncoder(b *testing.B) {
	r := encoderTestRobot(b)
	metres := 0.4 * 0.02
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		r.turnEncoder(0, metres, 0, 20*time.Millisecond)
		n += len(r.enc.pending)
		r.enc.pending = r.enc.pending[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/edge")
}
