package drivers

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/internal/testutil"
)

// lateKinds is a registry of one boardless sensor kind whose reads give nothing until release
// is closed: "none" devices return ErrNoSample (an input fed from outside), "nan" devices a good
// read with every value NaN (a receiver without a fix). reads counts every read.
func lateKinds(release <-chan struct{}, reads *atomic.Int32) *Registry {
	released := func() bool {
		select {
		case <-release:
			return true
		default:
			return false
		}
	}
	return NewRegistry(KindInfo{
		Name: "late", Boardless: true,
		New: func() Spec { return &fakeSpec{kind: "late"} },
		Build: func(b *Builder) error {
			nan := b.Name() == "nan"
			b.Sensor(b.Spec().(*fakeSpec).SampleConfig, func(_ time.Time, vals []float64) error {
				reads.Add(1)
				switch {
				case released():
					vals[0] = 1
				case nan:
					vals[0] = math.NaN()
				default:
					return ErrNoSample
				}
				return nil
			})
			return nil
		},
	})
}

func closedNow(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestFirstReadingsWaitForEverySensor: FirstReadings stays open while a sensor has given no
// value (no sample yet, or a read whose values are all NaN), names those sensors, and closes
// once each has; sync mode (the caller samples) on virtual time, then the daemon's async mode.
func TestFirstReadingsWaitForEverySensor(t *testing.T) {
	for _, sync := range []bool{true, false} {
		release := make(chan struct{})
		var reads atomic.Int32
		cfg, err := lateKinds(release, &reads).ParseConfig([]byte(`
devices:
  - {name: none, kind: late, rate_hz: 50}
  - {name: nan, kind: late, rate_hz: 50}
`))
		if err != nil {
			t.Fatal(err)
		}
		clk := newClock()
		opts := Options{Name: "late", Logger: quiet, Sync: sync}
		if sync {
			opts.Now = clk.Now
		}
		r, err := Build(cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		first := r.FirstReadings()
		if got := r.AwaitingFirstReading(); len(got) != 0 {
			t.Errorf("sync %v: before Start, awaiting %v", sync, got)
		}
		if err := r.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		// Several reads that gave nothing: still awaited, both of them.
		if sync {
			for i := 0; i < 5; i++ {
				r.Sample(clk.Now())
				clk.Set(clk.Now().Add(20 * time.Millisecond))
			}
		} else {
			testutil.Eventually(t, time.Minute, "six reads", func() bool { return reads.Load() >= 6 })
		}
		if closedNow(first) {
			t.Fatalf("sync %v: FirstReadings closed after reads that gave no value", sync)
		}
		if got := r.AwaitingFirstReading(); !slices.Equal(got, []string{"none", "nan"}) {
			t.Errorf("sync %v: awaiting %v, want [none nan]", sync, got)
		}
		close(release)
		if sync {
			r.Sample(clk.Now())
			if !closedNow(first) {
				t.Fatalf("sync %v: FirstReadings open after both sensors gave a value", sync)
			}
		} else {
			testutil.Eventually(t, time.Minute, "FirstReadings closed", func() bool { return closedNow(first) })
		}
		if got := r.AwaitingFirstReading(); len(got) != 0 {
			t.Errorf("sync %v: awaiting %v after the first readings", sync, got)
		}
		for _, k := range []string{"late.none", "late.nan"} {
			if v, _, ok := r.Reading(k); !ok || v != 1 {
				t.Errorf("sync %v: %s = %v, %v", sync, k, v, ok)
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFirstReadingsWithoutSensors: a robot with no sensor has its first readings at Start.
func TestFirstReadingsWithoutSensors(t *testing.T) {
	r, err := Build(parse(t, `
adaptors:
  board: {kind: sim}
devices:
  - {name: status, kind: led, pin: "7"}
`), Options{World: sim.DefaultWorld(), Logger: quiet, Sync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	if closedNow(r.FirstReadings()) {
		t.Fatal("closed before Start")
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !closedNow(r.FirstReadings()) {
		t.Fatal("open after Start with no sensor")
	}
}
