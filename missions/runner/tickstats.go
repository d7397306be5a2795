package runner

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/botd-project/botd/telemetry/protocol"
)

// TickStats measures the tick loop: how long ticks take, how late they
// start (jitter), and how many deadlines were missed. It is written by the
// tick goroutine and read by telemetry.
type TickStats struct {
	mu        sync.Mutex
	count     uint64
	overruns  uint64
	inARow    int // deadlines missed since the last tick that kept its deadline
	lastUs    int64
	maxUs     int64
	jitter    ring // |start - deadline| in µs, recent ticks
	durations ring // tick durations in µs, recent ticks
	// runHist counts every tick's jitter since the start, in 10 µs
	// buckets (the last one holds everything from 40 ms up).
	runHist  [4001]uint32
	runMaxUs int64
}

// ring keeps the last len(buf) samples.
type ring struct {
	buf  []int64
	next int
	full bool
}

func (r *ring) add(v int64) {
	if r.buf == nil {
		r.buf = make([]int64, 1024)
	}
	r.buf[r.next] = v
	if r.next++; r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
}

func (r *ring) samples() []int64 {
	if r.full {
		return append([]int64(nil), r.buf...)
	}
	return append([]int64(nil), r.buf[:r.next]...)
}

// record adds one tick: its lateness against the deadline, its duration,
// and how many deadlines passed while it ran (by the clock: one tick that
// took 5 s at 20 Hz missed 100, and that alone can trip the overrun
// failsafe).
func (s *TickStats) record(late, took time.Duration, skipped int) {
	s.mu.Lock()
	s.count++
	if skipped > 0 {
		s.overruns += uint64(skipped)
		s.inARow += skipped
	} else {
		s.inARow = 0
	}
	us := took.Microseconds()
	s.lastUs = us
	if us > s.maxUs {
		s.maxUs = us
	}
	j := abs64(late.Microseconds())
	s.jitter.add(j)
	s.runHist[min(j/10, int64(len(s.runHist)-1))]++
	s.runMaxUs = max(s.runMaxUs, j)
	s.durations.add(us)
	s.mu.Unlock()
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// RunJitter returns the jitter percentiles (µs) over every tick since
// the start (10 µs resolution), the maximum, and the overrun count.
func (s *TickStats) RunJitter() (p50, p99, maxUs int64, ticks, overruns uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pct := func(p float64) int64 {
		want := uint64(math.Ceil(p / 100 * float64(s.count)))
		var seen uint64
		for i, n := range s.runHist {
			if seen += uint64(n); seen >= want && want > 0 {
				return int64(i+1) * 10
			}
		}
		return s.runMaxUs
	}
	return min(pct(50), s.runMaxUs), min(pct(99), s.runMaxUs), s.runMaxUs, s.count, s.overruns
}

// Stats gives access to the tick figures (for measurement tools).
func (r *Runner) Stats() *TickStats { return &r.stats }

// overrunsInARow returns the deadlines missed since the last tick that kept
// its deadline.
func (s *TickStats) overrunsInARow() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inARow
}

// Summary returns the current figures (percentiles over recent ticks).
func (s *TickStats) Summary(hz float64) protocol.TickSummary {
	s.mu.Lock()
	j := s.jitter.samples()
	d := s.durations.samples()
	out := protocol.TickSummary{Hz: hz, Count: s.count, LastUs: s.lastUs, MaxUs: s.maxUs, Overruns: s.overruns, InARow: s.inARow}
	s.mu.Unlock()
	slices.Sort(j)
	slices.Sort(d)
	out.JitterP50Us = percentile(j, 50)
	out.JitterP99Us = percentile(j, 99)
	out.JitterMaxUs = percentile(j, 100)
	out.DurP99Us = percentile(d, 99)
	return out
}

// percentile returns the p-th percentile (nearest rank) of v, which is
// sorted.
func percentile(v []int64, p float64) int64 {
	if len(v) == 0 {
		return 0
	}
	k := int(math.Ceil(p/100*float64(len(v)))) - 1
	if k < 0 {
		k = 0
	}
	return v[k]
}

// schedule is the deadline-based tick clock: tick k is due at
// start + k*period, so the rate does not drift; after an overrun the missed
// deadlines are skipped, never doubled up.
type schedule struct {
	start  time.Time
	period time.Duration
	k      int64
}

func newSchedule(start time.Time, hz float64) schedule {
	return schedule{start: start, period: time.Duration(float64(time.Second) / hz)}
}

// next returns the next deadline after a tick that finished at now, and
// how many deadlines were skipped. A tick that is late by less than a
// period runs at once (that lateness is jitter); when a whole period or
// more has passed, every passed deadline is skipped and the next tick
// waits for the first deadline still ahead.
func (s *schedule) next(now time.Time) (due time.Time, skipped int) {
	s.k++
	due = s.start.Add(time.Duration(s.k) * s.period)
	if late := now.Sub(due); late >= s.period {
		n := int64(late/s.period) + 1
		s.k += n
		skipped = int(n)
		due = s.start.Add(time.Duration(s.k) * s.period)
	}
	return due, skipped
}
