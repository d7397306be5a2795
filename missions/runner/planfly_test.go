package runner

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/missions/plan"
	"github.com/botd-project/botd/telemetry/protocol"
)

// A plan that does not say who flies it, sent with mission.load, is flown
// the way the runner's Config.Imports says (the daemon config's
// plan.fly): by the autopilot, an UploadPlan and a RunMission; a plan
// whose own "fly" says botd is botd's, one leaf per item, whatever the
// default.
func TestRunnerPlanFlyDefault(t *testing.T) {
	data, err := os.ReadFile("../plan/testdata/fenced.plan")
	if err != nil {
		t.Fatal(err)
	}
	subs, err := missions.ParseSubstitutions("*=Succeed") // no vehicle here: its leaves stand in
	if err != nil {
		t.Fatal(err)
	}
	tr := startRunner(t, "", func(c *Config) {
		c.Imports = missions.ImportDefaults{PlanFly: plan.FlyAutopilot}
		c.Substitutions = subs
	})
	types := func(doc string) string {
		t.Helper()
		tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: json.RawMessage(doc), Start: true, Replace: true})
		tr.waitFor("the plan's end", func(s protocol.State) bool {
			return s.Mission != nil && s.Mission.Status == protocol.RunSucceeded
		})
		v, ok := tr.TreeView(nil) // the document as loaded, before the stand-ins
		if !ok || v.Doc.Trees[v.Doc.Main] == nil {
			t.Fatal("no tree")
		}
		root := v.Doc.Trees[v.Doc.Main]
		out := []string{root.Type}
		for _, c := range root.Children {
			out = append(out, c.Type)
		}
		return strings.Join(out, " ")
	}
	unsaid := strings.Replace(string(data), "{", `{"id": "00000000-0000-4000-8000-00000000f1b1",`, 1)
	if got, want := types(unsaid), "MemSequence GpsFix UploadPlan Arm RunMission"; got != want {
		t.Errorf("a plan without fly: tree %q, want %q", got, want)
	}
	said := strings.Replace(string(data), "{", `{"id": "00000000-0000-4000-8000-00000000f1b2", "fly": "botd",`, 1)
	if got := types(said); strings.Contains(got, "UploadPlan") || !strings.Contains(got, "Takeoff") {
		t.Errorf(`a plan with "fly": "botd": tree %q, want botd's leaves`, got)
	}
}
