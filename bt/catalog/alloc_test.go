package catalog

import (
	"testing"

	"github.com/botd-project/botd/bt"
)

// The node types ported from BehaviorTree.CPP and Nav2 keep the tick path
// free of allocations, as the built-ins do (the script nodes excepted:
// expr-lang allocates when it runs a program).
func TestBTCPPNodesAllocateNothing(t *testing.T) {
	ok := func() *bt.NodeDef { return nd("Succeed", "", nil) }
	wait := func(ms int) *bt.NodeDef { return nd("Wait", "", kv{"ms": ms}) }
	root := nd("Repeater", "", nil,
		nd("ParallelAll", "", kv{"max_failures": -1},
			nd("Repeat", "", kv{"num_cycles": 3}, ok()),
			nd("RetryUntilSuccessful", "", kv{"num_attempts": "{n}"}, ok()),
			nd("SequenceWithMemory", "", nil, wait(20), ok()),
			nd("ParallelNode", "", kv{"success_count": -2}, wait(10), ok(), wait(30)),
			nd("IfThenElse", "", nil, ok(), wait(10), ok()),
			nd("WhileDoElse", "", nil, nd("Check", "", kv{"key": "n", "op": ">", "value": 1}), wait(10), ok()),
			nd("Switch2", "", kv{"variable": "{mode}", "case_1": "a", "case_2": "b"}, ok(), wait(10), ok()),
			nd("Timeout", "", kv{"msec": 50}, wait(20)),
			nd("LoopInt", "", kv{"queue": "1;2;3", "value": "{i}"}, ok()),
			nd("TestNode", "", kv{"async_delay": 20}),
			nd("WaitValueUpdate", "", kv{"entry": "mode"}, ok()),
			nd("PipelineSequence", "", nil,
				nd("RateController", "", kv{"hz": 20}, ok()),
				nd("DistanceController", "", kv{"distance": 0.5}, ok()),
				nd("SpeedController", "", nil, ok()),
				nd("GoalUpdatedController", "", nil, ok()),
				nd("SingleTrigger", "", nil, ok()),
				nd("GoalUpdater", "", kv{"input_goal": "{goal}", "output_goal": "{g2}"}, ok()),
				nd("Priority", "", nil, nd("GoalUpdated", "", nil), nd("TimeExpired", "", nil),
					nd("IsBatteryLow", "", kv{"min_battery": 5}), ok()),
				wait(40))))
	tree := compileTree(t, root, withBB(kv{"n": 2, "mode": "b", "pose.x": 0, "pose.y": 0, "goal": "g", "battery.percent": 50}))
	a := bt.NewAgent(tree, 0, 0)
	now := int64(0)
	for i := 0; i < 100; i++ { // warm up: every node has run
		now += 10 * ms
		a.Tick(now)
	}
	if n := testing.AllocsPerRun(200, func() { now += 10 * ms; a.Tick(now) }); n != 0 {
		t.Errorf("%v allocations per tick", n)
	}
}
