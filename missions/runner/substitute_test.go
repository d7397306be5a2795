package runner

import (
	"testing"

	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// A runner configured with substitutions (a simulated robot's config)
// applies them to every mission it loads: a node type it does not have
// runs as its stand-in; without them the mission is refused.
func TestRunnerSubstitutions(t *testing.T) {
	doc := mission(0, `{"type":"MemSequence","children":[{"type":"ComputePathToPose"},{"type":"Log","params":{"message":"planned"}}]}`)
	plain := startRunner(t, "", nil)
	if rep := plain.do(protocol.Command{Op: protocol.OpMissionLoad, Mission: doc}); rep.OK {
		t.Fatal("a mission with an unknown node loaded without substitutions")
	}
	subs, err := missions.ParseSubstitutions("ComputePathToPose=Running:2,Success")
	if err != nil {
		t.Fatal(err)
	}
	tr := startRunner(t, "", func(c *Config) { c.Substitutions = subs })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: doc, Start: true})
	tr.waitFor("mission success", func(s protocol.State) bool { return s.Mission != nil && s.Mission.Status == protocol.RunSucceeded })
}
