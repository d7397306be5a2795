package drivers

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/drivers/sim"
)

func TestSnapshotStampsAndAllocs(t *testing.T) {
	cfg := parse(t, allKinds)
	g := newRig(t, cfg)
	tree := compileTree(t, cfg, nd("Check", "", kv{"key": "range.front", "op": ">", "value": 0}))
	a := bt.NewAgent(tree, 0, 0)
	b := g.robot.Bind(tree)
	if b.Keys() != len(cfg.SensorKeys()) {
		t.Errorf("bound %d keys, want %d", b.Keys(), len(cfg.SensorKeys()))
	}
	b.Snapshot(&a.BB) // nothing sampled yet: nothing written
	s, _ := tree.Slot("range.front")
	if a.BB.Get(s).Kind() != bt.KindNone {
		t.Fatal("a key was written before any sample")
	}
	t1 := g.advance(100 * time.Millisecond) // every sensor is due
	g.advance(50 * time.Millisecond)        // pose (20 Hz) and imu are due again, range (10 Hz) not
	b.Snapshot(&a.BB)
	if ts, _ := a.BB.Stamp(s); ts != t1.UnixNano() {
		t.Errorf("range.front stamped %d, want its sample time %d", ts, t1.UnixNano())
	}
	ps, _ := tree.Slot("pose.x")
	if ts, _ := a.BB.Stamp(ps); ts != t1.Add(50*time.Millisecond).UnixNano() {
		t.Errorf("pose.x stamped %d", ts)
	}
	bs, _ := tree.Slot("bump.bumper")
	if v := a.BB.Get(bs); v.Kind() != bt.KindBool {
		t.Errorf("bump is a %v", v.Kind())
	}
	if v, at, ok := g.robot.Reading("range.front"); !ok || v < 2.8 || !at.Equal(t1) {
		t.Errorf("Reading(range.front) = %v %v %v", v, at, ok)
	}
	if _, _, ok := g.robot.Reading("nope"); ok {
		t.Error("Reading of an unknown key")
	}
	if n := testing.AllocsPerRun(100, func() { b.Snapshot(&a.BB) }); n != 0 {
		t.Errorf("Snapshot allocates %v times", n)
	}
	// Keys the tree does not know are skipped.
	small := compileTree(t, parse(t, `{adaptors: {b: {kind: sim}}}`), nd("Succeed", "", nil))
	if n := g.robot.Bind(small).Keys(); n != 0 {
		t.Errorf("bound %d keys to a tree without sensor keys", n)
	}
}

// TestAsyncSampling: without Sync each sensor has its own goroutine; the samples arrive
// without Sample, EStop is safe from any goroutine while the tick loop applies, and Close
// waits for the goroutines.
func TestAsyncSampling(t *testing.T) {
	skipOffLinux(t)
	cfg := parse(t, allKinds)
	w := sim.DefaultWorld()
	r, err := Build(cfg, Options{World: w, Name: "async", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	tree := compileTree(t, cfg, nd("Drive", "", kv{"linear": 0.2}))
	a := bt.NewAgent(tree, 0, time.Now().UnixNano())
	a.Env = r
	bind := r.Bind(tree)
	deadline := time.Now().Add(3 * time.Second)
	for {
		bind.Snapshot(&a.BB)
		s, _ := tree.Slot("range.front")
		if _, ok := a.BB.Number(s); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no range sample within 3 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var wg sync.WaitGroup
	var ticks atomic.Int64
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // the tick loop
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			bind.Snapshot(&a.BB)
			a.Tick(time.Now().UnixNano())
			_ = r.Apply()
			w.Step(5 * time.Millisecond)
			ticks.Add(1)
			time.Sleep(time.Millisecond)
		}
	}()
	waitTicks := func(n int64) {
		t.Helper()
		target := ticks.Load() + n
		deadline := time.Now().Add(20 * time.Second)
		for ticks.Load() < target {
			if time.Now().After(deadline) {
				t.Fatalf("the tick loop did not make %d ticks", n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitTicks(20)
	if l, rr := r.SimRobot().Wheels(); l == 0 && rr == 0 {
		t.Fatal("the wheels never turned: the e-stop below would prove nothing")
	}
	if err := r.EStop("from another goroutine"); err != nil {
		t.Fatal(err)
	}
	// Stopped at once, and still stopped while the loop keeps ticking.
	for range 3 {
		if l, rr := r.SimRobot().Wheels(); l != 0 || rr != 0 {
			t.Fatalf("wheels %v %v during e-stop", l, rr)
		}
		waitTicks(5)
	}
	close(stop)
	wg.Wait()
	if f := r.Faults(); len(f) != 0 {
		t.Errorf("faults %+v", f)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r.table.mu.Lock()
	before := append([]int64(nil), r.table.ts...)
	r.table.mu.Unlock()
	time.Sleep(150 * time.Millisecond)
	r.table.mu.Lock()
	defer r.table.mu.Unlock()
	for i, ts := range r.table.ts {
		if ts != before[i] {
			t.Errorf("%s sampled after Close", r.table.names[i])
		}
	}
}

func BenchmarkSnapshot(b *testing.B) {
	cfg := parse(b, allKinds)
	g := newRig(b, cfg)
	tree := compileTree(b, cfg, nd("Succeed", "", nil))
	a := bt.NewAgent(tree, 0, 0)
	bind := g.robot.Bind(tree)
	g.advance(time.Second)
	b.ReportAllocs()
	for b.Loop() {
		bind.Snapshot(&a.BB)
	}
}

// BenchmarkTickDriveApply is one tick of a MoveTo on the simulated rover: snapshot, tick,
// apply (the world step and the sampling are left out).
func BenchmarkTickDriveApply(b *testing.B) {
	cfg := parse(b, allKinds)
	g := newRig(b, cfg)
	tree := compileTree(b, cfg, nd("MoveTo", "", kv{"x": 100, "y": 100}))
	a := bt.NewAgent(tree, 0, 0)
	a.Env = g.robot
	bind := g.robot.Bind(tree)
	now := g.advance(time.Second)
	step := func() {
		bind.Snapshot(&a.BB)
		a.Tick(now.UnixNano())
		_ = g.robot.Apply()
	}
	step() // MoveTo opens; the first Apply sizes its scratch
	if n := testing.AllocsPerRun(100, step); n != 0 {
		b.Fatalf("%v allocations per tick, want 0", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
}

// BenchmarkTickOutputsApply is one tick of a Sequence of the one-shot output leaves (each
// opens, commands and completes on every tick) on the simulated rover, then apply.
func BenchmarkTickOutputsApply(b *testing.B) {
	cfg := parse(b, allKinds)
	g := newRig(b, cfg)
	tree := compileTree(b, cfg, nd("Sequence", "", nil,
		nd("Servo", "", kv{"angle": 100}), nd("Led", "", kv{"mode": "on"}), nd("Relay", "", kv{"on": true}),
		nd("DigitalWrite", "", kv{"value": 1}), nd("Pwm", "", kv{"duty": 0.5}), nd("Buzzer", "", kv{"on": false}),
		nd("Stop", "", nil)))
	a := bt.NewAgent(tree, 0, 0)
	a.Env = g.robot
	now := g.advance(time.Second)
	if st := a.Tick(now.UnixNano()); st != bt.Success {
		b.Fatalf("outputs: %v", st)
	}
	if n := testing.AllocsPerRun(100, func() { a.Tick(now.UnixNano()); _ = g.robot.Apply() }); n != 0 {
		b.Fatalf("%v allocations per tick, want 0", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		a.Tick(now.UnixNano())
		_ = g.robot.Apply()
	}
}
