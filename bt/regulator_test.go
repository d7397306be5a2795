package bt

import "testing"

// hz 10 is a period of 100ms.
func TestRegulator(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// 50ms: starts, SUCCESS. 100ms: too early, the last status
			// without a tick. 150ms: 100ms since the start, starts again.
			name:   "throttles restarts",
			tree:   nd("Regulator", "reg", kv{"hz": 10}, sc("child", "S")),
			stepMs: 50,
			want:   "SSSS",
			counts: map[string]counts{"reg": {4, 4, 4, 0}, "child": {2, 2, 2, 0}},
		},
		{
			name:   "returns the last completed status",
			tree:   nd("Regulator", "reg", kv{"hz": 10}, sc("child", "S|F")),
			stepMs: 50,
			want:   "SSFF",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			// A running child is ticked every tick; the period counts from
			// the start, so it restarts at once at 200ms.
			name:   "ticks a running child every tick",
			tree:   nd("Regulator", "reg", kv{"hz": 10}, sc("child", "RRS")),
			stepMs: 50,
			want:   "RRSR",
			counts: map[string]counts{"child": {2, 4, 1, 0}},
		},
		{
			name:   "no throttling when ticks are slower than the rate",
			tree:   nd("Regulator", "reg", kv{"hz": 10}, sc("child", "F")),
			stepMs: 100,
			want:   "FFF",
			counts: map[string]counts{"child": {3, 3, 3, 0}},
		},
		{
			// 30ms: starts, SUCCESS. 60ms: the guard runs, the Regulator is
			// not reached. 90ms: reopened, but only 60ms since the start:
			// the remembered SUCCESS.
			name: "start time kept across activations",
			tree: nd("Priority", "root", nil,
				tl("guard", "FRF"),
				nd("Regulator", "reg", kv{"hz": 10}, sc("child", "S"))),
			stepMs: 30,
			want:   "SRS",
			counts: map[string]counts{"reg": {2, 2, 2, 0}, "child": {1, 1, 1, 0}},
		},
		{
			// Pinned: a child halted before it ever completed leaves no
			// status to return, so the Regulator returns RUNNING until it
			// may start the child again (at 130ms).
			name: "throttled with no completed status",
			tree: nd("Priority", "root", nil,
				tl("guard", "FRF"),
				nd("Regulator", "reg", kv{"hz": 10}, sc("child", "R"))),
			stepMs: 30,
			want:   "RRRRR",
			counts: map[string]counts{"child": {2, 2, 0, 1}},
		},
		{
			name:   "rate from a key",
			tree:   nd("Regulator", "reg", kv{"hz": "{rate}"}, sc("child", "S")),
			bb:     kv{"rate": 5},
			stepMs: 100,
			want:   "SSSS",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			name:   "missing rate key is ERROR",
			tree:   nd("Regulator", "reg", kv{"hz": "{rate}"}, sc("child", "S")),
			want:   "E",
			counts: map[string]counts{"child": {}},
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
