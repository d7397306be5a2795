package runner

import (
	"math"
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

// ringSize is how many recent ticks the percentiles are over.
const ringSize = 1024

// ring keeps the last len(buf) samples.
type ring struct {
	buf  []int64
	next int
	full bool
}

func (r *ring) add(v int64) {
	if r.buf == nil {
		r.buf = make([]int64, ringSize)
	}
	r.buf[r.next] = v
	if r.next++; r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
}

// copyTo copies the samples into dst (len ringSize) and returns them.
func (r *ring) copyTo(dst []int64) []int64 {
	if r.full {
		return dst[:copy(dst, r.buf)]
	}
	return dst[:copy(dst, r.buf[:r.next])]
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
// Telemetry reads it with every state it publishes (at least once a
// second, up to ten times): the percentiles are selected, not sorted, from
// copies on the stack (sorting two fresh 1,024-sample copies was most of
// the cost of a state in botd fleet's profile).
func (s *TickStats) Summary(hz float64) protocol.TickSummary {
	var jb, db [ringSize]int64
	s.mu.Lock()
	j := s.jitter.copyTo(jb[:])
	d := s.durations.copyTo(db[:])
	out := protocol.TickSummary{Hz: hz, Count: s.count, LastUs: s.lastUs, MaxUs: s.maxUs, Overruns: s.overruns, InARow: s.inARow}
	s.mu.Unlock()
	// p50 first: selecting it leaves every larger sample after it, where
	// p99 and the maximum are.
	k50 := rank(len(j), 50)
	out.JitterP50Us = selectKth(j, k50)
	out.JitterP99Us = selectKth(j[min(k50, len(j)):], rank(len(j), 99)-k50)
	for _, v := range j[min(k50, len(j)):] {
		out.JitterMaxUs = max(out.JitterMaxUs, v)
	}
	out.DurP99Us = selectKth(d, rank(len(d), 99))
	return out
}

// rank is the index of the p-th percentile (nearest rank) among n sorted
// samples.
func rank(n int, p float64) int {
	return max(int(math.Ceil(p/100*float64(n)))-1, 0)
}

// selectKth returns the k-th smallest of v (from 0), reordering v so that
// v[:k] hold no larger and v[k+1:] no smaller samples (quickselect,
// median-of-three pivots); 0 for no samples.
func selectKth(v []int64, k int) int64 {
	if len(v) == 0 {
		return 0
	}
	lo, hi := 0, len(v)-1
	for lo < hi {
		// Median of three to v[hi] as the pivot.
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[mid] < v[hi] {
			v[mid], v[hi] = v[hi], v[mid]
		}
		pivot := v[hi]
		// Three-way partition: < pivot, == pivot, > pivot (many equal
		// samples, as ticks of one duration give, stay linear).
		lt, i, gt := lo, lo, hi
		for i <= gt {
			switch {
			case v[i] < pivot:
				v[lt], v[i] = v[i], v[lt]
				lt++
				i++
			case v[i] > pivot:
				v[i], v[gt] = v[gt], v[i]
				gt--
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt - 1
		case k > gt:
			lo = gt + 1
		default:
			return pivot
		}
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
