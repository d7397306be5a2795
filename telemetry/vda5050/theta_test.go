package vda5050

import (
	"math"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/telemetry/protocol"
)

// nodesOfType finds the nodes of a type in a generated mission.
func nodesOfType(v any, typ string) []map[string]any {
	var out []map[string]any
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == typ {
			out = append(out, v)
		}
		for _, c := range v {
			out = append(out, nodesOfType(c, typ)...)
		}
	case []any:
		for _, c := range v {
			out = append(out, nodesOfType(c, typ)...)
		}
	}
	return out
}

// A node's theta is driven to: after the drive to the node, a Turn by the
// difference between theta and the heading the robot has there (the
// shorter way round), within allowedDeviationTheta.
func TestNodeThetaTurn(t *testing.T) {
	h := start(t, Config{})
	o := order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}, {1, 1}}, 3)
	n1 := o["nodes"].([]any)[1].(map[string]any)["nodePosition"].(map[string]any)
	n1["theta"], n1["allowedDeviationTheta"] = math.Pi/2, 0.05
	h.send("order", o)
	s := h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" || len(s.Errors) > 0 })
	if len(s.Errors) != 0 || s.NodeStates[0].NodePosition.Theta != math.Pi/2 {
		t.Fatalf("state: %+v", s)
	}
	m := h.r.missions[0]
	turns, scripts := nodesOfType(m, "Turn"), nodesOfType(m, "Script")
	if len(turns) != 1 || len(scripts) != 1 {
		t.Fatalf("want one Turn (node n1 has a theta, n2 none), have %d turns, %d scripts:\n%v", len(turns), len(scripts), m)
	}
	p := turns[0]["params"].(map[string]any)
	if p["angle_deg"] != "{"+keyTurn+"}" || math.Abs(p["tolerance_deg"].(float64)-0.05*180/math.Pi) > 1e-9 {
		t.Fatalf("Turn params %v", p)
	}
	// The Script computes the turn on botd's own engine.
	code := scripts[0]["params"].(map[string]any)["code"].(string)
	for _, c := range []struct{ heading, want float64 }{
		{0, 90}, {math.Pi / 2, 0}, {math.Pi, -90}, {-math.Pi, -90}, {-math.Pi / 2, -180}, {3 * math.Pi, -90}, {-0.1, 90 + 0.1*180/math.Pi},
	} {
		tree, err := bt.NewRegistry().Compile(&bt.Spec{Trees: map[string]*bt.NodeDef{"main": {Type: "Script", Params: map[string]any{"code": code}}},
			Main: "main", Blackboard: map[string]any{"pose.heading": c.heading}})
		if err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		a := bt.NewAgent(tree, 0, 0)
		if st := a.Tick(1); st != bt.Success {
			t.Fatalf("%s: %v", code, st)
		}
		slot, _ := tree.Slot(keyTurn)
		got, _ := a.BB.Get(slot).Number()
		if math.Abs(got-c.want) > 1e-6 {
			t.Errorf("heading %v: turn %v°, want %v°", c.heading, got, c.want)
		}
	}
	// A theta outside [-pi, pi] is refused.
	h.r.progress(2, protocol.RunSucceeded)
	h.c.waitState("done", func(s State) bool { return len(s.NodeStates) == 0 })
	h.mu.Lock()
	h.pose = [3]float64{1, 1, 0}
	h.mu.Unlock()
	bad := order("o2", 0, 0, [][2]float64{{1, 1}, {0, 0}}, 2)
	bad["nodes"].([]any)[1].(map[string]any)["nodePosition"].(map[string]any)["theta"] = 4.0
	h.send("order", bad)
	h.c.waitState("theta refused", hasError(ErrValidation))
}
