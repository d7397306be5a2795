package runner

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestScheduleDoesNotDrift(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := newSchedule(t0, 100) // 10 ms
	now := t0
	for k := 1; k <= 1000; k++ {
		due, skipped := s.next(now)
		if skipped != 0 {
			t.Fatalf("tick %d: skipped %d", k, skipped)
		}
		if want := t0.Add(time.Duration(k) * 10 * time.Millisecond); !due.Equal(want) {
			t.Fatalf("tick %d due %v, want %v", k, due, want)
		}
		now = due.Add(3 * time.Millisecond) // every tick starts 3 ms late: no drift
	}
}

func TestScheduleSkipsMissedDeadlines(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := newSchedule(t0, 100)
	due, _ := s.next(t0) // 10 ms
	// The tick due at 10 ms ran until 45 ms: deadlines 20, 30 and 40 are
	// gone; the next is 50 ms.
	due, skipped := s.next(due.Add(35 * time.Millisecond))
	if skipped != 3 || !due.Equal(t0.Add(50*time.Millisecond)) {
		t.Fatalf("due %v skipped %d, want 50ms and 3", due.Sub(t0), skipped)
	}
}

func TestTickStats(t *testing.T) {
	var s TickStats
	for i := 1; i <= 100; i++ {
		s.record(time.Duration(i)*time.Microsecond, 50*time.Microsecond, 0)
	}
	s.record(0, time.Millisecond, 2)
	sum := s.Summary(100)
	// One tick that let two deadlines pass has missed two in a row: a
	// single long tick counts by the clock, not as one late tick.
	if sum.Count != 101 || sum.Overruns != 2 || sum.InARow != 2 || sum.MaxUs != 1000 {
		t.Fatalf("summary %+v", sum)
	}
	if sum.JitterP50Us != 50 || sum.JitterP99Us != 99 || sum.JitterMaxUs != 100 {
		t.Fatalf("jitter %+v", sum)
	}
	s.record(0, 0, 0)
	if s.Summary(100).InARow != 0 {
		t.Fatal("in-a-row not reset by an on-time tick")
	}
}

// Summary's selected percentiles are the nearest-rank ones of the sorted
// samples, for any number of samples up to the ring's and past it, with
// many equal ones or none.
func TestTickStatsPercentilesAsSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 7, 100, 1023, 1024, 1025, 3000} {
		for _, spread := range []int64{1, 3, 1000, 1 << 40} {
			var s TickStats
			var late, took []int64
			for range n {
				l, d := rng.Int64N(spread), rng.Int64N(spread)
				s.record(time.Duration(l)*time.Microsecond, time.Duration(d)*time.Microsecond, 0)
				late, took = append(late, l), append(took, d)
			}
			late, took = late[max(0, n-ringSize):], took[max(0, n-ringSize):]
			slices.Sort(late)
			slices.Sort(took)
			at := func(v []int64, p float64) int64 {
				if len(v) == 0 {
					return 0
				}
				return v[rank(len(v), p)]
			}
			got := s.Summary(20)
			if got.JitterP50Us != at(late, 50) || got.JitterP99Us != at(late, 99) || got.JitterMaxUs != at(late, 100) || got.DurP99Us != at(took, 99) {
				t.Fatalf("%d samples up to %d: jitter p50 %d p99 %d max %d, duration p99 %d; sorted: %d %d %d, %d", n, spread,
					got.JitterP50Us, got.JitterP99Us, got.JitterMaxUs, got.DurP99Us, at(late, 50), at(late, 99), at(late, 100), at(took, 99))
			}
		}
	}
}

// Telemetry reads the summary with every state it publishes.
func BenchmarkTickStatsSummary(b *testing.B) {
	var s TickStats
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2 * ringSize {
		s.record(time.Duration(rng.Int64N(2000))*time.Microsecond, time.Duration(30+rng.Int64N(200))*time.Microsecond, 0)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Summary(20)
	}
}
