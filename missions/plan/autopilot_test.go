package plan

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

// flownByAutopilot is fenced.plan with botd's "fly" member set.
func flownByAutopilot(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/fenced.plan")
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.Replace(string(data), "{", `{"fly": "autopilot",`, 1))
}

// A plan with "fly": "autopilot" becomes an upload of its mission, fence
// and rally items and a RunMission, the items as MISSION_ITEM_INT carries
// them: fence polygons one item a corner (param1 the corner count), a
// circle one item (param1 its radius), in MAV_FRAME_GLOBAL; rally points
// in MAV_FRAME_GLOBAL_RELATIVE_ALT.
func TestAutopilotTree(t *testing.T) {
	p, ps := Parse(flownByAutopilot(t), Limits{})
	if ps != nil || p.Fly != FlyAutopilot {
		t.Fatalf("%v fly %q", ps, p.Fly)
	}
	root, ps := p.Generate(Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	var b strings.Builder
	for _, c := range root.Children {
		b.WriteString(c.Type + " " + c.Name + "\n")
	}
	want := "GpsFix preflight: GPS fix\nUploadPlan upload: 4 mission, 5 fence, 1 rally items\nArm preflight: arm\nRunMission the autopilot flies the plan\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	up := root.Children[1].Params
	type row struct {
		cmd, frame float64
		p1         any
		x, y       float64
		z          any
	}
	rows := func(v any) []row {
		var out []row
		for _, it := range v.([]any) {
			m := it.(map[string]any)
			out = append(out, row{m["command"].(float64), m["frame"].(float64), m["params"].([]any)[0], m["x"].(float64), m["y"].(float64), m["z"]})
		}
		return out
	}
	wantMission := []row{
		{22, 3, 0.0, 473977420, 85455940, 10.0},
		{16, 3, 0.0, 473985000, 85460000, 10.0},
		{16, 3, 0.0, 473980000, 85440000, 10.0},
		{20, 2, 0.0, 0, 0, 0.0},
	}
	wantFence := []row{
		{5001, 0, 4.0, 473957420, 85435940, 0.0},
		{5001, 0, 4.0, 473957420, 85475940, 0.0},
		{5001, 0, 4.0, 473997420, 85475940, 0.0},
		{5001, 0, 4.0, 473997420, 85435940, 0.0},
		{5004, 0, 30.0, 473990000, 85470000, 0.0},
	}
	wantRally := []row{{5100, 3, 0.0, 473972000, 85470000, 15.0}}
	for name, w := range map[string][]row{"mission": wantMission, "fence": wantFence, "rally": wantRally} {
		if got := rows(up[name]); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: got %v, want %v", name, got, w)
		}
	}
	// The plan is checked as botd's own flight checks it.
	bad := strings.Replace(string(flownByAutopilot(t)), `"command": 16`, `"command": 31000`, 1)
	p, ps = Parse([]byte(bad), Limits{})
	if ps == nil {
		_, ps = p.Generate(Limits{})
	}
	if ps == nil || !strings.Contains(ps.Error(), "item 1: MAV_CMD 31000 is not supported") {
		t.Errorf("an unknown command: %v", ps)
	}
	if _, ps := Parse([]byte(strings.Replace(bad, `"fly": "autopilot"`, `"fly": "pilot"`, 1)), Limits{}); ps == nil || !strings.Contains(ps.Error(), `/fly: "pilot"`) {
		t.Errorf("fly pilot: %v", ps)
	}
}

// The autopilot's tree exports back to the plan it came from, "fly"
// included.
func TestAutopilotRoundTrip(t *testing.T) {
	p, ps := Parse(flownByAutopilot(t), Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	root, ps := p.Generate(Limits{})
	if ps != nil {
		t.Fatal(ps)
	}
	out, err := Export(map[string]*bt.NodeDef{"main": root}, "main", p.Blackboard(), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, ps := Parse(out, Limits{})
	if ps != nil {
		t.Fatalf("%v\n%s", ps, out)
	}
	if again.Fly != FlyAutopilot || !reflect.DeepEqual(again.Fence, p.Fence) || !reflect.DeepEqual(again.Rally, p.Rally) || len(again.Items) != len(p.Items) {
		t.Fatalf("got %+v\nwant %+v", again, p)
	}
	for i, it := range p.Items {
		g := again.Items[i]
		ok := g.Command == it.Command && g.Frame == it.Frame && g.X() == it.X() && g.Y() == it.Y()
		for k := range it.Params {
			ok = ok && (k == 4 || k == 5 || same(g.Params[k], it.Params[k]))
		}
		if !ok {
			t.Errorf("item %d: got %+v, want %+v", i, g, it)
		}
	}
}
