package main

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/botd-project/botd/drivers/sim"
)

// worldStepper steps the simulated worlds of a fleet's robots every
// fleetWorldStep from a few goroutines (one for every worldsPerShard worlds), instead of a
// goroutine and a ticker for each robot: a thousand robots would wake
// 50,000 times a second for it. Each world is stepped by the time passed
// since its own last step, as stepWorld does.
type worldStepper struct {
	ctx      context.Context // the shards' goroutines end with it
	perShard int             // worlds a goroutine steps [worldsPerShard]
	mu       sync.Mutex
	shards   []*worldShard
	running  sync.WaitGroup // the shards' goroutines
}

const (
	// fleetWorldStep is the period the daemon steps its world at (stepWorld).
	fleetWorldStep = worldStep
	// worldsPerShard is how many worlds one goroutine steps.
	worldsPerShard = 250
)

type worldShard struct {
	mu     sync.Mutex
	worlds map[*sim.World]time.Time // last step
	wake   chan struct{}            // the first world came
}

// step is a Config.stepWorld: it steps w until ctx is done.
func (ws *worldStepper) step(ctx context.Context, w *sim.World) {
	sh := ws.shardFor()
	sh.mu.Lock()
	first := len(sh.worlds) == 0
	sh.worlds[w] = time.Now()
	sh.mu.Unlock()
	if first {
		select {
		case sh.wake <- struct{}{}:
		default:
		}
	}
	<-ctx.Done()
	sh.mu.Lock()
	delete(sh.worlds, w)
	sh.mu.Unlock()
}

// shardFor returns a shard with room, starting one when all are full.
func (ws *worldStepper) shardFor() *worldShard {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, sh := range ws.shards {
		sh.mu.Lock()
		n := len(sh.worlds)
		sh.mu.Unlock()
		if n < cmp.Or(ws.perShard, worldsPerShard) {
			return sh
		}
	}
	sh := &worldShard{worlds: map[*sim.World]time.Time{}, wake: make(chan struct{}, 1)}
	ws.shards = append(ws.shards, sh)
	ws.running.Go(func() { sh.run(ws.ctx) })
	return sh
}

// run steps the shard's worlds until ctx is done; with none it sleeps
// until one comes.
func (sh *worldShard) run(ctx context.Context) {
	t := time.NewTicker(fleetWorldStep)
	defer t.Stop()
	var due []*sim.World
	var dts []time.Duration
	for {
		sh.mu.Lock()
		empty := len(sh.worlds) == 0
		sh.mu.Unlock()
		if empty {
			select {
			case <-ctx.Done():
				return
			case <-sh.wake:
			}
			t.Reset(fleetWorldStep)
			continue
		}
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-t.C:
		}
		due, dts = due[:0], dts[:0]
		sh.mu.Lock()
		for w, last := range sh.worlds {
			due = append(due, w)
			dts = append(dts, now.Sub(last))
			sh.worlds[w] = now
		}
		sh.mu.Unlock()
		for i, w := range due {
			w.Step(dts[i])
		}
	}
}
