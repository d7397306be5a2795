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
