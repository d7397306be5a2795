package nodes

import (
	"github.com/botd-project/botd/bt"
	"testing"
)

func TestMaxTime(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// Opens at 10ms; at 40ms 30ms have passed: FAILURE without
			// ticking the child, which the close rule halts.
			Name:   "expires",
			Tree:   nd("MaxTime", "mt", kv{"ms": 30}, sc("child", "R")),
			Want:   "RRRF",
			Counts: map[string]counts{"mt": {1, 4, 1, 0}, "child": {1, 3, 0, 1}},
		},
		{
			Name:   "child completes in time",
			Tree:   nd("MaxTime", "mt", kv{"ms": 30}, sc("child", "RRS")),
			Want:   "RRS",
			Counts: map[string]counts{"child": {1, 3, 1, 0}},
		},
		{
			Name:   "child fails in time",
			Tree:   nd("MaxTime", "mt", kv{"ms": 30}, sc("child", "RF")),
			Want:   "RF",
			Counts: map[string]counts{"child": {1, 2, 1, 0}},
		},
		{
			Name:   "zero expires at once",
			Tree:   nd("MaxTime", "mt", kv{"ms": 0}, sc("child", "S")),
			Want:   "F",
			Counts: map[string]counts{"child": {}},
		},
		{
			// A new activation has its own time limit.
			Name:   "restarts when reopened",
			Tree:   nd("MaxTime", "mt", kv{"ms": 20}, sc("child", "R")),
			Want:   "RRFRRF",
			Counts: map[string]counts{"child": {2, 4, 0, 2}},
		},
		{
			Name:   "missing key is ERROR",
			Tree:   nd("MaxTime", "mt", kv{"ms": "{limit}"}, sc("child", "R")),
			Want:   "E",
			Counts: map[string]counts{"child": {}},
		},
	})
}

func TestMaxTimeHaltOrder(t *testing.T) {
	h := newHarness(t, nd("MaxTime", "mt", kv{"ms": 10}, nd("Sequence", "seq", nil, sc("a", "S"), sc("b", "R"))))
	h.Run(1)
	h.Rec.Take()
	if st := h.Tick(); st != bt.Failure {
		t.Fatalf("tick 2: %v", st)
	}
	eqLines(t, "expiry", h.Rec.Take(), []string{
		"mt tick FAILURE", "b halt", "seq halt", "mt close",
	})
}

func TestDelay(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// Opens at 10ms; at 30ms 20ms have passed and the child runs.
			Name:   "runs the child after ms",
			Tree:   nd("Delay", "d", kv{"ms": 20}, sc("child", "S")),
			Want:   "RRS",
			Counts: map[string]counts{"d": {1, 3, 1, 0}, "child": {1, 1, 1, 0}},
		},
		{
			Name:   "then passes the child's status through",
			Tree:   nd("Delay", "d", kv{"ms": 10}, sc("child", "RRF")),
			Want:   "RRRF",
			Counts: map[string]counts{"child": {1, 3, 1, 0}},
		},
		{
			Name:   "zero",
			Tree:   nd("Delay", "d", kv{"ms": 0}, sc("child", "E")),
			Want:   "E",
			Counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			Name:   "delays every activation",
			Tree:   nd("Delay", "d", kv{"delay_msec": 10}, sc("child", "S")),
			Want:   "RSRS",
			Counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			Name: "key read when it opens",
			Tree: nd("Delay", "d", kv{"ms": "{d}"}, sc("child", "S")),
			BB:   kv{"d": 20},
			Want: "RRS",
		},
	})
}

func TestTimingProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Wait", "", nil),
		nd("Wait", "", kv{"ms": -1}),
		nd("MaxTime", "", kv{"ms": "soon"}, sc("a", "S")),
		nd("Delay", "", kv{"ms": 10}))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/ms", `missing required parameter "ms"`,
		"/trees/main/children/1/params/ms", "-1 is below the limit 0",
		"/trees/main/children/2/params/ms", `want a number or "{key}", got the string "soon"`,
		"/trees/main/children/3", "Delay takes exactly 1 child, got 0")
}
