package btcpp

import "testing"

// Timeout as BehaviorTree.CPP has it (gtest_decorator.cpp DeadlineTest;
// the harness ticks every 10 ms).
func TestBTCPPTimeout(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// DeadlineTriggeredTest: the action outlasts the deadline; at
			// the first tick past it the node fails and the action is
			// halted.
			Name:   "DeadlineTriggeredTest",
			Tree:   nd("Timeout", "deadline", kv{"msec": 30}, sc("action", "R")),
			Want:   "RRRF",
			Counts: map[string]counts{"action": {1, 3, 0, 1}},
		},
		{
			// DeadlineNotTriggeredTest: the action ends in time.
			Name:   "DeadlineNotTriggeredTest",
			Tree:   nd("Timeout", "deadline", kv{"msec": 30}, sc("action", "RS")),
			Want:   "RS",
			Counts: map[string]counts{"action": {1, 2, 1, 0}},
		},
		{
			// msec 0 sets no timer in BT.CPP: no limit (MaxTime 0 fails).
			Name:   "zero is no limit",
			Tree:   nd("Timeout", "deadline", kv{"msec": 0}, sc("action", "RRRS")),
			Want:   "RRRS",
			Counts: map[string]counts{"action": {1, 4, 1, 0}},
		},
		{
			Name: "a new activation has a new deadline",
			Tree: nd("Timeout", "deadline", kv{"msec": 20}, sc("action", "RS")),
			Want: "RSRS",
		},
	})
}
