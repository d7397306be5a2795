package btcpp

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
			Name:   "RepeatTestA: FAILURE stops it",
			Tree:   nd("Repeat", "rep", kv{"num_cycles": 3}, sc("child", "F")),
			Want:   "F",
			Counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			// RepeatTest.RepeatTestA, second half: three synchronous
			// successes within one tick.
			Name:   "RepeatTestA: three successes in one tick",
			Tree:   nd("Repeat", "rep", kv{"num_cycles": 3}, sc("child", "S")),
			Want:   "S",
			Counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			// RepeatTestAsync.RepeatTestAsync: an asynchronous child; each
			// success restarts it in the same tick, where it runs again.
			Name:   "RepeatTestAsync",
			Tree:   nd("Repeat", "rep", kv{"num_cycles": 3}, sc("child", "RS")),
			Want:   "RRRS",
			Counts: map[string]counts{"child": {3, 6, 3, 0}},
		},
		{
			// RepeatTestAsync, second half: the asynchronous child fails.
			Name:   "RepeatTestAsync: failure",
			Tree:   nd("Repeat", "rep", kv{"num_cycles": 3}, sc("child", "RF")),
			Want:   "RF",
			Counts: map[string]counts{"child": {1, 2, 1, 0}},
		},
		{
			Name:   "zero cycles succeed without ticking the child",
			Tree:   nd("Repeat", "rep", kv{"num_cycles": 0}, sc("child", "S")),
			Want:   "S",
			Counts: map[string]counts{"child": {}},
		},
		{
			// BT.CPP would loop for ever inside one tick; botd yields.
			Name:   "forever yields after 1000 restarts",
			Tree:   nd("Repeat", "rep", kv{"num_cycles": -1}, sc("child", "S")),
			Want:   "RR",
			Counts: map[string]counts{"child": {2000, 2000, 2000, 0}},
		},
		{
			Name:   "count from the blackboard",
			Tree:   nd("Repeat", "rep", kv{"num_cycles": "{n}"}, sc("child", "S")),
			BB:     kv{"n": 2},
			Want:   "S",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			Name: "count key missing is ERROR",
			Tree: nd("Repeat", "rep", kv{"num_cycles": "{n}"}, sc("child", "S")),
			Want: "E",
		},
	})
}

func TestBTCPPRetryUntilSuccessful(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// RetryTest.RetryTestA: three synchronous failures in one tick.
			Name:   "RetryTestA: attempts run within the tick",
			Tree:   nd("RetryUntilSuccessful", "retry", kv{"num_attempts": 3}, sc("child", "F")),
			Want:   "F",
			Counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			// RetryTest.RetryTestA, second half.
			Name:   "RetryTestA: SUCCESS stops it",
			Tree:   nd("RetryUntilSuccessful", "retry", kv{"num_attempts": 3}, sc("child", "S")),
			Want:   "S",
			Counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			Name:   "a running attempt resumes",
			Tree:   nd("RetryUntilSuccessful", "retry", kv{"num_attempts": 3}, sc("child", "F|RS")),
			Want:   "RS",
			Counts: map[string]counts{"child": {2, 3, 2, 0}},
		},
		{
			Name:   "BT.CPP 3 spelling",
			Tree:   nd("RetryUntilSuccesful", "retry", kv{"num_attempts": 2}, sc("child", "F")),
			Want:   "F",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			// TimeoutAndRetry.Issue57: a Timeout over a Retry of 1000
			// attempts of a failing action: every tick completes, none is
			// left without a status.
			Name:   "Issue57",
			Tree:   nd("Timeout", "deadline", kv{"msec": 9}, nd("RetryUntilSuccessful", "retry", kv{"num_attempts": 1000}, sc("child", "F"))),
			Want:   "FFF",
			Counts: map[string]counts{"child": {3000, 3000, 3000, 0}},
		},
	})
}

// Decorator.KeepRunningUntilFailure (gtest_decorator.cpp): two successes
// keep it running, the failure on the third tick ends it.
func TestKeepRunningUntilFailure(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "KeepRunningUntilFailure",
			Tree:   nd("KeepRunningUntilFailure", "k", nil, tl("child", "SSF")),
			Want:   "RRF",
			Counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			Name:   "a running child keeps it running",
			Tree:   nd("KeepRunningUntilFailure", "k", nil, sc("child", "RF")),
			Want:   "RF",
			Counts: map[string]counts{"child": {1, 2, 1, 0}},
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
