package bt

import (
	"strings"
	"testing"
)

// Ticks happen every stepMs (default 10ms) from t=stepMs on; a duration
// has passed when now - start >= ms.
func TestWait(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// Opens at 10ms; done at 110ms, the 11th tick.
			name:   "runs until ms has passed",
			tree:   nd("Wait", "w", kv{"ms": 100}),
			want:   strings.Repeat("R", 10) + "S",
			counts: map[string]counts{"w": {1, 11, 1, 0}},
		},
		{
			// Opens at 50ms: 100ms R (50 passed), 150ms S (exactly 100).
			name:   "exact boundary",
			tree:   nd("Wait", "w", kv{"ms": 100}),
			stepMs: 50,
			want:   "RRS",
		},
		{
			name:   "one tick short",
			tree:   nd("Wait", "w", kv{"ms": 100.000001}),
			stepMs: 50,
			want:   "RRRS",
		},
		{
			name: "zero",
			tree: nd("Wait", "w", kv{"ms": 0}),
			want: "SS",
		},
		{
			// A new activation waits again from its own open.
			name:   "restarts when reopened",
			tree:   nd("Wait", "w", kv{"ms": 20}),
			want:   "RRSRRS",
			counts: map[string]counts{"w": {2, 6, 2, 0}},
		},
		{
			name:   "Sleep alias and msec",
			tree:   nd("Sleep", "w", kv{"msec": 10}),
			want:   "RS",
			stepMs: 10,
		},
		{
			name: "key read when it opens",
			tree: nd("Wait", "w", kv{"ms": "{pause}"}),
			bb:   kv{"pause": 30},
			want: "RRRS",
		},
		{
			name: "missing key is ERROR",
			tree: nd("Wait", "w", kv{"ms": "{pause}"}),
			want: "E",
		},
		{
			name: "negative key value is ERROR",
			tree: nd("Wait", "w", kv{"ms": "{pause}"}),
			bb:   kv{"pause": -5},
			want: "E",
		},
		{
			name: "non-number key value is ERROR",
			tree: nd("Wait", "w", kv{"ms": "{pause}"}),
			bb:   kv{"pause": "long"},
			want: "E",
		},
	})
}

func TestWaitReadsKeyOnOpenOnly(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil, nd("Wait", "w", kv{"ms": "{pause}"})), withBB(kv{"pause": 30}))
	slot, _ := h.tree.Slot("pause")
	if got := h.run(1); got != "R" {
		t.Fatalf("tick 1: %s", got)
	}
	// Changing the key while the Wait runs does not change this wait.
	h.a.BB.SetNumber(slot, 1000)
	if got := h.run(3); got != "RRS" {
		t.Errorf("after the key changed mid-wait: %s, want RRS (30ms read at open)", got)
	}
	// The next activation reads the new value.
	if got := h.run(101); got != strings.Repeat("R", 100)+"S" {
		t.Errorf("second activation: %s, want 100 R then S (1000ms)", got)
	}
}

func TestMaxTime(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// Opens at 10ms; at 40ms 30ms have passed: FAILURE without
			// ticking the child, which the close rule halts.
			name:   "expires",
			tree:   nd("MaxTime", "mt", kv{"ms": 30}, sc("child", "R")),
			want:   "RRRF",
			counts: map[string]counts{"mt": {1, 4, 1, 0}, "child": {1, 3, 0, 1}},
		},
		{
			name:   "child completes in time",
			tree:   nd("MaxTime", "mt", kv{"ms": 30}, sc("child", "RRS")),
			want:   "RRS",
			counts: map[string]counts{"child": {1, 3, 1, 0}},
		},
		{
			name:   "child fails in time",
			tree:   nd("MaxTime", "mt", kv{"ms": 30}, sc("child", "RF")),
			want:   "RF",
			counts: map[string]counts{"child": {1, 2, 1, 0}},
		},
		{
			name:   "zero expires at once",
			tree:   nd("MaxTime", "mt", kv{"ms": 0}, sc("child", "S")),
			want:   "F",
			counts: map[string]counts{"child": {}},
		},
		{
			// A new activation has its own time limit.
			name:   "restarts when reopened",
			tree:   nd("MaxTime", "mt", kv{"ms": 20}, sc("child", "R")),
			want:   "RRFRRF",
			counts: map[string]counts{"child": {2, 4, 0, 2}},
		},
		{
			name:   "missing key is ERROR",
			tree:   nd("MaxTime", "mt", kv{"ms": "{limit}"}, sc("child", "R")),
			want:   "E",
			counts: map[string]counts{"child": {}},
		},
	})
}

func TestMaxTimeHaltOrder(t *testing.T) {
	h := newHarness(t, nd("MaxTime", "mt", kv{"ms": 10}, nd("Sequence", "seq", nil, sc("a", "S"), sc("b", "R"))))
	h.run(1)
	h.rec.take()
	if st := h.tick(); st != Failure {
		t.Fatalf("tick 2: %v", st)
	}
	eqLines(t, "expiry", h.rec.take(), []string{
		"mt tick FAILURE", "b halt", "seq halt", "mt close",
	})
}

func TestDelay(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			// Opens at 10ms; at 30ms 20ms have passed and the child runs.
			name:   "runs the child after ms",
			tree:   nd("Delay", "d", kv{"ms": 20}, sc("child", "S")),
			want:   "RRS",
			counts: map[string]counts{"d": {1, 3, 1, 0}, "child": {1, 1, 1, 0}},
		},
		{
			name:   "then passes the child's status through",
			tree:   nd("Delay", "d", kv{"ms": 10}, sc("child", "RRF")),
			want:   "RRRF",
			counts: map[string]counts{"child": {1, 3, 1, 0}},
		},
		{
			name:   "zero",
			tree:   nd("Delay", "d", kv{"ms": 0}, sc("child", "E")),
			want:   "E",
			counts: map[string]counts{"child": {1, 1, 1, 0}},
		},
		{
			name:   "delays every activation",
			tree:   nd("Delay", "d", kv{"delay_msec": 10}, sc("child", "S")),
			want:   "RSRS",
			counts: map[string]counts{"child": {2, 2, 2, 0}},
		},
		{
			name: "key read when it opens",
			tree: nd("Delay", "d", kv{"ms": "{d}"}, sc("child", "S")),
			bb:   kv{"d": 20},
			want: "RRS",
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
