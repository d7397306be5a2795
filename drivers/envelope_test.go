package drivers

import (
	"errors"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
)

// twoAxes is a family's command type, for the envelope's tests.
type twoAxes struct{ x, y float64 }

// fakeAxes records what the envelope writes.
type fakeAxes struct {
	writes []twoAxes
	forced int
	fail   error
}

func (f *fakeAxes) Safe() twoAxes { return twoAxes{} }

// clampAbs brings v within ±limit (0 for NaN).
func clampAbs(v, limit float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return math.Min(math.Max(v, -limit), limit)
}
func (f *fakeAxes) Clamp(c twoAxes) twoAxes {
	return twoAxes{clampAbs(c.x, 1), clampAbs(c.y, 1)}
}
func (f *fakeAxes) Write(c twoAxes, _ time.Time, force bool) error {
	if f.fail != nil {
		return f.fail
	}
	if force {
		f.forced++
	}
	f.writes = append(f.writes, c)
	return nil
}

type fakeStopper struct{ *fakeAxes }

func (fakeStopper) EStopState() twoAxes { return twoAxes{-9, -9} }

func typedRig(t testing.TB, impl ActuatorImpl[twoAxes]) (*envelope, *Actuator[twoAxes]) {
	t.Helper()
	r := newRobot(&Config{}, Options{Logger: slog.New(slog.DiscardHandler)})
	d := &device{name: "axes", kind: "axes"}
	x := NewActuator[twoAxes](&Builder{r: r, d: d}, impl)
	r.addDevice(d)
	r.env.setReady(d.act, true)
	return &r.env, x
}

// A family's typed actuator goes through the envelope like any: commands are clamped, owned
// ones released by their owner only, refused during an e-stop, which writes the safe state
// and then an e-stopper's e-stop state.
func TestTypedActuator(t *testing.T) {
	f := &fakeAxes{}
	e, x := typedRig(t, fakeStopper{f})
	a := &bt.Agent{}
	o1, o2 := Owner{a, 1}, Owner{a, 2}
	if err := x.Command(o1, twoAxes{5, -0.5}, true); err != nil {
		t.Fatal(err)
	}
	if err := e.apply(); err != nil || len(f.writes) != 1 || f.writes[0] != (twoAxes{1, -0.5}) {
		t.Fatalf("apply: %v, writes %v", err, f.writes)
	}
	x.Release(o2) // not the owner: nothing happens
	if x.Wanted() != (twoAxes{1, -0.5}) {
		t.Errorf("released by another action: %v", x.Wanted())
	}
	x.Release(o1)
	if x.Wanted() != (twoAxes{}) {
		t.Errorf("released by its owner: %v", x.Wanted())
	}
	if err := e.eStop("test"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.writes); n < 2 || f.writes[n-2] != (twoAxes{}) || f.writes[n-1] != (twoAxes{-9, -9}) {
		t.Errorf("e-stop wrote %v, want the safe state then the e-stop state", f.writes)
	}
	if err := x.Command(o1, twoAxes{0.1, 0}, true); !errors.Is(err, ErrEStopped) {
		t.Errorf("a command during the e-stop: %v", err)
	}
	e.releaseEStop()
	f.fail = errors.New("bus down")
	_ = x.Command(o1, twoAxes{0.2, 0}, true)
	if err := e.apply(); err == nil || !errors.Is(x.TakeErr(o1), f.fail) || x.TakeErr(o1) != nil {
		t.Errorf("a failed write is its owner's, once: %v", err)
	}
}

// Commanding a typed actuator, applying and releasing it allocate nothing.
func TestTypedActuatorAllocatesNothing(t *testing.T) {
	f := &fakeAxes{writes: make([]twoAxes, 0, 1024)}
	e, x := typedRig(t, f)
	a := &bt.Agent{}
	o := Owner{a, 1}
	i := 0.0
	step := func() {
		i += 0.001
		_ = x.Command(o, twoAxes{i, -i}, true)
		_ = e.apply()
		x.Release(o)
		_ = e.apply()
		f.writes = f.writes[:0]
	}
	if n := testing.AllocsPerRun(100, step); n != 0 {
		t.Errorf("%v allocations per command, apply and release, want 0", n)
	}
}
