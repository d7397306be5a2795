package main

import (
	"context"
	"sync"
	"testing"

	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/internal/mqtttest"
)

// The fleet's world stepper steps every world it was given, a few to a
// goroutine, until that world's robot stops, and its goroutines end with
// the fleet.
func TestWorldStepper(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	ws := &worldStepper{ctx: ctx, perShard: 2}
	worlds := make([]*sim.World, 5)
	cancels := make([]context.CancelFunc, len(worlds))
	var robots sync.WaitGroup
	for i := range worlds {
		worlds[i] = sim.DefaultWorld()
		rctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		robots.Go(func() { ws.step(rctx, worlds[i]) })
	}
	mqtttest.Eventually(t, "every world stepped", func() bool {
		for _, w := range worlds {
			if w.Elapsed() == 0 {
				return false
			}
		}
		return true
	})
	ws.mu.Lock()
	shards := len(ws.shards)
	ws.mu.Unlock()
	if shards != 3 {
		t.Errorf("%d goroutines step 5 worlds, 2 each; want 3", shards)
	}
	for _, c := range cancels {
		c()
	}
	robots.Wait()
	for i, sh := range ws.shards {
		sh.mu.Lock()
		if n := len(sh.worlds); n != 0 {
			t.Errorf("shard %d still steps %d worlds after their robots stopped", i, n)
		}
		sh.mu.Unlock()
	}
	// A robot started again is stepped again (by a shard that had gone
	// idle).
	again := sim.DefaultWorld()
	rctx, cancel := context.WithCancel(context.Background())
	robots.Go(func() { ws.step(rctx, again) })
	mqtttest.Eventually(t, "a world added later stepped", func() bool { return again.Elapsed() > 0 })
	cancel()
	robots.Wait()
	stop()
	ws.running.Wait()
}
