package drivers

import (
	"context"
	"testing"
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
