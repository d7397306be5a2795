package nav2

import (
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

// The Nav2 decorators and conditions. Nav2's own tests tick a node
// without a parent, which keeps its status between ticks; here the node
// sits in a PipelineSequence beside a child that keeps running, as in
// Nav2's trees, which does the same.

// statusesOf returns the statuses a named node returned, one letter per
// tick it was ticked in, '.' for a tick it was not reached in.
func statusesOf(h *harness, name string, ticks int) string {
	i := h.Idx(name)
	out := []byte(strings.Repeat(".", ticks))
	tick := 0
	for _, e := range h.Rec.Events {
		if e.Node == 0 && e.Event == bt.EventTick {
			tick++
		}
		if e.Node == i && e.Event == bt.EventTick && tick < ticks {
			out[tick] = e.Status.Letter()
		}
	}
	return string(out)
}

func inPipeline(n *bt.NodeDef) *bt.NodeDef {
	return nd("PipelineSequence", "pipe", nil, n, sc("busy", "R"))
}

// test_rate_controller.cpp test_behavior: at 1 Hz, ticked every 500 ms,
// the child runs on every other tick.
func TestRateController(t *testing.T) {
	h := newHarness(t, inPipeline(nd("RateController", "rate", kv{"hz": 1}, sc("child", "S"))))
	h.Step = 500 * ms
	h.Run(11)
	if got := statusesOf(h, "rate", 11); got != "SRSRSRSRSRS" {
		t.Errorf("RateController statuses %s", got)
	}
	if c := h.Counts("child"); c.Tick != 6 {
		t.Errorf("child ticked %d times, want 6", c.Tick)
	}
}

// A running child is ticked on every tick, whatever the rate.
func TestRateControllerRunningChild(t *testing.T) {
	h := newHarness(t, inPipeline(nd("RateController", "rate", kv{"hz": 1}, sc("child", "RRS"))))
	h.Step = 100 * ms
	h.Run(5)
	if got := statusesOf(h, "rate", 5); got != "RRSRR" {
		t.Errorf("RateController statuses %s", got)
	}
}

// When its pipeline fails and a RecoveryNode restarts it, Nav2 has reset
// the RateController (the pipeline halts its children): the child runs
// at once, without waiting for the period. This is how Nav2's default
// tree replans right after a recovery.
func TestRateControllerRestartsWithItsParent(t *testing.T) {
	h := newHarness(t, nd("RecoveryNode", "recovery", kv{"number_of_retries": 1},
		nd("PipelineSequence", "pipe", nil,
			nd("RateController", "rate", kv{"hz": 0.1}, sc("plan", "S")),
			sc("follow", "RF|R")),
		sc("clear", "S")))
	h.Run(4)
	// tick 1: plan, follow R. tick 2: throttled, follow F: the pipeline
	// fails, the recovery succeeds and the pipeline starts again in the
	// same tick: plan runs again at once. tick 3, 4: throttled.
	if c := h.Counts("plan"); c.Tick != 2 {
		t.Errorf("plan ticked %d times, want 2 (at the start and after the recovery)", c.Tick)
	}
	if got := statusesOf(h, "rate", 4); got != "SSRR" {
		t.Errorf("RateController statuses %s, want SSRR", got)
	}
}

// test_distance_controller.cpp test_behavior: the robot moves 0.51 m per
// tick; with distance 1 the child runs on every other tick.
func TestDistanceController(t *testing.T) {
	h := newHarness(t, inPipeline(nd("DistanceController", "dist", kv{"distance": 1}, sc("child", "S"))),
		withBB(kv{"pose.x": 0, "pose.y": 0}))
	x, _ := h.Tree.Slot("pose.x")
	h.Run(1)
	for i := 1; i <= 20; i++ {
		h.A.BB.Set(x, bt.NumberValue(float64(i)*0.51))
		h.Run(1)
	}
	want := "S" + strings.Repeat("RS", 10)
	if got := statusesOf(h, "dist", 21); got != want {
		t.Errorf("DistanceController statuses %s, want %s", got, want)
	}
}

func TestDistanceControllerNoPose(t *testing.T) {
	runTickCases(t, []tickCase{{
		Name: "no pose is FAILURE",
		Tree: nd("DistanceController", "dist", nil, sc("child", "S")),
		Want: "F",
	}})
}

// test_speed_controller.cpp test_behavior, on a one-second tick: the
// first run is at once and the first period is 1/max_rate (1 s); then
// the period follows the speed: 0.223 m/s, between min_speed 0 and
// max_speed 0.5, gives about 2 s; speed 0 gives 1/min_rate, 10 s.
func TestSpeedController(t *testing.T) {
	h := newHarness(t, inPipeline(nd("SpeedController", "speed", nil, sc("child", "S"))),
		withBB(kv{"odom.speed": 0.223}))
	h.Step = 1000 * ms
	h.Run(3) // t=1 s: first run; t=2: the 1 s period passed, next ~2 s; t=3: waits
	speed, _ := h.Tree.Slot("odom.speed")
	h.A.BB.Set(speed, bt.NumberValue(0))
	h.Run(13) // t=4: runs, next period 10 s; t=5..13: waits; t=14: runs
	got := statusesOf(h, "speed", 16)
	if want := "SSRS" + strings.Repeat("R", 9) + "SRR"; got != want {
		t.Errorf("SpeedController statuses %s, want %s", got, want)
	}
}

// SingleTrigger runs its child once; the next tick it fails (which here
// fails the pipeline, so the tree starts afresh and so does the trigger).
func TestSingleTrigger(t *testing.T) {
	h := newHarness(t, inPipeline(nd("SingleTrigger", "once", nil, sc("child", "RS"))))
	if got := h.Run(5); got != "RRFRR" {
		t.Errorf("root statuses %s, want RRFRR", got)
	}
	if got := statusesOf(h, "once", 5); got != "RSFRS" {
		t.Errorf("SingleTrigger statuses %s, want RSFRS", got)
	}
}

// test_goal_updated_controller.cpp test_behavior: the child runs at the
// start and after each change of goal or goals, not in between.
func TestGoalUpdatedController(t *testing.T) {
	h := newHarness(t, inPipeline(nd("GoalUpdatedController", "gu", nil, sc("child", "S"))), withKeys("goal", "goals"))
	goal, _ := h.Tree.Slot("goal")
	goals, _ := h.Tree.Slot("goals")
	h.Run(1)
	h.A.BB.Set(goal, bt.StringValue("goal2"))
	h.Run(2)
	h.A.BB.Set(goals, bt.ValueOf([]any{"goal2"}))
	h.Run(1)
	if got := statusesOf(h, "gu", 4); got != "SSRS" {
		t.Errorf("GoalUpdatedController statuses %s, want SSRS", got)
	}
}

// GoalUpdated notes the goal when it starts and succeeds when it changes.
func TestGoalUpdated(t *testing.T) {
	h := newHarness(t, nd("Priority", "root", nil, nd("GoalUpdated", "gu", nil), sc("work", "R")),
		withBB(kv{"goal": "a"}))
	goal, _ := h.Tree.Slot("goal")
	h.Run(2)
	h.Now += 1
	h.A.BB.Set(goal, bt.StringValue("b"))
	if got := h.Run(1); got != "S" {
		t.Fatalf("after a new goal the root returned %s", got)
	}
	if got := statusesOf(h, "gu", 3); got != "FFS" {
		t.Errorf("GoalUpdated statuses %s, want FFS", got)
	}
}

// GlobalUpdatedGoal succeeds the first time, then only on a change.
func TestGlobalUpdatedGoal(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil, nd("Inverter", "", nil, nd("GlobalUpdatedGoal", "gug", nil)), sc("work", "R")),
		withBB(kv{"goal": "a"}))
	goal, _ := h.Tree.Slot("goal")
	if got := h.Run(3); got != "FRR" {
		t.Fatalf("statuses %s, want FRR", got)
	}
	h.A.BB.Set(goal, bt.StringValue("b"))
	if got := h.Run(1); got != "F" {
		t.Fatalf("after a new goal: %s, want F", got)
	}
}

func TestGoalUpdater(t *testing.T) {
	tree := nd("GoalUpdater", "gu", kv{"input_goal": "{goal}", "output_goal": "{updated_goal}"},
		nd("Check", "", kv{"key": "updated_goal", "value": "B"}))
	h := newHarness(t, tree, withBB(kv{"goal": "A"}), withKeys("goal_update"))
	if got := h.Run(1); got != "F" {
		t.Fatalf("without an update: %s, want F (the input goal)", got)
	}
	upd, _ := h.Tree.Slot("goal_update")
	h.A.BB.Set(upd, bt.StringValue("B"))
	if got := h.Run(1); got != "S" {
		t.Fatalf("with an update: %s, want S", got)
	}
}

// TimeExpired starts counting when it starts afresh. A decorator over it
// would reset it at every completion (BT.CPP's decorators reset their
// child), so it sits in a ReactiveFallback, which keeps its status.
func TestTimeExpired(t *testing.T) {
	h := newHarness(t, nd("Priority", "root", nil, nd("TimeExpired", "te", kv{"seconds": 0.03}), sc("busy", "R")))
	if got := h.Run(8); got != "RRRSRRRS" {
		t.Errorf("root statuses %s, want RRRSRRRS", got)
	}
	if got := statusesOf(h, "te", 8); got != "FFFSFFFS" {
		t.Errorf("TimeExpired statuses %s, want FFFSFFFS", got)
	}
	// PathExpiringTimer starts once per mission; a new path restarts the
	// count.
	p := newHarness(t, inPipeline(nd("ForceSuccess", "", nil, nd("PathExpiringTimer", "pe", kv{"seconds": 0.03, "path": "{path}"}))),
		withKeys("path"))
	p.Run(3)
	path, _ := p.Tree.Slot("path")
	p.A.BB.Set(path, bt.StringValue("new"))
	p.Run(5)
	if got := statusesOf(p, "pe", 8); got != "FFFFFFSF" {
		t.Errorf("PathExpiringTimer statuses %s, want FFFFFFSF", got)
	}
}

func TestIsBatteryLow(t *testing.T) {
	runTickCases(t, []tickCase{
		{Name: "low", Tree: nd("IsBatteryLow", "", kv{"min_battery": 20}), BB: kv{"battery.percent": 15}, Want: "S"},
		{Name: "not low", Tree: nd("IsBatteryLow", "", kv{"min_battery": 20}), BB: kv{"battery.percent": 50}, Want: "F"},
		{Name: "no reading yet", Tree: nd("IsBatteryLow", "", kv{"min_battery": 20}), Want: "F"},
		{Name: "voltage", Tree: nd("IsBatteryLow", "", kv{"min_battery": 11, "is_voltage": true}), BB: kv{"battery.voltage": 10.5}, Want: "S"},
		{Name: "own key", Tree: nd("IsBatteryLow", "", kv{"min_battery": 0.2, "key": "soc"}), BB: kv{"soc": 0.1}, Want: "S"},
		{Name: "charging", Tree: nd("IsBatteryCharging", "", nil), BB: kv{"battery.charging": true}, Want: "S"},
	})
}
