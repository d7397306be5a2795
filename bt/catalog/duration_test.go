package catalog

import (
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

// Durations of 9.2e12 ms or more used to wrap int64 nanoseconds and end at
// once. They are refused when the mission loads and, read from the
// blackboard, make the node ERROR with the reason.

func TestDurationLimitAtLoad(t *testing.T) {
	ok := nd("Succeed", "", nil)
	for _, tc := range []struct {
		name string
		node *bt.NodeDef
	}{
		{"Wait", nd("Wait", "", kv{"ms": 9.3e12})},
		{"Delay", nd("Delay", "", kv{"delay_msec": 1e13}, ok)},
		{"Timeout", nd("Timeout", "", kv{"msec": 1e13}, ok)},
		{"MaxTime", nd("MaxTime", "", kv{"ms": 2.6e9}, ok)},
		{"Cooldown", nd("Cooldown", "", kv{"ms": 1e18}, ok)},
		{"Check", nd("Check", "", kv{"key": "x", "value": 1, "max_age_ms": 1e13})},
		{"TimeExpired", nd("TimeExpired", "", kv{"seconds": 1e10})},
		{"TestNode", nd("TestNode", "", kv{"async_delay": 1e13})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := compileProblems(t, mainSpec(tc.node))
			if len(ps) != 1 || !strings.Contains(ps[0].Message, "longer than the longest duration, 30 days") || !strings.Contains(ps[0].Path, "/params/") {
				t.Errorf("problems %v, want one located at the parameter", ps)
			}
		})
	}
	// Thirty days is allowed.
	compileTree(t, nd("Wait", "", kv{"ms": 2.592e9}))
}

func TestDurationLimitAtRunTime(t *testing.T) {
	ok := nd("Succeed", "", nil)
	for _, tc := range []struct {
		name string
		node *bt.NodeDef
	}{
		{"Wait", nd("Wait", "w", kv{"ms": "{hold}"})},
		{"Delay", nd("Delay", "w", kv{"ms": "{hold}"}, ok)},
		{"Timeout", nd("Timeout", "w", kv{"msec": "{hold}"}, nd("Running", "", nil))},
		{"Cooldown", nd("Cooldown", "w", kv{"ms": "{hold}"}, ok)},
		{"Check", nd("Check", "w", kv{"key": "hold", "op": ">", "value": 0, "max_age_ms": "{hold}"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nd("Repeater", "", nil, nd("Inverter", "", nil, tc.node)), withBB(kv{"hold": 1e13}))
			msg := tickUntilError(t, h, 3)
			wantReason(t, msg, `duration: "hold" holds 1e+13`, "not a duration from 0 to 30 days")
		})
	}
	h := newHarness(t, nd("PathExpiringTimer", "w", kv{"seconds": "{hold}", "path": "{path}"}), withBB(kv{"hold": 1e13, "path": "p"}))
	wantReason(t, tickUntilError(t, h, 3), `duration: "hold" holds 1e+13 s`)
	// A key that is not set is said too.
	h = newHarness(t, nd("Wait", "w", kv{"ms": "{later}"}))
	wantReason(t, tickUntilError(t, h, 1), `"later" is not set or not a number`)
	// Within the limit the hold holds: a day of ticks later it still runs.
	h = newHarness(t, nd("Wait", "w", kv{"ms": "{hold}"}), withBB(kv{"hold": 2.592e9}))
	h.Step = 24 * 3600 * 1000 * ms
	for i := 0; i < 29; i++ {
		if st := h.Tick(); st != bt.Running {
			t.Fatalf("day %d: %v", i+1, st)
		}
	}
}
