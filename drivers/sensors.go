package drivers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"
)

// sensor is one device's sampling: a read function that fills the values of its keys, a rate,
// and the health of its last reads. In async mode a sampler goroutine owned by the Robot calls
// sample at the configured rate; in sync mode Robot.Sample does, on the caller's goroutine.
type sensor struct {
	dev    *device
	keys   []Key
	off    int // index of the first key in the sample table
	period time.Duration
	stale  time.Duration
	// read fills vals (one per key; booleans as 0 or 1; NaN leaves that key's last value and
	// time alone, e.g. a GPS course while standing still). It may block (an HC-SR04 waits for
	// its echo); it is never called by two goroutines at once. It returns errNoSample when
	// nothing new arrived since the last read (an input fed from outside the robot).
	read func(now time.Time, vals []float64) error
	// at, when read sets it, is when the values were measured (a timestamped external pose)
	// rather than now; read's caller resets it before each read.
	at   time.Time
	buf  []float64
	next time.Time // when the sensor is due (on its sampler's or Sample's goroutine)
	left bool      // its device did not start (the self-test goes on without it)
	// quick: a read that does not wait (a pin, a register, memory), so the sensor may share
	// its board's sampler (see sampler).
	quick bool

	// guarded by sampleTable.mu
	started  time.Time // when sampling began
	lastOK   time.Time // the last good sample; zero: none yet
	err      error     // the last read's error; nil after a good read
	errSince time.Time
	counted  bool // it is one of sampleTable.pending until its first reading
}

func newSensor(d *device, s SampleConfig, read func(time.Time, []float64) error) *sensor {
	return &sensor{
		dev:    d,
		keys:   d.cfg.Spec.Keys(d.name),
		period: time.Duration(float64(time.Second) / s.RateHz),
		stale:  time.Duration(s.StaleAfterMs * float64(time.Millisecond)),
		read:   read,
	}
}

// sampleTable holds the latest good value of every sensor key with its sample time: the one
// place sensor goroutines and the tick meet, under a short lock.
type sampleTable struct {
	mu      sync.Mutex
	vals    []float64
	ts      []int64 // bt clock nanoseconds (time.UnixNano)
	have    []bool
	boolean []bool // immutable after Build
	names   []string
	index   map[string]int // key -> index, immutable after Build
	// pending counts the started sensors without a first reading (a good read that gave at
	// least one key a value); first is closed when it reaches zero (Robot.FirstReadings).
	pending int
	first   chan struct{}
}

// firstCh returns the channel closed once every started sensor has given its first reading;
// the caller holds t.mu.
func (t *sampleTable) firstCh() chan struct{} {
	if t.first == nil {
		t.first = make(chan struct{})
	}
	return t.first
}

func (t *sampleTable) add(s *sensor) {
	s.off = len(t.vals)
	if t.index == nil {
		t.index = map[string]int{}
	}
	for _, k := range s.keys {
		t.index[k.Name] = len(t.vals)
		t.vals = append(t.vals, 0)
		t.ts = append(t.ts, 0)
		t.have = append(t.have, false)
		t.boolean = append(t.boolean, k.Bool)
		t.names = append(t.names, k.Name)
	}
	s.buf = make([]float64, len(s.keys))
}

// errNoSample: a read found nothing new (not a failure; the sensor's values keep their age).
var errNoSample = errors.New("drivers: no new sample")

// sample reads the sensor once and stores the result stamped with now (or with the time read
// gave in s.at).
func (s *sensor) sample(t *sampleTable, now time.Time, log *slog.Logger) {
	s.at = time.Time{}
	err := guard(func() error { return s.read(now, s.buf) })
	if err == errNoSample {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.errSince = now
			log.Warn("sensor read failed", "device", s.dev.name, "err", err)
		}
		s.err = err
		return
	}
	if s.err != nil {
		log.Info("sensor reads again", "device", s.dev.name)
		s.err = nil
	}
	at := now
	if !s.at.IsZero() {
		at = s.at
	}
	ts := at.UnixNano()
	wrote := false
	for i, v := range s.buf {
		if math.IsNaN(v) {
			continue
		}
		t.vals[s.off+i], t.ts[s.off+i], t.have[s.off+i] = v, ts, true
		wrote = true
	}
	s.lastOK = at
	if wrote && s.counted {
		s.counted = false
		if t.pending--; t.pending == 0 {
			close(t.firstCh())
		}
	}
}

// FirstReadings returns a channel that is closed once every sensor that started has given its
// first reading: a good read that put a value in at least one of its keys, so the next
// Snapshot gives the tree a value where it had none. A sensor whose device did not start (the
// self-test's tolerant start) is not waited for; a robot without sensors closes it at Start.
// The daemon holds its configured mission back until then (bounded): a mission's first Check
// of a key no sensor has read yet finds it missing and fails.
func (r *Robot) FirstReadings() <-chan struct{} {
	r.table.mu.Lock()
	defer r.table.mu.Unlock()
	return r.table.firstCh()
}

// AwaitingFirstReading names the devices whose sensors started and have given no reading yet,
// in configuration order (empty before Start too: nothing started).
func (r *Robot) AwaitingFirstReading() []string {
	r.table.mu.Lock()
	defer r.table.mu.Unlock()
	var out []string
	for _, s := range r.sensors {
		if s.counted {
			out = append(out, s.dev.name)
		}
	}
	return out
}

// due reports whether a sync-mode sensor should be read at now and schedules its next read on
// the grid of its period (a late call does not double up).
func (s *sensor) due(now time.Time) bool { return s.dueWithin(now, 0) }

// dueWithin is due for a sensor that may be read up to slack before its time (see sampler):
// its next read stays on the grid of its period, so an early read does not change its rate.
func (s *sensor) dueWithin(now time.Time, slack time.Duration) bool {
	if s.next.IsZero() {
		s.next = now
	}
	if s.next.Sub(now) > slack {
		return false
	}
	s.next = s.next.Add(s.period)
	for !s.next.After(now) {
		s.next = s.next.Add(s.period)
	}
	return true
}

// slack is how early a sampler that wakes at least every wake may read the sensor to share a
// wake-up with another: a quarter of its period, no more than half of wake (an earlier read
// would share nothing more), and never so much that the longest gap between two reads (a
// period and the slack) comes nearer its stale time than half of what is left.
func (s *sensor) slack(wake time.Duration) time.Duration {
	return max(min(s.period/4, wake/2, (s.stale-s.period)/2), 0)
}

// A sampler reads a group of sensors on one goroutine with one timer: every sensor at its own
// rate on the grid of its period, those due within their slack of the earliest one in the same
// wake-up. A board's quick sensors (reads that do not wait: pins, registers, memory) share one;
// a sensor whose read may wait (an HC-SR04 waits for its echo) has its own, so it cannot delay
// the others. The sampler of a sim board may also step the simulated world, at every wake-up
// and at least every stepEvery, before its reads, so they see the world as it is now.
//
// Grouping saves the wake-ups of one timer per sensor: on the default simulated rover (IMU,
// wheel pose, pose and bump switch at 20 Hz, battery at 2 Hz, the world stepped at least every
// 50 ms) its sim board's sampler wakes 20 times a second, where six timers would wake 82 times.
type sampler struct {
	sensors   []*sensor
	stepWorld func(dt time.Duration) // nil: the sampler steps no world
	stepEvery time.Duration
	stepped   time.Time // the last step (zero: none yet)
	slack     []time.Duration
}

// slacks computes each sensor's slack once: the sampler wakes at least every shortest period
// of its sensors and world step.
func (p *sampler) slacks() []time.Duration {
	if p.slack == nil {
		wake := p.stepEvery
		for _, s := range p.sensors {
			if wake == 0 || s.period < wake {
				wake = s.period
			}
		}
		p.slack = make([]time.Duration, len(p.sensors))
		for i, s := range p.sensors {
			p.slack[i] = s.slack(wake)
		}
	}
	return p.slack
}

// wake does the sampler's work at time at (the real clock, which schedules it) and returns when
// it must wake next; now stamps the samples.
func (p *sampler) wake(at time.Time, t *sampleTable, now func() time.Time, log *slog.Logger) time.Time {
	var next time.Time
	if p.stepWorld != nil {
		if !p.stepped.IsZero() {
			p.stepWorld(at.Sub(p.stepped))
		}
		p.stepped = at
		next = at.Add(p.stepEvery)
	}
	slack := p.slacks()
	for i, s := range p.sensors {
		if s.dueWithin(at, slack[i]) {
			s.sample(t, now(), log)
		}
		if next.IsZero() || s.next.Before(next) {
			next = s.next
		}
	}
	return next
}

// run wakes the sampler on the real clock until stop or ctx ends.
func (p *sampler) run(ctx context.Context, stop <-chan struct{}, t *sampleTable, now func() time.Time, log *slog.Logger) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		wait := time.Hour // a sampler with nothing to do (samplers makes none) waits for stop
		if next := p.wake(time.Now(), t, now, log); !next.IsZero() {
			wait = time.Until(next)
		}
		timer.Reset(wait)
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-timer.C:
		}
	}
}

// samplers groups the robot's started sensors for async sampling (see sampler): one sampler
// for each board's quick sensors, one for each other sensor. With Options.WorldStep the sim
// board's sampler steps the world, with or without sensors of its own. Every sensor's grid
// starts now, so samplers whose periods divide each other wake at the same instants (the
// runtime handles timers that expire together in one wake-up of a thread).
func (r *Robot) samplers() []*sampler {
	start := time.Now()
	var out []*sampler
	byBoard := map[*board]*sampler{}
	shared := func(b *board) *sampler {
		p := byBoard[b]
		if p == nil {
			p = &sampler{}
			byBoard[b] = p
			out = append(out, p)
		}
		return p
	}
	if r.opts.WorldStep > 0 && r.opts.World != nil {
		for _, b := range r.boards {
			if b.sim != nil {
				p := shared(b)
				p.stepWorld, p.stepEvery = r.opts.World.Step, r.opts.WorldStep
				break
			}
		}
	}
	for _, s := range r.sensors {
		s.next = start
		switch {
		case s.left:
		case s.quick && s.dev.board != nil:
			p := shared(s.dev.board)
			p.sensors = append(p.sensors, s)
		default:
			out = append(out, &sampler{sensors: []*sensor{s}})
		}
	}
	return out
}

// fault returns the sensor's fault at now, if any; the caller holds t.mu.
func (s *sensor) fault(now time.Time) (Fault, bool) {
	f := Fault{Device: s.dev.name, Key: s.keys[0].Name}
	last := s.lastOK
	if last.IsZero() {
		last = s.started
	}
	switch {
	case s.err != nil:
		f.Code, f.Since = FaultSensorError, s.errSince
		f.Message = s.err.Error()
		if !s.lastOK.IsZero() {
			f.Message += fmt.Sprintf(" (last good sample %v ago)", now.Sub(s.lastOK).Round(time.Millisecond))
		}
		return f, true
	case s.started.IsZero():
		return f, false // not sampling
	case now.Sub(last) > s.stale:
		f.Code, f.Since = FaultSensorStale, last.Add(s.stale)
		if s.lastOK.IsZero() {
			f.Message = fmt.Sprintf("no sample yet after %v", now.Sub(last).Round(time.Millisecond))
		} else {
			f.Message = fmt.Sprintf("no sample for %v (stale after %v)", now.Sub(last).Round(time.Millisecond), s.stale)
		}
		return f, true
	}
	return f, false
}

// guard runs a call into a Gobot driver, turning a panic (some drivers index slices a board
// fills in only once connected) into an error: a driver bug must not take the daemon down.
func guard(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("driver panic: %v", v)
		}
	}()
	return f()
}
