package runner

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// scriptedFence reports what the test sets and records the actions.
type scriptedFence struct {
	mu      sync.Mutex
	st      FenceStatus
	actions []string
}

func (f *scriptedFence) Check(time.Time) FenceStatus { f.mu.Lock(); defer f.mu.Unlock(); return f.st }
func (f *scriptedFence) Breach(a string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actions = append(f.actions, a)
	return nil
}
func (f *scriptedFence) set(st FenceStatus) { f.mu.Lock(); f.st = st; f.mu.Unlock() }
func (f *scriptedFence) acted() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.actions...)
}

func inside() FenceStatus { return FenceStatus{X: 1, Clearance: 4, Alt: math.NaN(), Action: "land"} }

// A breach halts the running mission, runs the fence's action once, reports geofence.breach
// and GEOFENCE_BREACH; nothing starts or resumes while the robot is outside; back inside,
// the mission waits paused for the operator.
func TestRunnerGeofenceBreach(t *testing.T) {
	g := &scriptedFence{st: inside()}
	tr := startRunner(t, "", func(c *Config) { c.Geofence = g })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	g.set(FenceStatus{Trip: true, Outside: true, X: 5.5, Y: 1, Clearance: -0.5, Speed: 0.3, Alt: math.NaN(), Action: "land"})
	s := tr.waitMode(protocol.ModeFailsafe)
	if s.Failsafe.Reason != "geofence" || len(s.Errors) == 0 || s.Errors[0].Code != CodeGeofenceBreach {
		t.Fatalf("failsafe %+v errors %+v", s.Failsafe, s.Errors)
	}
	tr.waitFor("the breach event", func(protocol.State) bool { return tr.events.count("geofence.breach") == 1 })
	for _, e := range tr.events.snapshot() {
		if e.Kind == "geofence.breach" && (e.Data["outside_m"] != 0.5 || e.Data["action"] != "land" || e.Data["x"] != 5.5 || e.Mission != missionID) {
			t.Errorf("event %+v", e)
		}
	}
	if got := g.acted(); len(got) != 1 || got[0] != "land" {
		t.Fatalf("actions %v", got)
	}
	rep := tr.do(protocol.Command{Op: protocol.OpMissionResume})
	if rep.OK || rep.Error.Code != protocol.ErrNotAllowedInMode {
		t.Fatalf("resume outside the fence: %+v", rep)
	}
	g.set(inside())
	s = tr.waitMode(protocol.ModePaused)
	if s.Mission.Status != protocol.RunPaused {
		t.Fatalf("mission %+v", s.Mission)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionResume})
	tr.waitMode(protocol.ModeRunning)
	if n := tr.events.count("geofence.breach"); n != 1 {
		t.Errorf("%d breach events", n)
	}
	if got := g.acted(); len(got) != 1 {
		t.Errorf("actions %v", got)
	}
	// a lost position is a breach too; abort ends the mission
	g.set(FenceStatus{Trip: true, NoPose: true, Alt: math.NaN(), Action: "abort"})
	s = tr.waitFor("abort", func(s protocol.State) bool { return s.Mission.Status == protocol.RunAborted })
	if len(s.Errors) == 0 || s.Errors[0].Code != CodeGeofenceNoPose {
		t.Fatalf("errors %+v", s.Errors)
	}
	rep = tr.do(protocol.Command{Op: protocol.OpMissionStart, MissionID: missionID})
	if rep.OK || !strings.Contains(rep.Error.Message, "failsafe") && !strings.Contains(rep.Error.Message, "geofence") {
		t.Fatalf("start without a position: %+v", rep)
	}
}

// CheckMission refuses a mission with the problems it finds, located.
func TestRunnerCheckMission(t *testing.T) {
	tr := startRunner(t, "", func(c *Config) {
		c.CheckMission = func(m *missions.Mission) error {
			return bt.Problems{{Path: "/trees/main/children/1/params/ms", Code: protocol.ErrValidation, Message: "too far"}}
		}
	})
	rep := tr.do(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong)})
	if rep.OK || rep.Error.Code != protocol.ErrValidation || rep.Error.Path != "/trees/main/children/1/params/ms" || len(rep.Error.Problems) != 1 {
		t.Fatalf("reply %+v", rep)
	}
	if s := tr.State(); s.Mission != nil {
		t.Fatalf("a refused mission changed the state: %+v", s.Mission)
	}
}

// farLogs is a CheckMission that refuses every Log whose message is "far" (a stand-in for a
// target outside the fence).
func farLogs(m *missions.Mission) error {
	var ps bt.Problems
	var walk func(n *bt.NodeDef, path string)
	walk = func(n *bt.NodeDef, path string) {
		if n.Type == "Log" && n.Params["message"] == "far" {
			ps = append(ps, bt.Problem{Path: path + "/params/message", Code: protocol.ErrValidation, Message: "outside"})
		}
		for i, c := range n.Children {
			walk(c, fmt.Sprintf("%s/children/%d", path, i))
		}
	}
	for name, n := range m.Doc.Trees {
		walk(n, "/trees/"+name)
	}
	if len(ps) > 0 {
		return ps
	}
	return nil
}

// An injected node definition is checked too, located under /tree.
func TestRunnerCheckMissionInject(t *testing.T) {
	tr := startRunner(t, "", func(c *Config) { c.CheckMission = farLogs })
	doc := json.RawMessage(fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"m","main":"main",
		"trees":{"main":{"type":"Repeater","params":{"count":-1},"children":[{"type":"DynamicSubTree","params":{"slot":"job","default":"idle"}}]},
		"idle":{"type":"Wait","params":{"ms":10}}}}`, missionID))
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: doc, Start: true})
	rep := tr.do(protocol.Command{Op: protocol.OpMissionInject, Slot: "job",
		Tree: json.RawMessage(`{"type":"Sequence","children":[{"type":"Log","params":{"message":"near"}},{"type":"Log","params":{"message":"far"}}]}`)})
	if rep.OK || rep.Error.Path != "/tree/children/1/params/message" {
		t.Fatalf("inject: %+v", rep)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionInject, Slot: "job", Tree: json.RawMessage(`{"type":"Log","params":{"message":"near"}}`)})
}

// The fence check adds nothing to a tick's allocations while inside.
func TestRunnerTickWithFenceAllocatesNothing(t *testing.T) {
	hw := &fakeHW{readings: map[string]float64{"battery.percent": 90}}
	g := &scriptedFence{st: inside()}
	r, err := New(Config{Robot: "r", Hardware: hw, Geofence: g, Failsafe: FailsafeConfig{LinkLossTimeout: -1}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	r.mode.Start(r, &r.modeMem, now.UnixNano())
	r.stepMode(now)
	p := &pending{c: protocol.Command{ID: "x", Op: protocol.OpMissionLoad, Start: true}, reply: make(chan protocol.Reply, 1)}
	if p.m, err = missions.Load(mission(0, waitLong), r.loadOptions()); err != nil {
		t.Fatal(err)
	}
	if rep := r.apply(p, now); !rep.OK {
		t.Fatal(rep.Error)
	}
	for i := 0; i < 50; i++ {
		now = now.Add(50 * time.Millisecond)
		r.tick(now)
	}
	if allocs := testing.AllocsPerRun(200, func() { now = now.Add(50 * time.Millisecond); r.tick(now) }); allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
}

// Before the first position (a daemon starting) the fence reports GEOFENCE_NO_POSE and no
// mission starts, without a breach event: nothing moves to stop.
func TestRunnerGeofenceNoPoseAtStart(t *testing.T) {
	g := &scriptedFence{st: FenceStatus{Trip: true, NoPose: true, Alt: math.NaN(), Action: "hold"}}
	tr := startRunner(t, "", func(c *Config) { c.Geofence = g })
	s := tr.waitFor("the no-pose error", func(s protocol.State) bool { return len(s.Errors) > 0 })
	if s.Errors[0].Code != CodeGeofenceNoPose {
		t.Fatalf("errors %+v", s.Errors)
	}
	rep := tr.do(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	if rep.OK || rep.Error.Code != protocol.ErrNotAllowedInMode || !strings.Contains(rep.Error.Message, "no fresh position") {
		t.Fatalf("start without a position: %+v", rep)
	}
	g.set(inside())
	tr.waitFor("the error to clear", func(s protocol.State) bool { return len(s.Errors) == 0 })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionStart, MissionID: missionID})
	tr.waitMode(protocol.ModeRunning)
	if n := tr.events.count("geofence.breach"); n != 0 || len(g.acted()) != 0 {
		t.Fatalf("%d breach events, actions %v", n, g.acted())
	}
}

// A mission stored before the fence was configured, and leaving it, is dropped at start.
func TestRunnerCheckMissionStored(t *testing.T) {
	dir := t.TempDir()
	far := mission(0, `{"type":"Log","params":{"message":"far"}}`)
	tr := startRunner(t, dir, nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: far})
	tr.stop()
	tr = startRunner(t, dir, func(c *Config) { c.CheckMission = farLogs })
	if rep := tr.do(protocol.Command{Op: protocol.OpMissionStart, MissionID: missionID}); rep.OK || rep.Error.Code != protocol.ErrNoMission {
		t.Fatalf("start of a stored mission leaving the fence: %+v", rep)
	}
}
