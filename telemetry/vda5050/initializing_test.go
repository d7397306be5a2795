package vda5050

import (
	"encoding/json"
	"strings"
	"testing"
)

// An action with a prepare node goes WAITING, INITIALIZING (its step
// runs the prepare node), RUNNING (its node opened), FINISHED; one
// without goes from WAITING to RUNNING. An action running alongside it
// in the same step has its own mark.
func TestActionInitializing(t *testing.T) {
	h := start(t, Config{Actions: map[string]ActionConfig{
		"lift": {Prepare: map[string]any{"type": "Wait", "name": "lower the forks", "params": map[string]any{"ms": 10}},
			Node: map[string]any{"type": "Wait", "name": "lift", "params": map[string]any{"ms": 10}}},
		"beep": {Node: map[string]any{"type": "Wait", "params": map[string]any{"ms": 10}}},
	}})
	o := order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}}, 2)
	o["nodes"].([]any)[1].(map[string]any)["actions"] = []any{
		map[string]any{"actionId": "beep1", "actionType": "beep", "blockingType": "SOFT"},
		map[string]any{"actionId": "lift1", "actionType": "lift", "blockingType": "SOFT"},
	}
	h.send("order", o)
	h.c.waitState("accepted", func(s State) bool { return s.OrderID == "o" })
	js, _ := json.Marshal(h.r.missions[0])
	if !strings.Contains(string(js), `"name":"lower the forks"`) || !strings.Contains(string(js), `"key":"`+keyOpened(1)+`","value":2`) {
		t.Fatalf("the mission lacks the prepare node and its mark:\n%s", js)
	}
	status := func(want map[string]string) func(State) bool {
		return func(s State) bool {
			for _, a := range s.ActionStates {
				if w, ok := want[a.ActionID]; ok && a.ActionStatus != w {
					return false
				}
			}
			return true
		}
	}
	// Step 2: the SOFT actions together; lift prepares.
	h.r.mu.Lock()
	h.r.bb[keyDone], h.r.bb[keyRunning] = 1, 2
	h.r.mu.Unlock()
	h.c.waitState("lift initializing", status(map[string]string{"beep1": ActionRunning, "lift1": ActionInitializing}))
	h.r.mu.Lock()
	h.r.bb[keyOpened(1)] = 2
	h.r.mu.Unlock()
	h.c.waitState("lift running", status(map[string]string{"beep1": ActionRunning, "lift1": ActionRunning}))
	h.r.progress(2, "SUCCESS")
	h.c.waitState("both finished", status(map[string]string{"beep1": ActionFinished, "lift1": ActionFinished}))
}
