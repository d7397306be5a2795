package runner

import (
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// The tree topic carries a node's goal when its params are literal
// coordinates, and none when they name blackboard keys.
func TestNodeGoal(t *testing.T) {
	doc := &missions.Document{Trees: map[string]*bt.NodeDef{
		"main": {Type: "Sequence", Children: []*bt.NodeDef{
			{Type: "MoveTo", Params: map[string]any{"x": 3.0, "y": -2.5}},
			{Type: "MoveTo", Params: map[string]any{"x": "{wp_x}", "y": 1.0}},
			{Type: "Sequence", Children: []*bt.NodeDef{{Type: "GoTo", Params: map[string]any{"lat": 52.5, "lon": 13.4, "x": 1.0, "y": 1.0}}}},
			{Type: "GoTo", Params: map[string]any{"lat": 95.0, "lon": 13.4}},
		}},
		"a/b": {Type: "MoveTo", Params: map[string]any{"x": 1, "y": 2}},
	}}
	for _, tc := range []struct {
		path string
		want *protocol.Goal
	}{
		{"/trees/main", nil},
		{"/trees/main/children/0", &protocol.Goal{Frame: "local", X: 3, Y: -2.5}},
		{"/trees/main/children/1", nil},
		{"/trees/main/children/2/children/0", &protocol.Goal{Frame: "global", X: 13.4, Y: 52.5}},
		{"/trees/main/children/3", nil},
		{"/trees/main/children/9", nil},
		{"/trees/main/params/x", nil},
		{"/trees/a~1b", &protocol.Goal{Frame: "local", X: 1, Y: 2}},
		{"/elsewhere", nil},
	} {
		got := nodeGoal(doc, tc.path)
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%s: goal %+v, want %+v", tc.path, got, tc.want)
		}
	}
}
