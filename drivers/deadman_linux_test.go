package drivers

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/sim"
)

// TestDeadmanStopsTheDriveWhenTheTickStops: a Drive is commanded and applied, then no Apply
// comes (a tick stuck in an expression): the robot's own goroutine puts the wheels in their
// safe state within the deadman time, and Apply keeps them there until the tick rearms.
func TestDeadmanStopsTheDriveWhenTheTickStops(t *testing.T) {
	cfg := parse(t, allKinds)
	w := sim.DefaultWorld()
	r, err := Build(cfg, Options{World: w, Name: "rover", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	const deadman = 30 * time.Millisecond
	r.SetDeadman(deadman)
	tree := compileTree(t, cfg, nd("Drive", "", kv{"linear": 0.2}))
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	a.Env, a.Sink = r, &sink{}
	if st := a.Tick(time.Now().UnixNano()); st != bt.Running {
		t.Fatalf("Drive: %v", st)
	}
	applied := time.Now()
	if err := r.Apply(); err != nil {
		t.Fatal(err)
	}
	sr := r.SimRobot()
	if l, rr := sr.Wheels(); l != 0.4 || rr != 0.4 {
		t.Fatalf("wheels %v %v while driving", l, rr)
	}
	// No more Apply: wait for the deadman (the event, not a time).
	for {
		if l, rr := sr.Wheels(); l == 0 && rr == 0 {
			break
		}
		if time.Since(applied) > time.Minute {
			t.Fatal("the wheels still turn a minute after the last Apply")
		}
		time.Sleep(time.Millisecond)
	}
	tripped, since, trips := r.Deadman()
	if !tripped || trips != 1 {
		t.Fatalf("deadman tripped %v (%d trips), want tripped once", tripped, trips)
	}
	if gap := since.Sub(applied); gap < deadman {
		t.Errorf("tripped %v after the last Apply, before its deadman time %v", gap, deadman)
	}
	// The tick comes back: its Apply must not set the wheels going before the rearm.
	a.Tick(time.Now().UnixNano())
	if err := r.Apply(); err != nil {
		t.Fatal(err)
	}
	if l, rr := sr.Wheels(); l != 0 || rr != 0 {
		t.Fatalf("wheels %v %v after an Apply while tripped", l, rr)
	}
	r.Rearm()
	if err := r.Apply(); err != nil {
		t.Fatal(err)
	}
	if l, rr := sr.Wheels(); l != 0.4 || rr != 0.4 {
		t.Fatalf("wheels %v %v after the rearm, want the Drive's again", l, rr)
	}
	if tripped, _, _ := r.Deadman(); tripped {
		t.Fatal("still tripped after Rearm and a fresh Apply")
	}
}

// TestDeadmanOffUntilArmed: a robot on virtual time (Options.Sync) starts no goroutine, so it
// has no deadman, whatever SetDeadman says.
func TestDeadmanOffUntilArmed(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	g.robot.SetDeadman(time.Nanosecond)
	g.apply()
	if tripped, _, _ := g.robot.Deadman(); tripped {
		t.Fatal("a sync robot tripped its deadman")
	}
}

// TestDeadmanTripsAtItsTime checks the bound of the deadman's goroutine on synctest's virtual
// time, where timers fire exactly when due: while Apply renews at half the deadman time it
// never trips nor even wakes; once Apply stops, it has not tripped a nanosecond before the deadman time and
// has at it, with the trip dated then. (A robot with devices cannot run in a synctest bubble:
// Gobot's event goroutines never end; TestDeadmanStopsTheDriveWhenTheTickStops checks the
// wheels on the real clock.)
func TestDeadmanTripsAtItsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &Robot{now: time.Now, log: quiet, dmChanged: make(chan struct{}, 1), stop: make(chan struct{})}
		r.env.now, r.env.log = time.Now, quiet
		r.startDeadman()
		r.state.Store(stateStarted)
		defer func() { close(r.stop); r.wg.Wait() }()
		const deadman = 100 * time.Millisecond
		r.SetDeadman(deadman)
		var applied time.Time
		for i := range 20 {
			if i > 0 {
				time.Sleep(deadman / 2)
			}
			applied = time.Now()
			if err := r.Apply(); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if tripped, _, _ := r.Deadman(); tripped {
				t.Fatalf("tripped at renewal %d, with Apply every half deadman time", i)
			}
		}
		if n := r.env.dm.alarms.Load(); n != 0 {
			t.Errorf("the deadman's goroutine woke %d times while Apply renewed, want never", n)
		}
		time.Sleep(deadman - time.Nanosecond)
		synctest.Wait()
		if tripped, _, _ := r.Deadman(); tripped {
			t.Fatal("tripped before the deadman time")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		tripped, since, trips := r.Deadman()
		if !tripped || trips != 1 {
			t.Fatalf("deadman tripped %v (%d trips) at the deadman time, want tripped once", tripped, trips)
		}
		if gap := since.Sub(applied); gap != deadman {
			t.Errorf("tripped %v after the last Apply, want at the deadman time %v", gap, deadman)
		}
		// The tick comes back and rearms; a shorter deadman time set while it runs counts
		// from the last Apply.
		r.Rearm()
		applied = time.Now()
		if err := r.Apply(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(deadman / 4)
		r.SetDeadman(deadman / 2)
		time.Sleep(deadman/4 - time.Nanosecond)
		synctest.Wait()
		if tripped, _, _ := r.Deadman(); tripped {
			t.Fatal("tripped before the new deadman time")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		tripped, since, trips = r.Deadman()
		if !tripped || trips != 2 || since.Sub(applied) != deadman/2 {
			t.Fatalf("tripped %v (%d trips) %v after the last Apply, want a second trip at the new deadman time %v",
				tripped, trips, since.Sub(applied), deadman/2)
		}
	})
}

// BenchmarkApplyDeadmanArmed is Apply on a started robot (its own goroutines, the deadman set):
// the renewal pushes the deadman's alarm back, without allocating.
func BenchmarkApplyDeadmanArmed(b *testing.B) {
	cfg := parse(b, allKinds)
	r, err := Build(cfg, Options{World: sim.DefaultWorld(), Name: "rover", Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close() })
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	r.SetDeadman(time.Hour)
	apply := func() {
		if err := r.Apply(); err != nil {
			b.Fatal(err)
		}
	}
	apply()
	if n := testing.AllocsPerRun(100, apply); n != 0 {
		b.Fatalf("%v allocations per Apply, want 0", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		apply()
	}
}
