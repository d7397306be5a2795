package vda5050

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// initPosition sets the pose where the robot can take one, refuses bad
// parameters and a running order, and says why on a robot that cannot.
func TestInitPosition(t *testing.T) {
	initPos := func(h *harness, id string, params ...map[string]any) ActionState {
		t.Helper()
		ps := []any{}
		for _, p := range params {
			ps = append(ps, p)
		}
		h.send("instantActions", map[string]any{"actions": []any{map[string]any{"actionType": "initPosition", "actionId": id,
			"blockingType": "HARD", "actionParameters": ps}}})
		s := h.c.waitState(id+" answered", func(s State) bool {
			return slices.ContainsFunc(s.ActionStates, func(a ActionState) bool { return a.ActionID == id && a.ActionStatus != ActionWaiting })
		})
		i := slices.IndexFunc(s.ActionStates, func(a ActionState) bool { return a.ActionID == id })
		return s.ActionStates[i]
	}
	kv := func(k string, v any) map[string]any { return map[string]any{"key": k, "value": v} }
	pose := []map[string]any{kv("x", 2.5), kv("y", -1), kv("theta", math.Pi/2), kv("mapId", "default"), kv("lastNodeId", "n0")}

	// A robot whose pose source cannot be set.
	h := start(t, Config{})
	if a := initPos(h, "i0", pose...); a.ActionStatus != ActionFailed || !strings.Contains(a.ResultDescription, "cannot be set") {
		t.Fatalf("initPosition without a settable pose: %+v", a)
	}
	h.stop()

	var calls int
	setCalls := func(h *harness) int { h.mu.Lock(); defer h.mu.Unlock(); return calls }
	h = startWith(t, Config{}, func(h *harness, o *Options) {
		o.SetPose = func(x, y, theta float64) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			calls++
			h.pose = [3]float64{x, y, theta}
			return nil
		}
	})
	for _, c := range []struct {
		id     string
		params []map[string]any
		why    string
	}{
		{"missing", pose[:2], "missing theta"},
		{"not a number", []map[string]any{kv("x", "2"), pose[1], pose[2]}, "x must be a number"},
		{"another map", append(slices.Clone(pose[:3]), kv("mapId", "moon")), "this robot is on map"},
		{"theta", []map[string]any{pose[0], pose[1], kv("theta", 7)}, "outside"},
	} {
		if a := initPos(h, c.id, c.params...); a.ActionStatus != ActionFailed || !strings.Contains(a.ResultDescription, c.why) {
			t.Errorf("%s: %+v", c.id, a)
		}
	}
	if calls := setCalls(h); calls != 0 {
		t.Fatalf("the pose was set %d times by refused initPositions", calls)
	}
	if a := initPos(h, "i1", pose...); a.ActionStatus != ActionFinished {
		t.Fatalf("initPosition: %+v", a)
	}
	s := h.c.waitState("the new pose", func(s State) bool { return s.AgvPosition != nil && s.AgvPosition.X == 2.5 })
	if p := s.AgvPosition; p.Y != -1 || math.Abs(p.Theta-math.Pi/2) > 1e-9 || !p.PositionInitialized {
		t.Fatalf("agvPosition after initPosition: %+v", p)
	}
	// Not while an order runs.
	h.send("order", order("o", 0, 0, [][2]float64{{2.5, -1}, {3, -1}}, 2))
	h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
	if a := initPos(h, "i2", pose...); a.ActionStatus != ActionFailed || !strings.Contains(a.ResultDescription, "order runs") || setCalls(h) != 1 {
		t.Fatalf("initPosition during an order: %+v (%d calls)", a, setCalls(h))
	}
}
