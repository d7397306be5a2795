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
// and the health of its last reads. In async mode a goroutine owned by the Robot calls sample
// at the configured rate; in sync mode Robot.Sample does, on the caller's goroutine.
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
	next time.Time // sync mode: when the sensor is due
	left bool      // its device did not start (the self-test goes on without it)

	// guarded by sampleTable.mu
	started  time.Time // when sampling began
	lastOK   time.Time // the last good sample; zero: none yet
	err      error     // the last read's error; nil after a good read
	errSince time.Time
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
	for i, v := range s.buf {
		if math.IsNaN(v) {
			continue
		}
		t.vals[s.off+i], t.ts[s.off+i], t.have[s.off+i] = v, ts, true
	}
	s.lastOK = at
}

// due reports whether a sync-mode sensor should be read at now and schedules its next read on
// the grid of its period (a late call does not double up).
func (s *sensor) due(now time.Time) bool {
	if !s.next.IsZero() && now.Before(s.next) {
		return false
	}
	if s.next.IsZero() {
		s.next = now
	}
	for !s.next.After(now) {
		s.next = s.next.Add(s.period)
	}
	return true
}

// run samples at the sensor's rate until stop or ctx ends.
func (s *sensor) run(ctx context.Context, stop <-chan struct{}, t *sampleTable, now func() time.Time, log *slog.Logger) {
	tick := time.NewTicker(s.period)
	defer tick.Stop()
	for {
		s.sample(t, now(), log)
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
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
