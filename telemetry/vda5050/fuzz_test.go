package vda5050

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// FuzzIntake feeds arbitrary bytes to the order and instantActions
// intake: nothing panics, a state is always built and encodes, and every
// order botd accepts compiles to a mission document.
func FuzzIntake(f *testing.F) {
	for _, o := range []map[string]any{
		order("o", 0, 0, [][2]float64{{0, 0}, {1, 0}, {1, 1}}, 2),
		order("o", 1, 2, [][2]float64{{1, 0}, {1, 1}}, 2),
	} {
		o["headerId"], o["version"], o["manufacturer"], o["serialNumber"] = 1, "2.0.0", "botd", "rover-1"
		b, _ := json.Marshal(o)
		f.Add(true, b)
	}
	f.Add(false, []byte(`{"headerId":1,"version":"2.0.0","manufacturer":"botd","serialNumber":"rover-1","instantActions":[{"actionName":"cancelOrder","actionId":"c"}],"actions":[{"actionType":"startPause","actionId":"p"}]}`))
	f.Add(true, []byte(`{"version":"2.0.0","manufacturer":"botd","serialNumber":"rover-1","orderId":"x","orderUpdateId":0,"nodes":[{"nodeId":"a","sequenceId":9223372036854775807,"released":true}],"edges":[]}`))
	f.Fuzz(func(t *testing.T, isOrder bool, payload []byte) {
		cfg := Config{SerialNumber: "rover-1", Actions: map[string]ActionConfig{"beep": {Node: map[string]any{"type": "Succeed"}}}}
		cfg.SetDefaults()
		r := newFakeRunner()
		a, err := New(Options{Config: cfg, Runner: r, Reading: func(string) (float64, time.Time, bool) { return 0, time.Now(), true }})
		if err != nil {
			t.Fatal(err)
		}
		topic := a.topics.instantActions
		if isOrder {
			topic = a.topics.order
		}
		a.handle(context.Background(), inbound{topic: topic, payload: payload})
		a.observe()
		if _, err := json.Marshal(a.buildState()); err != nil {
			t.Fatal(err)
		}
		for _, m := range r.missions {
			if m["format"] != "botd/mission@1" {
				t.Fatalf("mission %v", m)
			}
		}
	})
}
