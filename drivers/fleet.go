package drivers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/botd-project/botd/drivers/sim"
)

// SimEpoch is the origin of a SimFleet's virtual time: the world's elapsed time is the time
// since SimEpoch, so a time's UnixNano is the bt clock of `botd sim` (tick k at k/H seconds).
var SimEpoch = time.Unix(0, 0)

// SimFleet is n robots built from one config in one simulated world, on virtual time: the
// sensors are sampled synchronously (Options.Sync) and time moves only in Advance. It is what
// `botd sim` runs missions on.
type SimFleet struct {
	world  *sim.World
	robots []*Robot
	now    atomic.Int64 // virtual time, ns since the Unix epoch
}

// NewSimFleet builds and starts n robots named agent-0, agent-1, ... in world, all at home.
// On error every robot already made is closed.
func NewSimFleet(cfg *Config, world *sim.World, n int, logger *slog.Logger) (*SimFleet, error) {
	if world == nil {
		return nil, errors.New("drivers: NewSimFleet with a nil world")
	}
	if n < 1 {
		return nil, fmt.Errorf("drivers: NewSimFleet: n = %d, want at least 1", n)
	}
	f := &SimFleet{world: world}
	f.now.Store(SimEpoch.Add(world.Elapsed()).UnixNano())
	for i := range n {
		r, err := Build(cfg, Options{World: world, Name: fmt.Sprintf("agent-%d", i), Now: f.Now, Sync: true, Logger: logger})
		if err == nil {
			err = r.Start(context.Background())
			if err != nil {
				_ = r.Close()
			}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("drivers: sim fleet agent-%d: %w", i, err)
		}
		f.robots = append(f.robots, r)
	}
	return f, nil
}

// Now is the fleet's virtual time.
func (f *SimFleet) Now() time.Time { return time.Unix(0, f.now.Load()) }

// Len is the number of robots.
func (f *SimFleet) Len() int { return len(f.robots) }

// Robot returns robot i (named agent-i).
func (f *SimFleet) Robot(i int) *Robot { return f.robots[i] }

// World is the fleet's world.
func (f *SimFleet) World() *sim.World { return f.world }

// Advance steps the world to now exactly (its elapsed time becomes now - SimEpoch; a time in
// the past does not step) and samples every robot's sensors that are due. Call it before each
// tick, then Snapshot, Tick and Apply each robot.
func (f *SimFleet) Advance(now time.Time) {
	if dt := now.Sub(SimEpoch) - f.world.Elapsed(); dt > 0 {
		f.world.Step(dt)
	}
	f.now.Store(now.UnixNano())
	for _, r := range f.robots {
		r.Sample(now)
	}
}

// Close closes every robot (safe state, drivers halted, boards finalized) and returns their
// errors joined. It is idempotent.
func (f *SimFleet) Close() error {
	var errs []error
	for _, r := range f.robots {
		if err := r.Close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.Name(), err))
		}
	}
	return errors.Join(errs...)
}
