package drivers

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/drivers/sim"
)

// goroutinesIn counts the live goroutines whose stack has fn in it.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			count++
		}
	}
	return count
}

// TestDefaultRobotSamplers: the default rover, started as the daemon starts it (async, stepping
// its world), runs one sampling goroutine for its sim board's quick sensors and one for each
// sensor whose read waits (its HC-SR04), not one per sensor and one for the world; the world
// moves and every sensor has samples.
func TestDefaultRobotSamplers(t *testing.T) {
	cfg := loadSimConfig(t)
	waits, sensors := 0, 0
	for _, d := range cfg.Devices {
		switch d.Kind {
		case "range":
			waits++
			sensors++
		case "battery", "imu", "bump", "pose", "odometry":
			sensors++
		}
	}
	world := sim.DefaultWorld()
	r, err := Build(cfg, Options{World: world, WorldStep: 20 * time.Millisecond, Name: "rover", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	before := goroutinesIn("drivers.(*sampler).run")
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Wait for the event (bounded by a minute): the world moved and every sensor has a sample.
	sampled := func() bool {
		if world.Elapsed() == 0 {
			return false
		}
		r.table.mu.Lock()
		defer r.table.mu.Unlock()
		for _, s := range r.sensors {
			if s.lastOK.IsZero() {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(time.Minute); !sampled(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a minute after Start, the world has not moved or a sensor has no sample")
		}
	}
	// Every sampler has read (so its goroutine is in its loop): count them.
	if got, want := goroutinesIn("drivers.(*sampler).run")-before, 1+waits; got != want {
		t.Errorf("%d sampling goroutines for %d sensors (%d that wait) on one board, want %d", got, sensors, waits, want)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if n := goroutinesIn("drivers.(*sampler).run") - before; n != 0 {
		t.Errorf("%d sampling goroutines left after Close", n)
	}
}
