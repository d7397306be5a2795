package btcpp

import (
	"github.com/botd-project/botd/bt"
	"strings"
	"testing"
)

// ParallelNode is BehaviorTree.CPP's Parallel (gtest_parallel.cpp). Its
// children are two conditions and two actions, the first action taking
// one tick more than the conditions, the second three (SimpleParallelTest).
func TestBTCPPParallel(t *testing.T) {
	kids := func() []*bt.NodeDef {
		return []*bt.NodeDef{sc("cond1", "S"), sc("action1", "RS"), sc("cond2", "S"), sc("action2", "RRS")}
	}
	par := func(params kv) *bt.NodeDef { return nd("ParallelNode", "par", params, kids()...) }
	runTickCases(t, []tickCase{
		{
			Name:   "ConditionsTrue",
			Tree:   par(nil),
			Want:   "RRS",
			Counts: map[string]counts{"cond1": {1, 1, 1, 0}, "action1": {1, 2, 1, 0}, "action2": {1, 3, 1, 0}},
		},
		{
			// Threshold_3: three successes are enough; action2 is halted.
			Name:   "Threshold_3",
			Tree:   par(kv{"success_count": 3}),
			Want:   "RS",
			Counts: map[string]counts{"action1": {1, 2, 1, 0}, "action2": {1, 1, 0, 1}},
		},
		{
			Name:   "Threshold_neg2",
			Tree:   par(kv{"success_count": -2}),
			Want:   "RS",
			Counts: map[string]counts{"action2": {1, 1, 0, 1}},
		},
		{
			Name:   "Threshold_neg1",
			Tree:   par(kv{"success_count": -1}),
			Want:   "RRS",
			Counts: map[string]counts{"action2": {1, 3, 1, 0}},
		},
		{
			// Threshold_2: the second success comes from cond2 in the first
			// tick, so action2 is never ticked.
			Name:   "Threshold_2",
			Tree:   par(kv{"success_count": 2}),
			Want:   "S",
			Counts: map[string]counts{"action1": {1, 1, 0, 1}, "cond2": {1, 1, 1, 0}, "action2": {}},
		},
		{
			// Unlike botd's Parallel, it decides after each child: the
			// children after the deciding one are not ticked.
			Name:   "decides after each child",
			Tree:   nd("ParallelNode", "par", kv{"success_count": 1}, sc("a", "S"), sc("b", "S")),
			Want:   "S",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "b": {}},
		},
		{
			Name:   "failure threshold",
			Tree:   nd("ParallelNode", "par", kv{"success_count": 1, "failure_count": 2}, sc("a", "F"), sc("b", "RF"), sc("c", "R")),
			Want:   "RF",
			Counts: map[string]counts{"b": {1, 2, 1, 0}, "c": {1, 1, 0, 1}},
		},
		{
			// FailingParallel: success 1, failure 3; the first to succeed
			// (200 ms after it opened at 10 ms: tick 21) wins while the slow one is
			// halted.
			Name: "FailingParallel",
			Tree: nd("ParallelNode", "par", kv{"success_count": 1, "failure_count": 3},
				nd("TestNode", "first", kv{"async_delay": 200}),
				nd("TestNode", "second", kv{"async_delay": 100, "return_status": "FAILURE"}),
				nd("TestNode", "third", kv{"async_delay": 300})),
			Want:   strings.Repeat("R", 20) + "S",
			Counts: map[string]counts{"first": {1, 21, 1, 0}, "second": {1, 11, 1, 0}, "third": {1, 20, 0, 1}},
		},
	})
}

// Parallel.ParallelAll (gtest_parallel.cpp): every child runs to its end;
// one failure fails it with max_failures 1, not with 2.
func TestParallelAll(t *testing.T) {
	kids := func() []*bt.NodeDef {
		return []*bt.NodeDef{
			nd("TestNode", "first", kv{"async_delay": 100, "return_status": "FAILURE"}),
			nd("TestNode", "second", kv{"async_delay": 300}),
			nd("TestNode", "third", kv{"async_delay": 300}),
		}
	}
	all := strings.Repeat("R", 30) // the slow ones end at 310 ms: tick 31
	runTickCases(t, []tickCase{
		{
			Name:   "max_failures 1",
			Tree:   nd("ParallelAll", "par", kv{"max_failures": 1}, kids()...),
			Want:   all + "F",
			Counts: map[string]counts{"first": {1, 11, 1, 0}, "second": {1, 31, 1, 0}, "third": {1, 31, 1, 0}},
		},
		{
			Name: "max_failures 2",
			Tree: nd("ParallelAll", "par", kv{"max_failures": 2}, kids()...),
			Want: all + "S",
		},
	})
}

// botd's own Parallel takes BT.CPP's negative counts too.
func TestParallelNegativeCounts(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name: "-2 is all but one",
			Tree: nd("Parallel", "par", kv{"success": -2}, sc("a", "S"), sc("b", "S"), sc("c", "R")),
			Want: "S",
		},
		{
			Name: "failure -1 is all",
			Tree: nd("Parallel", "par", kv{"success": 3, "failure": -1}, sc("a", "F"), sc("b", "F"), sc("c", "RS")),
			Want: "RF",
		},
	})
	ps := compileProblems(t, mainSpec(nd("Parallel", "", kv{"success": -4}, sc("a", "S"), sc("b", "S"))))
	wantProblems(t, ps, "/trees/main/params/success", "counts back past the first of its 2 children")
}
