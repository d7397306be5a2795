package runner

import (
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

// TestResumeSaysWhatHappened: a resume of a running mission is a no-op and
// its reply says so (resumed: false), never "resumed"; a resume of a paused
// one says resumed: true.
func TestResumeSaysWhatHappened(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	rep := tr.mustOK(protocol.Command{Op: protocol.OpMissionResume})
	if rep.Result["resumed"] != false || rep.Result["note"] == nil {
		t.Fatalf("resume while running: %+v, want resumed false with a note", rep.Result)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionPause})
	tr.waitMode(protocol.ModePaused)
	if rep := tr.mustOK(protocol.Command{Op: protocol.OpMissionResume}); rep.Result["resumed"] != true {
		t.Fatalf("resume while paused: %+v, want resumed true", rep.Result)
	}
	tr.waitMode(protocol.ModeRunning)
}

// TestInterruptedMissionIsReported: after a restart with a mission that was
// running, Interrupted names it (the daemon then leaves its configured
// mission alone).
func TestInterruptedMissionIsReported(t *testing.T) {
	dir := t.TempDir()
	tr := startRunner(t, dir, nil)
	if _, ok := tr.Interrupted(); ok {
		t.Fatal("a fresh state directory has an interrupted mission")
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.stop() // as a crash leaves the journal: started, never finished
	tr2 := startRunner(t, dir, nil)
	m, ok := tr2.Interrupted()
	if !ok || m.ID != missionID || m.Status != protocol.RunInterrupted {
		t.Fatalf("Interrupted() = %+v, %v; want the mission that ran", m, ok)
	}
	// missions.list names it, marked, for the operator to pick.
	rep := tr2.mustOK(protocol.Command{Op: protocol.OpMissionsList})
	list, _ := rep.Result["missions"].([]protocol.MissionSummary)
	if len(list) != 1 || list[0].ID != missionID || list[0].Status != protocol.RunInterrupted || list[0].Nodes == 0 {
		t.Fatalf("missions.list: %+v", rep.Result)
	}
}
