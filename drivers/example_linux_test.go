//go:build linux

package drivers_test

import (
	"fmt"
	"math"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/drivers"
	"github.com/botd-project/botd/drivers/sim"
	"github.com/botd-project/botd/drivers/standard"
)

// A mission on the simulated rover in virtual time, the way `botd sim` runs one: each tick
// advances the world and samples the sensors, copies the samples into the agent's
// blackboard, ticks the tree and applies the actuator commands.
func ExampleSimFleet() {
	kinds := standard.Kinds()
	cfg, err := kinds.LoadConfig("../configs/sim.yaml")
	if err != nil {
		panic(err)
	}
	reg := catalog.NewRegistry()
	drivers.Register(reg, kinds, cfg)
	tree, err := reg.Compile(&bt.Spec{
		Main: "main",
		Trees: map[string]*bt.NodeDef{"main": {Type: "MemSequence", Children: []*bt.NodeDef{
			{Type: "Drive", Params: map[string]any{"linear": 0.2, "ms": 1000}},
			{Type: "Turn", Params: map[string]any{"angle_deg": 90}},
		}}},
		Keys: cfg.SensorKeys(),
	})
	if err != nil {
		panic(err)
	}
	fleet, err := drivers.NewSimFleet(cfg, sim.DefaultWorld(), 1, nil)
	if err != nil {
		panic(err)
	}
	defer fleet.Close()
	robot := fleet.Robot(0)
	agent := bt.NewAgent(tree, 0, drivers.SimEpoch.UnixNano())
	agent.Env = robot
	binding := robot.Bind(tree)
	const hz = 20
	for k := 1; k <= 1000; k++ {
		now := drivers.SimEpoch.Add(time.Duration(k) * time.Second / hz)
		fleet.Advance(now)
		binding.Snapshot(&agent.BB)
		st := agent.Tick(now.UnixNano())
		if err := robot.Apply(); err != nil {
			panic(err)
		}
		if st != bt.Running {
			x, y, h := robot.SimRobot().Pose()
			fmt.Printf("%v after %d ticks at (%.2f, %.2f) heading %.1f°\n", st, k, x, y, h*180/math.Pi)
			break
		}
	}
	// Output: SUCCESS after 68 ticks at (0.20, 0.00) heading 89.1°
}
