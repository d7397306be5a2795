package runner

import (
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
