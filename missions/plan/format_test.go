package plan

import (
	"os"
	"strings"
	"testing"

	"github.com/botd-project/botd/missions"
)

// A QGroundControl plan and a Mission Planner file are detected by their
// content wherever a mission is decoded, and become a generated mission.
func TestDecodePlanFormats(t *testing.T) {
	for file, first := range map[string]string{
		"testdata/short.plan":                        "item 0: NAV_TAKEOFF (22)",
		"testdata/mavsdk/mission_planner_sample.txt": "",
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		d, err := missions.Decode(data)
		if file == "testdata/mavsdk/mission_planner_sample.txt" {
			// MAVSDK's sample gives altitudes above sea level (frame 5) and
			// no home line: botd cannot know how high that is above home.
			if err == nil || !strings.Contains(err.Error(), "line 2: item 0: MAV_CMD_NAV_TAKEOFF (22): MAV_FRAME_GLOBAL_INT (5)") {
				t.Errorf("%s: got %v", file, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if d.Main != "main" || d.Trees["main"].Children[2].Name != first || !strings.HasPrefix(d.Name, "plan-") || len(d.Name) != 13 {
			t.Errorf("%s: got %+v", file, d)
		}
		if _, err := d.JSON(); err != nil {
			t.Error(err)
		}
	}
	d, err := missions.DecodeFile("testdata/short.plan", missions.Limits{}, nil)
	if err != nil || d.Name != "short" {
		t.Errorf("DecodeFile: %v, name %q", err, d.Name)
	}
	// botd's own optional id and revision members name the mission.
	data, _ := os.ReadFile("testdata/short.plan")
	withID := strings.Replace(string(data), "{", `{"id": "00000000-0000-4000-8000-00000000f1a9", "revision": 3,`, 1)
	if d, err := missions.Decode([]byte(withID)); err != nil || d.ID != "00000000-0000-4000-8000-00000000f1a9" || d.Revision != 3 {
		t.Errorf("id and revision: %v %+v", err, d)
	}
	if _, err := missions.Decode([]byte(strings.Replace(withID, `"revision": 3`, `"revision": -1`, 1))); err == nil || !strings.Contains(err.Error(), "/revision: -1 is not a revision") {
		t.Errorf("a bad revision: %v", err)
	}
}

// A plan's problems come out of missions.Load like any mission's, and the daemon's
// limits apply: a node limit is the plan's item limit.
func TestLoadPlanLimits(t *testing.T) {
	data, err := os.ReadFile("testdata/flight.plan")
	if err != nil {
		t.Fatal(err)
	}
	_, err = missions.Load(data, missions.Options{Limits: missions.Limits{Nodes: 5}})
	if err == nil || !strings.Contains(err.Error(), "/mission/items: 10 items, above the limit of 5") {
		t.Errorf("got %v", err)
	}
	bad := strings.Replace(string(data), `"command": 183`, `"command": 31000`, 1)
	_, err = missions.Load([]byte(bad), missions.Options{})
	if err == nil || !strings.Contains(err.Error(), "/mission/items/7: item 7: MAV_CMD 31000 is not supported") {
		t.Errorf("got %v", err)
	}
}

// A problem the compilation finds in a plan's tree names the item, with
// its MAV_CMD number, as the import's own problems do.
func TestPlanCompileProblemsNameTheItem(t *testing.T) {
	data, err := os.ReadFile("testdata/mavsdk/qgroundcontrol_sample.plan")
	if err != nil {
		t.Fatal(err)
	}
	_, err = missions.Load(data, missions.Options{}) // the built-ins only: no UAV leaves
	for _, want := range []string{
		`/trees/main/children/2/type: item 0: NAV_TAKEOFF (22): unknown node type "Takeoff"`,
		`/trees/main/children/4/type: item 2: IMAGE_START_CAPTURE (2000): unknown node type "MAVCommand"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
	// The generated mission sent on as botd JSON (botctl does) still names
	// the items; other names are left alone.
	d, err := missions.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := d.JSON()
	if _, err = missions.Load(js, missions.Options{}); err == nil || !strings.Contains(err.Error(), `item 2: IMAGE_START_CAPTURE (2000): unknown node type "MAVCommand"`) {
		t.Errorf("as botd JSON: %v", err)
	}
	_, err = missions.Load([]byte(`{"format": "botd/mission@1", "main": "m", "trees": {"m": {"type": "Takeoff", "name": "item 0: x"}}}`), missions.Options{})
	if err == nil || strings.Contains(err.Error(), "item 0: x:") {
		t.Errorf("got %v", err)
	}
}

// Who flies a plan that does not say is the loader's default
// (missions.Options.Imports, the daemon config's plan.fly); a plan's own
// "fly" wins; a default that is neither botd nor autopilot is refused.
func TestPlanFlyDefault(t *testing.T) {
	data, err := os.ReadFile("testdata/fenced.plan")
	if err != nil {
		t.Fatal(err)
	}
	subs, err := missions.ParseSubstitutions("*=Succeed") // the built-ins only: the UAV leaves stand in
	if err != nil {
		t.Fatal(err)
	}
	first := func(doc string, fly string) (string, error) {
		m, err := missions.Load([]byte(doc), missions.Options{Substitutions: subs, Imports: missions.ImportDefaults{PlanFly: fly}})
		if err != nil {
			return "", err
		}
		return m.Doc.Trees[m.Doc.Main].Children[1].Type, nil
	}
	said := strings.Replace(string(data), "{", `{"fly": "botd",`, 1)
	for _, c := range []struct{ doc, fly, want string }{
		{string(data), "", "Arm"},
		{string(data), FlyBotd, "Arm"},
		{string(data), FlyAutopilot, UploadPlanLeaf},
		{said, FlyAutopilot, "Arm"},
		{flyAutopilot(data), FlyBotd, UploadPlanLeaf},
	} {
		if got, err := first(c.doc, c.fly); err != nil || got != c.want {
			t.Errorf("default %q, plan %.20q: %v %q, want %q", c.fly, c.doc, err, got, c.want)
		}
	}
	if _, err := first(string(data), "pilot"); err == nil || !strings.Contains(err.Error(), `the default of who flies a plan is "pilot"`) {
		t.Errorf("a default of pilot: %v", err)
	}
}

func flyAutopilot(data []byte) string {
	return strings.Replace(string(data), "{", `{"fly": "autopilot",`, 1)
}
