package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/telemetry/protocol"
)

// staleLeaf is a leaf that fails the way a motion leaf does with a stale
// sensor: it says why, then returns ERROR.
type staleLeaf struct{}

func (staleLeaf) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	a.Emit(n.Index, "error", "MoveTo: pose.x is stale (1600 ms old)")
	return bt.Error
}

func failingRegistry() *bt.Registry {
	reg := catalog.NewRegistry()
	reg.Register(bt.NodeType{Name: "StaleMove", Kind: bt.Leaf, New: func(*bt.Builder) bt.Behavior { return staleLeaf{} }})
	return reg
}

// A node's error reaches the state (last_failure and, while the failed
// mission is current, errors), the node's status reason and the
// mission's end event, naming the node and its message.
func TestRunnerFailureReasons(t *testing.T) {
	tr := startRunner(t, "", func(c *Config) { c.Registry = failingRegistry() })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Start: true, Mission: mission(0,
		`{"type":"Sequence","name":"patrol","children":[{"type":"Log","params":{"message":"go"}},{"type":"StaleMove","name":"to the waypoint"}]}`)})
	s := tr.waitFor("the mission to end with ERROR", func(s protocol.State) bool { return s.Mission != nil && s.Mission.Status == protocol.RunErrored })
	s = tr.waitFor("the failure in state.errors", func(s protocol.State) bool { return len(s.Errors) > 0 })

	f := s.LastFailure
	if f == nil {
		t.Fatalf("no last_failure in %+v", s)
	}
	if f.Status != protocol.RunErrored || f.Code != protocol.FailNodeError || f.Node == nil || *f.Node != 2 ||
		f.Path != "/trees/main/children/1" || f.NodeName != "to the waypoint (StaleMove)" ||
		!strings.Contains(f.Message, "pose.x is stale") || f.Time.IsZero() || f.Mission != missionID || f.MissionName != "m" {
		t.Errorf("last_failure %+v", *f)
	}
	e := s.Errors[0]
	if e.Code != "MISSION_ERROR" || e.Level != "ERROR" || !strings.Contains(e.Message, "pose.x is stale") ||
		!strings.Contains(e.Ref, "to the waypoint") || e.Node == nil || *e.Node != 2 {
		t.Errorf("state.errors %+v", s.Errors)
	}

	u, _ := tr.Status(true)
	if len(u.Reasons) != 1 || u.Reasons[0].Node != 2 || !strings.Contains(u.Reasons[0].Message, "pose.x is stale") || u.Keyframe[2] != 'E' {
		t.Errorf("keyframe %q reasons %+v", u.Keyframe, u.Reasons)
	}

	var end *protocol.Event
	for _, ev := range tr.events.snapshot() {
		if ev.Kind == "mission.finished" {
			end = &ev
		}
	}
	if end == nil {
		t.Fatalf("no mission.finished event: %v", tr.events.kinds())
	}
	if !strings.Contains(end.Message, "to the waypoint (StaleMove): MoveTo: pose.x is stale") || end.Node == nil || *end.Node != 2 ||
		end.Data["reason"] != "MoveTo: pose.x is stale (1600 ms old)" || end.Data["path"] != "/trees/main/children/1" || end.Data["code"] != protocol.FailNodeError {
		t.Errorf("end event %+v", *end)
	}

	// The next mission clears the errors, not last_failure.
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Start: true, Mission: mission(1, waitLong)})
	s = tr.waitFor("the next mission without errors", func(s protocol.State) bool {
		return s.Mission != nil && s.Mission.Status == protocol.RunRunning && len(s.Errors) == 0
	})
	if s.LastFailure == nil || s.LastFailure.Status != protocol.RunErrored {
		t.Errorf("last_failure after a new start: %+v", s.LastFailure)
	}
}

// A mission that ends with FAILURE names the node that decided it, and
// an abort says who aborted.
func TestRunnerFailureAndAbortReasons(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Start: true, Mission: mission(0,
		`{"type":"Sequence","children":[{"type":"Succeed"},{"type":"Fail","name":"gate closed"}]}`)})
	s := tr.waitFor("FAILURE", func(s protocol.State) bool {
		return s.Mission != nil && s.Mission.Status == protocol.RunFailed && s.LastFailure != nil
	})
	if f := s.LastFailure; f.Code != protocol.FailNodeFailure || f.Node == nil || *f.Node != 2 || f.Message != "gate closed (Fail) returned FAILURE" {
		t.Errorf("last_failure %+v", *f)
	}

	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Start: true, Mission: mission(1, waitLong)})
	tr.waitMode(protocol.ModeRunning)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionAbort})
	s = tr.waitFor("ABORTED", func(s protocol.State) bool { return s.Mission != nil && s.Mission.Status == protocol.RunAborted })
	if f := s.LastFailure; f == nil || f.Code != protocol.FailAborted || !strings.Contains(f.Message, "operator") || f.Node != nil {
		t.Errorf("last_failure after abort %+v", f)
	}
	if len(s.Errors) != 0 {
		t.Errorf("an abort is not an error: %+v", s.Errors)
	}
}

// A problem that appears in state.errors, or goes away, is news for the state
// topic at once (the state is signalled); a message that only changes its
// figures is not.
func TestStateErrorsChangeSignalsTheState(t *testing.T) {
	hw := &fakeHW{readings: map[string]float64{}}
	cfg := Config{Robot: "r1", TickHz: 20, Hardware: hw, StateDir: t.TempDir()}
	cfg.Failsafe.LinkLossTimeout = -1
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	signalled := func() bool {
		select {
		case <-r.Changed():
			return true
		default:
			return false
		}
	}
	step := func(what string, faults []Fault, want bool) {
		t.Helper()
		hw.mu.Lock()
		hw.faults = faults
		hw.mu.Unlock()
		signalled() // whatever came before
		r.supervise(time.Now())
		if got := signalled(); got != want {
			t.Errorf("%s: signalled %v, want %v", what, got, want)
		}
	}
	stale := func(msg string) []Fault {
		return []Fault{{Device: "imu", Key: "imu.yaw", Code: "SENSOR_STALE", Message: msg, Since: time.Unix(1, 0)}}
	}
	step("no problems", nil, false)
	step("a stale sensor", stale("imu.yaw is 600 ms old"), true)
	step("the same", stale("imu.yaw is 600 ms old"), false)
	step("only its age moved", stale("imu.yaw is 650 ms old"), false)
	step("gone", nil, true)
}
