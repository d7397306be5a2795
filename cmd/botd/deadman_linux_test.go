package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/missions/runner"
	"github.com/botd-project/botd/telemetry/protocol"
)

// stallNode blocks the tick until released, as an expression looping for
// seconds did before expressions ran on a budget.
type stallNode struct{ entered, release chan struct{} }

func (s *stallNode) Tick(*bt.Agent, *bt.Node) bt.Status {
	select {
	case <-s.entered:
	default:
		close(s.entered)
	}
	<-s.release
	return bt.Running
}

// TestStuckTickBesideADriveStopsTheRover: the simulated rover drives (a
// Parallel of a Drive and a node that gets stuck); while the tick is stuck
// the deadman stops the wheels on its own, and when the tick comes back the
// overrun failsafe has halted the mission before any Drive command goes
// out again: the rover stays stopped.
func TestStuckTickBesideADriveStopsTheRover(t *testing.T) {
	hw, err := simHardware()
	if err != nil {
		t.Fatal(err)
	}
	robot, err := drivers.Build(hw, drivers.Options{World: sim.DefaultWorld(), Name: "rover-1", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := robot.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer robot.Close()
	stall := &stallNode{entered: make(chan struct{}), release: make(chan struct{})}
	reg := catalog.NewRegistry()
	drivers.Register(reg, deviceKinds, hw)
	reg.Register(bt.NodeType{Name: "Stall", Kind: bt.Leaf, Category: "action", New: func(*bt.Builder) bt.Behavior { return stall }})
	var keys []string
	for _, d := range robot.Devices() {
		keys = append(keys, d.Keys()...)
	}
	r, err := runner.New(runner.Config{Robot: "rover-1", TickHz: 20, Registry: reg, Keys: keys, Hardware: hardware{robot},
		DeadmanPeriods: 3, DeadmanMin: time.Millisecond,
		Failsafe: runner.FailsafeConfig{LinkLossTimeout: -1, MaxOverruns: 4, BatteryCritical: -1, BatteryLow: -1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	// The Stall starts after a few ticks of driving: a Wait before it.
	doc := `{"format":"botd/mission@1","id":"7d1c2b8e-2f4a-4c61-9b1e-5a0c3d9e8f11","name":"stall","revision":0,"main":"main","trees":{"main":
	  {"type":"Parallel","params":{"success":1},"children":[
	    {"type":"Drive","params":{"linear":0.2}},
	    {"type":"MemSequence","children":[{"type":"Wait","params":{"ms":200}},{"type":"Stall"}]}]}}}`
	cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
	defer ccancel()
	if rep := r.Do(cctx, protocol.Command{ID: "load", Op: protocol.OpMissionLoad, Mission: json.RawMessage(doc), Start: true}); !rep.OK {
		t.Fatalf("load: %+v", rep.Error)
	}
	sr := robot.SimRobot()
	select {
	case <-stall.entered:
	case <-time.After(time.Minute):
		t.Fatal("the mission never reached the Stall")
	}
	// Driving until the tick got stuck...
	if l, rr := sr.Wheels(); l == 0 || rr == 0 {
		t.Fatalf("wheels %v %v: the Drive was not driving when the tick got stuck", l, rr)
	}
	// ...and stopped by the deadman while it is stuck (wait for the event).
	for {
		if l, rr := sr.Wheels(); l == 0 && rr == 0 {
			break
		}
		select {
		case <-cctx.Done():
			t.Fatal("the wheels still turn with the tick stuck")
		case <-time.After(time.Millisecond):
		}
	}
	tripped, since, _ := robot.Deadman()
	if !tripped {
		t.Fatal("wheels stopped but the deadman did not trip")
	}
	// Stuck past the overrun limit (4 periods of 50 ms), by the clock.
	for time.Since(since) < 300*time.Millisecond {
		time.Sleep(5 * time.Millisecond)
	}
	close(stall.release)
	for {
		s := r.State()
		if s.Mode == protocol.ModePaused || s.Mode == protocol.ModeFailsafe {
			break
		}
		select {
		case <-cctx.Done():
			t.Fatalf("the overrun failsafe did not hold the mission: mode %s", s.Mode)
		case <-time.After(time.Millisecond):
		}
	}
	// The deadman is rearmed, and the wheels stay stopped: nothing owns them.
	for {
		if tripped, _, _ := robot.Deadman(); !tripped {
			break
		}
		select {
		case <-cctx.Done():
			t.Fatal("the deadman was never rearmed")
		case <-time.After(time.Millisecond):
		}
	}
	if l, rr := sr.Wheels(); l != 0 || rr != 0 {
		t.Fatalf("wheels %v %v after the stuck tick: the rover drove on", l, rr)
	}
}
