package drivers

import (
	"testing"
	"time"
)

// schedRig is a sampler of sensors with fake reads, woken on virtual time exactly when it asks.
type schedRig struct {
	p     *sampler
	table sampleTable
	reads map[*sensor][]time.Time
	steps []time.Duration
}

func newSchedRig(step time.Duration, rates ...float64) *schedRig {
	g := &schedRig{p: &sampler{}, reads: map[*sensor][]time.Time{}}
	if step > 0 {
		g.p.stepWorld = func(dt time.Duration) { g.steps = append(g.steps, dt) }
		g.p.stepEvery = step
	}
	for _, hz := range rates {
		sc := SampleConfig{RateHz: hz}
		sc.SetDefaults("k", hz)
		g.add(sc)
	}
	return g
}

func (g *schedRig) add(sc SampleConfig) *sensor {
	s := &sensor{
		dev:    &device{name: "dev"},
		keys:   []Key{{Name: "k"}},
		period: time.Duration(float64(time.Second) / sc.RateHz),
		stale:  time.Duration(sc.StaleAfterMs * float64(time.Millisecond)),
		quick:  true,
	}
	s.read = func(now time.Time, vals []float64) error {
		g.reads[s] = append(g.reads[s], now)
		vals[0] = 1
		return nil
	}
	g.table.add(s)
	g.p.sensors = append(g.p.sensors, s)
	return s
}

// run wakes the sampler for span of virtual time from the epoch and returns how many times it
// woke.
func (g *schedRig) run(span time.Duration) (wakes int) {
	at := SimEpoch
	end := at.Add(span)
	for at.Before(end) {
		now := at
		at = g.p.wake(now, &g.table, func() time.Time { return now }, quiet)
		wakes++
	}
	return wakes
}

// TestSamplerSharesWakeups: the default rover's sim board (the world stepped every 20 ms; IMU
// and odometry at 50 Hz, pose and bump switch at 20 Hz, battery at 2 Hz) wakes its sampler 50
// times a second, not once per sensor read and world step; every sensor is still read at its
// rate, never more than its slack early, and the world advances by all the time that passed.
func TestSamplerSharesWakeups(t *testing.T) {
	rates := []float64{50, 2, 50, 20, 20, 50}
	g := newSchedRig(20*time.Millisecond, rates...)
	wakes := g.run(time.Second)
	reads := 0
	for i, s := range g.p.sensors {
		got := g.reads[s]
		if len(got) != int(rates[i]) {
			t.Errorf("sensor at %v Hz read %d times in a second", rates[i], len(got))
		}
		reads += len(got)
		slack := g.p.slacks()[i]
		for k, at := range got {
			grid := SimEpoch.Add(time.Duration(k) * s.period)
			if early := grid.Sub(at); early < 0 || early > slack {
				t.Errorf("sensor at %v Hz: read %d at %v, %v before its time (slack %v)", rates[i], k, at.Sub(SimEpoch), early, slack)
			}
		}
	}
	// A timer per sensor and one for the world would have woken once per read and step.
	if wakes != 50 {
		t.Errorf("%d wake-ups in a second for %d reads and a world stepped every 20 ms, want 50", wakes, reads)
	}
	var total time.Duration
	for _, dt := range g.steps {
		total += dt
		if dt > 20*time.Millisecond {
			t.Errorf("a world step of %v, more than the 20 ms asked", dt)
		}
	}
	if want := time.Second - 20*time.Millisecond; total != want { // the last wake-up's step is the 50th
		t.Errorf("the world advanced %v, want %v", total, want)
	}
}

// TestSamplerSlackKeepsStaleTime: a sensor whose stale time is one period is never read early
// (a gap of a period and any slack would make it stale), so it wakes the sampler on its own
// grid; one with the default stale time shares the wake-ups.
func TestSamplerSlackKeepsStaleTime(t *testing.T) {
	g := newSchedRig(0, 50)
	tight := g.add(SampleConfig{RateHz: 20, StaleAfterMs: 50})
	if s := g.p.slacks()[1]; s != 0 {
		t.Fatalf("slack %v for a stale time of one period, want 0", s)
	}
	wakes := g.run(time.Second)
	for k, at := range g.reads[tight] {
		if want := SimEpoch.Add(time.Duration(k) * 50 * time.Millisecond); !at.Equal(want) {
			t.Fatalf("read %d at %v, want %v", k, at.Sub(SimEpoch), want.Sub(SimEpoch))
		}
	}
	// 50 on the 20 ms grid and 10 on the 50 ms grid that are not on it.
	if wakes != 60 {
		t.Errorf("%d wake-ups, want 60", wakes)
	}
	if n := len(g.reads[tight]); n != 20 {
		t.Errorf("%d reads at 20 Hz in a second", n)
	}
}

// TestSamplerLateWakeDoesNotDoubleUp: a sampler that wakes late reads each due sensor once and
// keeps it on its grid.
func TestSamplerLateWakeDoesNotDoubleUp(t *testing.T) {
	g := newSchedRig(0, 50)
	s := g.p.sensors[0]
	g.p.wake(SimEpoch, &g.table, time.Now, quiet)
	next := g.p.wake(SimEpoch.Add(75*time.Millisecond), &g.table, time.Now, quiet)
	if n := len(g.reads[s]); n != 2 {
		t.Fatalf("%d reads after a wake-up 55 ms late, want 2", n)
	}
	if want := SimEpoch.Add(80 * time.Millisecond); !next.Equal(want) {
		t.Fatalf("next wake-up at %v, want %v (the grid)", next.Sub(SimEpoch), want.Sub(SimEpoch))
	}
}

// BenchmarkSamplerWake is one wake-up of the default rover's sim board sampler (the world step
// and the reads due), fake reads: the schedule's own cost. It allocates nothing.
func BenchmarkSamplerWake(b *testing.B) {
	g := newSchedRig(20*time.Millisecond, 50, 2, 50, 20, 20, 50)
	for _, s := range g.p.sensors {
		s.read = func(_ time.Time, vals []float64) error { vals[0] = 1; return nil }
	}
	g.p.stepWorld = func(time.Duration) {}
	at := SimEpoch
	now := func() time.Time { return at }
	b.ReportAllocs()
	for b.Loop() {
		at = g.p.wake(at, &g.table, now, quiet)
	}
}
