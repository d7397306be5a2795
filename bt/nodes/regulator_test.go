package nodes

import "testing"

// hz 10 is a period of 100ms.
func TestRegulator(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// 50ms: starts, SUCCESS. 100ms: too early, the last status
			// without a tick. 150ms: 100ms since the start, starts again.
			Name:   "throttles restarts",
			Tree:   nd("Regulator", "reg", kv{"hz": 10}, sc("child", "S")),
			StepMs: 50,
			Want:   "SSSS",
			Counts: map[string]counts{"reg": {4, 4, 4, 0}, "child": {2, 2, 2, 0}},
		},
		{
			Name:   "returns the last completed status",
			Tree:   nd("Regulator", "reg", kv{"hz": 10}, sc("child", "S|F")),
			StepMs: 50,
			Want:   "SSFF",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			// A running child is ticked every tick; the period counts from
			// the start, so it restarts at once at 200ms.
			Name:   "ticks a running child every tick",
			Tree:   nd("Regulator", "reg", kv{"hz": 10}, sc("child", "RRS")),
			StepMs: 50,
			Want:   "RRSR",
			Counts: map[string]counts{"child": {2, 4, 1, 0}},
		},
		{
			Name:   "no throttling when ticks are slower than the rate",
			Tree:   nd("Regulator", "reg", kv{"hz": 10}, sc("child", "F")),
			StepMs: 100,
			Want:   "FFF",
			Counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			// 30ms: starts, SUCCESS. 60ms: the guard runs, the Regulator is
			// not reached. 90ms: reopened, but only 60ms since the start:
			// the remembered SUCCESS.
			Name: "start time kept across activations",
			Tree: nd("Priority", "root", nil,
				tl("guard", "FRF"),
				nd("Regulator", "reg", kv{"hz": 10}, sc("child", "S"))),
			StepMs: 30,
			Want:   "SRS",
			Counts: map[string]counts{"reg": {2, 2, 2, 0}, "child": {1, 1, 1, 0}},
		},
		{
			// Pinned: a child halted before it ever completed leaves no
			// status to return, so the Regulator returns RUNNING until it
			// may start the child again (at 130ms).
			Name: "throttled with no completed status",
			Tree: nd("Priority", "root", nil,
				tl("guard", "FRF"),
				nd("Regulator", "reg", kv{"hz": 10}, sc("child", "R"))),
			StepMs: 30,
			Want:   "RRRRR",
			Counts: map[string]counts{"child": {2, 2, 0, 1}},
		},
		{
			Name:   "rate from a key",
			Tree:   nd("Regulator", "reg", kv{"hz": "{rate}"}, sc("child", "S")),
			BB:     kv{"rate": 5},
			StepMs: 100,
			Want:   "SSSS",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			Name:   "missing rate key is ERROR",
			Tree:   nd("Regulator", "reg", kv{"hz": "{rate}"}, sc("child", "S")),
			Want:   "E",
			Counts: map[string]counts{"child": {}},
		},
	})
}

func TestRegulatorProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Regulator", "", kv{"hz": 0}, sc("a", "S")),
		nd("Regulator", "", nil, sc("a", "S")))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/hz", "0 is below the limit 1e-06",
		"/trees/main/children/1/params/hz", `missing required parameter "hz"`)
}
