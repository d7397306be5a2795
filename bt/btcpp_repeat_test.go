package bt

import "testing"

// Repeat and RetryUntilSuccessful as BehaviorTree.CPP has them: the
// child runs again within the same tick while it completes at once.
// Scenarios ported from BT.CPP's tests/gtest_decorator.cpp are named
// after their test case.
func TestBTCPPRepeat(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// RepeatTest.RepeatTestA, first half: a failing child stops the
			// loop at once.
			name:   "RepeatTestA: FAILURE stops it",
			tree:   nd("Repeat", "rep", kv{"num_cycles": 3}, sc("child", "F")),
			want:   "F",
			counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			// RepeatTest.RepeatTestA, second half: three synchronous
			// successes within one tick.
			name:   "RepeatTestA: three successes in one tick",
			tree:   nd("Repeat", "rep", kv{"num_cycles": 3}, sc("child", "S")),
			want:   "S",
			counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			// RepeatTestAsync.RepeatTestAsync: an asynchronous child; each
			// success restarts it in the same tick, where it runs again.
			name:   "RepeatTestAsync",
			tree:   nd("Repeat", "rep", kv{"num_cycles": 3}, sc("child", "RS")),
			want:   "RRRS",
			counts: map[string]counts{"child": {3, 6, 3, 0}},
		},
		{
			// RepeatTestAsync, second half: the asynchronous child fails.
			name:   "RepeatTestAsync: failure",
			tree:   nd("Repeat", "rep", kv{"num_cycles": 3}, sc("child", "RF")),
			want:   "RF",
			counts: map[string]counts{"child": {1, 2, 1, 0}},
		},
		{
			name:   "zero cycles succeed without ticking the child",
			tree:   nd("Repeat", "rep", kv{"num_cycles": 0}, sc("child", "S")),
			want:   "S",
			counts: map[string]counts{"child": {}},
		},
		{
			// BT.CPP would loop for ever inside one tick; botd yields.
			name:   "forever yields after 1000 restarts",
			tree:   nd("Repeat", "rep", kv{"num_cycles": -1}, sc("child", "S")),
			want:   "RR",
			counts: map[string]counts{"child": {2000, 2000, 2000, 0}},
		},
		{
			name:   "count from the blackboard",
			tree:   nd("Repeat", "rep", kv{"num_cycles": "{n}"}, sc("child", "S")),
			bb:     kv{"n": 2},
			want:   "S",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			name: "count key missing is ERROR",
			tree: nd("Repeat", "rep", kv{"num_cycles": "{n}"}, sc("child", "S")),
			want: "E",
		},
	})
}

func TestBTCPPRetryUntilSuccessful(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// RetryTest.RetryTestA: three synchronous failures in one tick.
			name:   "RetryTestA: attempts run within the tick",
			tree:   nd("RetryUntilSuccessful", "retry", kv{"num_attempts": 3}, sc("child", "F")),
			want:   "F",
			counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			// RetryTest.RetryTestA, second half.
			name:   "RetryTestA: SUCCESS stops it",
			tree:   nd("RetryUntilSuccessful", "retry", kv{"num_attempts": 3}, sc("child", "S")),
			want:   "S",
			counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			name:   "a running attempt resumes",
			tree:   nd("RetryUntilSuccessful", "retry", kv{"num_attempts": 3}, sc("child", "F|RS")),
			want:   "RS",
			counts: map[string]counts{"child": {2, 3, 2, 0}},
		},
		{
			name:   "BT.CPP 3 spelling",
			tree:   nd("RetryUntilSuccesful", "retry", kv{"num_attempts": 2}, sc("child", "F")),
			want:   "F",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			// TimeoutAndRetry.Issue57: a Timeout over a Retry of 1000
			// attempts of a failing action: every tick completes, none is
			// left without a status.
			name:   "Issue57",
			tree:   nd("Timeout", "deadline", kv{"msec": 9}, nd("RetryUntilSuccessful", "retry", kv{"num_attempts": 1000}, sc("child", "F"))),
			want:   "FFF",
			counts: map[string]counts{"child": {3000, 3000, 3000, 0}},
		},
	})
}

// Decorator.KeepRunningUntilFailure (gtest_decorator.cpp): two successes
// keep it running, the failure on the third tick ends it.
func TestKeepRunningUntilFailure(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "KeepRunningUntilFailure",
			tree:   nd("KeepRunningUntilFailure", "k", nil, tl("child", "SSF")),
			want:   "RRF",
			counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			name:   "a running child keeps it running",
			tree:   nd("KeepRunningUntilFailure", "k", nil, sc("child", "RF")),
			want:   "RF",
			counts: map[string]counts{"child": {1, 2, 1, 0}},
		},
	})
}

func TestBTCPPLoopProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Repeat", "", kv{"num_cycles": 1.5}, sc("a", "S")),
		nd("RetryUntilSuccessful", "", nil, sc("b", "S")),
		nd("Repeat", "", kv{"num_cycles": -2}, sc("c", "S")))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/num_cycles", "whole number",
		"/trees/main/children/1/params/num_attempts", "missing required parameter",
		"/trees/main/children/2/params/num_cycles", "below the limit -1")
}
