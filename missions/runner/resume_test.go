package runner

import (
	"fmt"
	"testing"

	"github.com/botd-project/botd/internal/testutil"
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

// A failsafe that trips and clears while the mission is paused enters no
// mode, so it is no event either way; one that enters FAILSAFE gives one
// failsafe.entered and one failsafe.cleared (it was a failsafe.cleared per
// flap, each without its entered: a loaded machine's tick overruns made a
// log of them).
func TestFailsafeEventsPair(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionPause})
	tr.waitMode(protocol.ModePaused)
	for range 3 {
		tr.hw.set("battery.percent", 5)
		tr.waitFor("the battery failsafe", func(s protocol.State) bool { return s.Failsafe.Active })
		tr.hw.set("battery.percent", 90)
		tr.waitFor("the battery failsafe cleared", func(s protocol.State) bool { return !s.Failsafe.Active })
	}
	if n, m := tr.events.count("failsafe.entered"), tr.events.count("failsafe.cleared"); n != 0 || m != 0 {
		t.Fatalf("while paused: %d failsafe.entered, %d failsafe.cleared, want none (%v)", n, m, tr.events.kinds())
	}
	if rep := tr.mustOK(protocol.Command{Op: protocol.OpMissionResume}); rep.Result["resumed"] != true {
		t.Fatalf("resume: %+v", rep.Result)
	}
	tr.waitMode(protocol.ModeRunning)
	tr.hw.set("battery.percent", 5)
	tr.waitMode(protocol.ModeFailsafe)
	tr.hw.set("battery.percent", 90)
	tr.waitFor("the battery failsafe cleared", func(s protocol.State) bool { return !s.Failsafe.Active })
	testutil.Eventually(t, waitEvent, "failsafe.cleared", func() bool { return tr.events.count("failsafe.cleared") == 1 }, func() string { return fmt.Sprint(tr.events.kinds()) })
	if n := tr.events.count("failsafe.entered"); n != 1 {
		t.Fatalf("%d failsafe.entered, want 1 (%v)", n, tr.events.kinds())
	}
}
