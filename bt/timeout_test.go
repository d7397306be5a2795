package bt

import "testing"

// Timeout as BehaviorTree.CPP has it (gtest_decorator.cpp DeadlineTest;
// the harness ticks every 10 ms).
func TestBTCPPTimeout(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// DeadlineTriggeredTest: the action outlasts the deadline; at
			// the first tick past it the node fails and the action is
			// halted.
			name:   "DeadlineTriggeredTest",
			tree:   nd("Timeout", "deadline", kv{"msec": 30}, sc("action", "R")),
			want:   "RRRF",
			counts: map[string]counts{"action": {1, 3, 0, 1}},
		},
		{
			// DeadlineNotTriggeredTest: the action ends in time.
			name:   "DeadlineNotTriggeredTest",
			tree:   nd("Timeout", "deadline", kv{"msec": 30}, sc("action", "RS")),
			want:   "RS",
			counts: map[string]counts{"action": {1, 2, 1, 0}},
		},
		{
			// msec 0 sets no timer in BT.CPP: no limit (MaxTime 0 fails).
			name:   "zero is no limit",
			tree:   nd("Timeout", "deadline", kv{"msec": 0}, sc("action", "RRRS")),
			want:   "RRRS",
			counts: map[string]counts{"action": {1, 4, 1, 0}},
		},
		{
			name: "a new activation has a new deadline",
			tree: nd("Timeout", "deadline", kv{"msec": 20}, sc("action", "RS")),
			want: "RSRS",
		},
	})
}
