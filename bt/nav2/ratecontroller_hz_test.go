package nav2

import "testing"

// Nav2 takes any rate: opennav_coverage's trees use hz 0.0000001 to plan
// once, and hz 0 makes Nav2's period infinite. The child runs when the
// RateController starts afresh, then only while it runs.
func TestRateControllerTinyRate(t *testing.T) {
	for _, hz := range []float64{0.0000001, 0, 1e-300} {
		h := newHarness(t, inPipeline(nd("RateController", "rate", kv{"hz": hz}, sc("child", "RS"))))
		h.Step = 1000 * ms
		h.Run(6)
		if got := statusesOf(h, "rate", 6); got != "RSRRRR" {
			t.Errorf("hz %v: RateController statuses %s, want RSRRRR", hz, got)
		}
		if c := h.Counts("child"); c.Tick != 2 {
			t.Errorf("hz %v: child ticked %d times, want 2", hz, c.Tick)
		}
	}
	ps := compileProblems(t, mainSpec(nd("RateController", "", kv{"hz": -1}, nd("Succeed", "", nil))))
	wantProblems(t, ps, "/trees/main/params/hz", "-1 is below the limit 0")
}
