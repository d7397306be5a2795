package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

// waitEvent bounds every wait for something the runner will do: generous,
// since a loaded CI machine can be slow, and never an assertion of speed.
const waitEvent = 20 * time.Second

// fakeHW records what the runner asks of the robot.
type fakeHW struct {
	mu       sync.Mutex
	safe     int
	applied  int
	estop    bool
	estops   int
	readings map[string]float64
	faults   []Fault
}

func (h *fakeHW) Bind(*bt.Tree) Binding { return nopBinding{} }
func (h *fakeHW) Apply() error          { h.mu.Lock(); h.applied++; h.mu.Unlock(); return nil }
func (h *fakeHW) Safe() error           { h.mu.Lock(); h.safe++; h.mu.Unlock(); return nil }
func (h *fakeHW) EStop(string)          { h.mu.Lock(); h.estop = true; h.estops++; h.mu.Unlock() }
func (h *fakeHW) ReleaseEStop()         { h.mu.Lock(); h.estop = false; h.mu.Unlock() }
func (h *fakeHW) Env() any              { return h }
func (h *fakeHW) Faults() []Fault {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Fault(nil), h.faults...)
}
func (h *fakeHW) Reading(k string) (float64, time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.readings[k]
	return v, time.Now(), ok
}
func (h *fakeHW) set(k string, v float64) { h.mu.Lock(); h.readings[k] = v; h.mu.Unlock() }

type nopBinding struct{}

func (nopBinding) Snapshot(*bt.Blackboard) {}

// eventLog collects events.
type eventLog struct {
	mu sync.Mutex
	ev []protocol.Event
}

func (l *eventLog) sink(e protocol.Event) { l.mu.Lock(); l.ev = append(l.ev, e); l.mu.Unlock() }

func (l *eventLog) snapshot() []protocol.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]protocol.Event(nil), l.ev...)
}

func (l *eventLog) kinds() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.ev {
		out = append(out, e.Kind)
	}
	return out
}

func (l *eventLog) count(kind string) int {
	n := 0
	for _, k := range l.kinds() {
		if k == kind {
			n++
		}
	}
	return n
}

type testRunner struct {
	*Runner
	t      *testing.T
	hw     *fakeHW
	events *eventLog
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

func startRunner(t *testing.T, dir string, mod func(*Config)) *testRunner {
	t.Helper()
	hw := &fakeHW{readings: map[string]float64{"battery.percent": 90, "battery.voltage": 12.4}}
	ev := &eventLog{}
	cfg := Config{Robot: "r1", TickHz: 200, Hardware: hw, StateDir: dir, Events: ev.sink, Writable: []string{"speed"}}
	cfg.Failsafe.LinkLossTimeout = -1
	// A loaded test machine is no robot: missed deadlines trip the
	// failsafe only in the tests that set MaxOverruns for it.
	cfg.Failsafe.MaxOverruns = -1
	if mod != nil {
		mod(&cfg)
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tr := &testRunner{Runner: r, t: t, hw: hw, events: ev, cancel: cancel, done: make(chan error, 1)}
	r.SetLink(protocol.LinkState{Broker: true, GCSOnline: true})
	go func() { tr.done <- r.Run(ctx) }()
	t.Cleanup(tr.stop)
	tr.waitMode(protocol.ModeIdle)
	return tr
}

func (tr *testRunner) stop() {
	tr.once.Do(func() {
		tr.cancel()
		select {
		case <-tr.done:
		case <-time.After(waitEvent):
			tr.t.Error("runner did not stop")
		}
	})
}

func (tr *testRunner) waitFor(what string, cond func(protocol.State) bool) protocol.State {
	tr.t.Helper()
	var s protocol.State
	testutil.Eventually(tr.t, waitEvent, what, func() bool { s = tr.State(); return cond(s) }, func() string {
		return fmt.Sprintf("state %+v mission %+v events %v", s, s.Mission, tr.events.kinds())
	})
	return s
}

func (tr *testRunner) waitMode(mode string) protocol.State {
	tr.t.Helper()
	return tr.waitFor("mode "+mode, func(s protocol.State) bool { return s.Mode == mode })
}

func (tr *testRunner) do(c protocol.Command) protocol.Reply {
	tr.t.Helper()
	if c.ID == "" {
		c.ID = fmt.Sprintf("cmd-%d", time.Now().UnixNano())
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitEvent)
	defer cancel()
	return tr.Do(ctx, c)
}

func (tr *testRunner) mustOK(c protocol.Command) protocol.Reply {
	tr.t.Helper()
	rep := tr.do(c)
	if !rep.OK {
		tr.t.Fatalf("%s: %+v", c.Op, rep.Error)
	}
	return rep
}

const missionID = "2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10"

// mission returns a mission document whose main tree is root.
func mission(rev int, root string, extra ...string) json.RawMessage {
	more := ""
	for _, e := range extra {
		more += "," + e
	}
	return json.RawMessage(fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"m","revision":%d,"main":"main","trees":{"main":%s}%s}`,
		missionID, rev, root, more))
}

const waitLong = `{"type":"MemSequence","children":[{"type":"Log","params":{"message":"go"}},{"type":"Wait","params":{"ms":60000}}]}`
const quick = `{"type":"MemSequence","children":[{"type":"Log","params":{"message":"hi"}},{"type":"Wait","params":{"ms":20}}]}`

func TestRunnerRunsAMissionToTheEnd(t *testing.T) {
	tr := startRunner(t, "", nil)
	rep := tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, quick), Start: true})
	if rep.Result["started"] != true {
		t.Fatalf("reply %+v", rep)
	}
	s := tr.waitFor("mission success", func(s protocol.State) bool { return s.Mission != nil && s.Mission.Status == protocol.RunSucceeded })
	if s.Mode != protocol.ModeIdle || s.RequestedMode != protocol.ModeIdle {
		t.Fatalf("after the mission: mode %s requested %s", s.Mode, s.RequestedMode)
	}
	got := strings.Join(tr.events.kinds(), " ")
	if want := "daemon.started mission.accepted mission.started log mission.finished"; got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	ti, ok := tr.Tree()
	if !ok || len(ti.Nodes) != 3 || ti.Nodes[0].Type != "MemSequence" || ti.Mission != missionID {
		t.Fatalf("tree %+v", ti)
	}
	u, _ := tr.Status(true)
	if u.Keyframe != "SSS" {
		t.Fatalf("keyframe %q, want SSS", u.Keyframe)
	}
	if tr.hw.safe < 2 {
		t.Fatalf("safe state applied %d times, want at start and at the end", tr.hw.safe)
	}
}

func TestRunnerStatusChanges(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitFor("ticks", func(s protocol.State) bool { return s.Tick.Count > 5 })
	u, ok := tr.Status(true)
	if !ok || u.Keyframe != "RSR" {
		t.Fatalf("keyframe %+v", u)
	}
	u, _ = tr.Status(false)
	if len(u.Changes) != 0 {
		t.Fatalf("changes after a keyframe with nothing new: %+v", u.Changes)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionPause})
	tr.waitMode(protocol.ModePaused)
	deadline := time.Now().Add(waitEvent)
	var all []protocol.StatusChange
	for time.Now().Before(deadline) && len(all) < 2 {
		u, _ = tr.Status(false)
		all = append(all, u.Changes...)
		time.Sleep(5 * time.Millisecond)
	}
	if fmt.Sprint(all) != fmt.Sprint([]protocol.StatusChange{{Node: 0, Status: 'I'}, {Node: 2, Status: 'I'}}) {
		t.Fatalf("changes after pause %v, want nodes 0 and 2 idle", all)
	}
}

func TestRunnerRevisions(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(2, quick)})
	cases := []struct {
		doc  json.RawMessage
		code string
	}{
		{mission(1, quick), protocol.ErrOutdatedRevision},
		{mission(2, waitLong), protocol.ErrSameRevisionDiff},
	}
	for _, c := range cases {
		rep := tr.do(protocol.Command{Op: protocol.OpMissionLoad, Mission: c.doc})
		if rep.OK || rep.Error.Code != c.code {
			t.Errorf("want %s, got %+v", c.code, rep)
		}
	}
	rep := tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(2, quick)})
	if rep.Result["unchanged"] != true {
		t.Fatalf("identical revision: %+v", rep)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(3, waitLong)})
	if n := tr.events.count("mission.accepted"); n != 2 {
		t.Fatalf("%d accepted events, want 2", n)
	}
}

// panicBindHW panics in Bind, which the tick goroutine calls when a
// mission starts (applyLoad with start).
type panicBindHW struct{ *fakeHW }

func (panicBindHW) Bind(*bt.Tree) Binding { panic("broken binding") }

// A command whose apply panics on the tick goroutine gets its one reply,
// INTERNAL with the panic, at once (not a caller's timeout); safeTick
// makes the robot safe and the runner goes on. The runner remembers no
// ids (telemetry's reply cache does), so the caller may send it again.
func TestRunnerPanicInApplyIsAnswered(t *testing.T) {
	var hw panicBindHW
	tr := startRunner(t, "", func(c *Config) { hw = panicBindHW{c.Hardware.(*fakeHW)}; c.Hardware = hw })
	c := protocol.Command{ID: "p1", Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true}
	for range 2 {
		rep := tr.do(c)
		if rep.OK || rep.Error.Code != protocol.ErrInternal || !strings.Contains(rep.Error.Message, "broken binding") || rep.ID != "p1" {
			t.Fatalf("reply %+v %+v", rep, rep.Error)
		}
	}
	if n := tr.events.count("mission.started"); n != 0 {
		t.Fatalf("started %d times", n)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionsList}) // the tick goroutine still answers
}

func TestRunnerBadInputChangesNothing(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	// The reply comes from the tick's command drain; the state it changed
	// is published at the end of that tick, which the commands below (some
	// answered without a tick, the rest drained in the same one) can beat.
	tr.waitMode(protocol.ModeRunning)
	bad := []struct {
		c    protocol.Command
		code string
		path string
	}{
		{protocol.Command{Op: protocol.OpMissionLoad, Mission: json.RawMessage(`{"format":"botd/mission@1","main":"main","trees":{"main":{"type":"Wiat"}}}`), Start: true, Replace: true}, protocol.ErrUnknownNodeType, "/trees/main/type"},
		{protocol.Command{Op: protocol.OpMissionLoad, Mission: json.RawMessage(`"{not json"`)}, protocol.ErrInvalidJSON, ""},
		{protocol.Command{Op: protocol.OpMissionLoad}, protocol.ErrValidation, "/mission"},
		{protocol.Command{Op: "mission.explode"}, protocol.ErrUnknownOp, "/op"},
		{protocol.Command{Op: protocol.OpMissionStart, MissionID: "nope"}, protocol.ErrNoMission, "/mission_id"},
		{protocol.Command{Op: protocol.OpMissionLoad, Mission: json.RawMessage(`{"format":"botd/mission@1","id":"0b7c5a8e-4d1f-4a5e-9a43-5d1e0f7c2b11","main":"main","trees":{"main":{"type":"Succeed"}}}`), Start: true}, protocol.ErrOtherMission, ""},
		{protocol.Command{Op: protocol.OpBlackboardSet, Key: "motor.enable", Value: 1.0}, protocol.ErrValidation, "/key"},
		{protocol.Command{Op: protocol.OpMissionResume}, "", ""}, // resume while running: accepted, no change
	}
	for _, b := range bad {
		rep := tr.do(b.c)
		if b.code == "" {
			if !rep.OK {
				t.Errorf("%s: %+v", b.c.Op, rep.Error)
			}
			continue
		}
		if rep.OK || rep.Error.Code != b.code || (b.path != "" && rep.Error.Path != b.path) {
			t.Errorf("%s: got %+v, want %s at %q", b.c.Op, rep.Error, b.code, b.path)
		}
	}
	s := tr.State()
	if s.Mode != protocol.ModeRunning || s.Mission.ID != missionID || s.Mission.Status != protocol.RunRunning {
		t.Fatalf("bad commands changed the running mission: %s %+v", s.Mode, s.Mission)
	}
	if n := tr.events.count("mission.started"); n != 1 {
		t.Fatalf("mission restarted: %d starts", n)
	}
}

func TestRunnerPauseResumeAbort(t *testing.T) {
	tr := startRunner(t, "", nil)
	if rep := tr.do(protocol.Command{Op: protocol.OpMissionPause}); rep.OK || rep.Error.Code != protocol.ErrNoMission {
		t.Fatalf("pause with no mission: %+v", rep)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionPause})
	s := tr.waitMode(protocol.ModePaused)
	if s.RequestedMode != protocol.ModePaused || s.Mission.Status != protocol.RunPaused {
		t.Fatalf("paused: %+v %+v", s, s.Mission)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionResume})
	tr.waitMode(protocol.ModeRunning)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionAbort})
	s = tr.waitFor("aborted", func(s protocol.State) bool { return s.Mission != nil && s.Mission.Status == protocol.RunAborted })
	if s.Mode != protocol.ModeIdle {
		t.Fatalf("after abort: mode %s", s.Mode)
	}
	if tr.events.count("log") != 1 {
		t.Fatalf("the resume ran the Log that completed before the pause again (it goes on where it paused): %v", tr.events.kinds())
	}
}

func TestRunnerEStopWins(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.mustOK(protocol.Command{Op: protocol.OpEStop})
	tr.hw.mu.Lock()
	gate := tr.hw.estop
	tr.hw.mu.Unlock()
	if !gate {
		t.Fatal("the hardware e-stop gate was not closed by the time the command was acknowledged")
	}
	// The state says ESTOP as soon as the gate closed; the tick then
	// pauses the mission.
	s := tr.waitFor("the mission paused by the e-stop", func(s protocol.State) bool {
		return s.Mode == protocol.ModeEStop && s.Mission != nil && s.Mission.Status == protocol.RunPaused
	})
	if !s.EStop {
		t.Fatalf("e-stop state %+v mission %+v", s, s.Mission)
	}
	if rep := tr.do(protocol.Command{Op: protocol.OpMissionResume}); rep.OK {
		t.Fatal("resume accepted during e-stop")
	}
	if rep := tr.do(protocol.Command{Op: protocol.OpMissionStart, MissionID: missionID, Replace: true}); rep.OK || rep.Error.Code != protocol.ErrNotAllowedInMode {
		t.Fatalf("start during e-stop: %+v", rep)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpEStopReset})
	s = tr.waitMode(protocol.ModePaused)
	if s.EStop {
		t.Fatal("estop still set after reset")
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionResume})
	tr.waitMode(protocol.ModeRunning)
}

func TestRunnerLinkLossFailsafe(t *testing.T) {
	tr := startRunner(t, "", func(c *Config) { c.Failsafe.LinkLossTimeout = 30 * time.Millisecond })
	doc := json.RawMessage(fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"m","main":"main","on_link_loss":"home",
		"trees":{"main":%s,"home":{"type":"MemSequence","children":[{"type":"Log","params":{"message":"going home"}},{"type":"Running"}]}}}`, missionID, waitLong))
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: doc, Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.SetLink(protocol.LinkState{Broker: false})
	s := tr.waitMode(protocol.ModeFailsafe)
	if !s.Failsafe.Active || s.Failsafe.Reason != "link_lost" || s.Failsafe.Action != "home" || s.RequestedMode != protocol.ModeRunning {
		t.Fatalf("failsafe state %+v requested %s", s.Failsafe, s.RequestedMode)
	}
	tr.waitFor("the failsafe tree to run", func(protocol.State) bool {
		for _, e := range tr.events.snapshot() {
			if e.Kind == "log" && e.Message == "going home" {
				return true
			}
		}
		return false
	})
	tr.SetLink(protocol.LinkState{Broker: true, GCSOnline: true})
	s = tr.waitMode(protocol.ModePaused)
	if s.Failsafe.Active {
		t.Fatalf("failsafe still active: %+v", s.Failsafe)
	}
	for _, k := range []string{"failsafe.entered", "failsafe.cleared"} {
		if tr.events.count(k) != 1 {
			t.Errorf("%s events: %d (%v)", k, tr.events.count(k), tr.events.kinds())
		}
	}
}

func TestRunnerBatteryCriticalAborts(t *testing.T) {
	tr := startRunner(t, "", func(c *Config) { c.Failsafe.BatteryAction = ActionAbort })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.hw.set("battery.percent", 22)
	s := tr.waitFor("battery warning", func(s protocol.State) bool { return len(s.Errors) > 0 })
	if s.Errors[0].Code != "BATTERY_LOW" || s.Mode != protocol.ModeRunning || s.Battery.Percent != 22 {
		t.Fatalf("low battery: %+v mode %s", s.Errors, s.Mode)
	}
	tr.hw.set("battery.percent", 5)
	s = tr.waitFor("abort", func(s protocol.State) bool { return s.Mission.Status == protocol.RunAborted })
	if s.Mode != protocol.ModeIdle || s.Failsafe.Reason != "battery_critical" {
		t.Fatalf("after critical battery: mode %s failsafe %+v", s.Mode, s.Failsafe)
	}
}

func TestRunnerJournalReportsInterruptedMission(t *testing.T) {
	dir := t.TempDir()
	for _, resumable := range []bool{false, true} {
		t.Run(fmt.Sprint("resume_after_restart=", resumable), func(t *testing.T) {
			tr := startRunner(t, dir, nil)
			doc := mission(0, waitLong, fmt.Sprintf(`"resume_after_restart":%v`, resumable))
			if resumable {
				doc = mission(1, waitLong, `"resume_after_restart":true`)
			}
			tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: doc, Start: true})
			tr.waitMode(protocol.ModeRunning)
			tr.stop() // the daemon stops with the mission running

			tr2 := startRunner(t, dir, nil)
			s := tr2.State()
			if s.Mode != protocol.ModeIdle || s.Mission == nil || s.Mission.Status != protocol.RunInterrupted {
				t.Fatalf("after restart: mode %s mission %+v", s.Mode, s.Mission)
			}
			if tr2.events.count("mission.interrupted") != 1 {
				t.Fatalf("events %v", tr2.events.kinds())
			}
			rep := tr2.do(protocol.Command{Op: protocol.OpMissionResume})
			if rep.OK != resumable {
				t.Fatalf("resume after restart: %+v", rep)
			}
			if resumable {
				tr2.waitMode(protocol.ModeRunning)
			}
			tr2.stop()
		})
	}
}

func TestRunnerInject(t *testing.T) {
	tr := startRunner(t, "", nil)
	doc := json.RawMessage(fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"m","main":"main",
		"trees":{"main":{"type":"Repeater","params":{"count":-1},"children":[{"type":"DynamicSubTree","params":{"slot":"job","default":"idle"}}]},
		"idle":{"type":"Wait","params":{"ms":10}},
		"work":{"type":"MemSequence","children":[{"type":"Log","params":{"message":"working"}},{"type":"Wait","params":{"ms":10}}]}}}`, missionID))
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: doc, Start: true})
	for _, b := range []struct {
		c    protocol.Command
		code string
	}{
		{protocol.Command{Op: protocol.OpMissionInject, Slot: "nope", Tree: json.RawMessage(`"work"`)}, protocol.ErrValidation},
		{protocol.Command{Op: protocol.OpMissionInject, Slot: "job", Tree: json.RawMessage(`"missing"`)}, protocol.ErrValidation},
		{protocol.Command{Op: protocol.OpMissionInject, Slot: "job", Tree: json.RawMessage(`{"type":"Wiat"}`)}, protocol.ErrUnknownNodeType},
	} {
		if rep := tr.do(b.c); rep.OK || rep.Error.Code != b.code {
			t.Errorf("inject %s %s: %+v, want %s", b.c.Slot, b.c.Tree, rep.Error, b.code)
		}
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionInject, Slot: "job", Tree: json.RawMessage(`"work"`)})
	tr.waitFor("the injected tree to run", func(protocol.State) bool { return tr.events.count("log") > 0 })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionInject, Slot: "job", Tree: json.RawMessage(`{"type":"Log","params":{"message":"inline"}}`)})
	tr.waitFor("the inline tree to run", func(protocol.State) bool {
		for _, e := range tr.events.snapshot() {
			if e.Message == "inline" {
				return true
			}
		}
		return false
	})
}

// panicNode panics outside a leaf guard: it is a registered composite.
type panicNode struct{}

func (panicNode) Tick(a *bt.Agent, n *bt.Node) bt.Status { panic("broken composite") }

func TestRunnerSurvivesPanics(t *testing.T) {
	reg := catalog.NewRegistry()
	reg.Register(bt.NodeType{Name: "Broken", Kind: bt.Composite, New: func(*bt.Builder) bt.Behavior { return panicNode{} }})
	tr := startRunner(t, "", func(c *Config) { c.Registry = reg })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Start: true, Mission: mission(0, `{"type":"Broken","children":[{"type":"Running"}]}`)})
	s := tr.waitFor("the mission to end with ERROR", func(s protocol.State) bool { return s.Mission != nil && s.Mission.Status == protocol.RunErrored })
	if s.Mode != protocol.ModeIdle {
		t.Fatalf("mode %s after a panic", s.Mode)
	}
	// The daemon still works.
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Start: true, Mission: mission(1, quick)})
	tr.waitFor("the next mission", func(s protocol.State) bool { return s.Mission.Status == protocol.RunSucceeded })
}

// The tick loop allocates nothing in steady state: a running mission with
// sensors, failsafe supervision and telemetry bookkeeping.
func TestRunnerTickAllocatesNothing(t *testing.T) {
	hw := &fakeHW{readings: map[string]float64{"battery.percent": 90, "battery.voltage": 12.4}}
	r, err := New(Config{Robot: "r", Hardware: hw, Failsafe: FailsafeConfig{LinkLossTimeout: -1}})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	r.mode.Start(r, &r.modeMem, now.UnixNano())
	r.stepMode(now)
	p := &pending{c: protocol.Command{ID: "x", Op: protocol.OpMissionLoad, Start: true}, reply: make(chan protocol.Reply, 1)}
	p.m, err = missions.Load(mission(0, waitLong), r.loadOptions())
	if err != nil {
		t.Fatal(err)
	}
	if rep := r.apply(p, now); !rep.OK {
		t.Fatal(rep.Error)
	}
	for i := 0; i < 50; i++ {
		now = now.Add(50 * time.Millisecond)
		r.tick(now)
	}
	allocs := testing.AllocsPerRun(200, func() {
		now = now.Add(50 * time.Millisecond)
		r.tick(now)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per tick", allocs)
	}
	if s := r.State(); s.Mode != protocol.ModeRunning || s.Battery == nil || s.Battery.Percent != 90 {
		t.Fatalf("state %+v", s)
	}
}

// TestLinkLossMeasuredFromTheLastContact: a silent broker is noticed late
// (a keepalive and a ping timeout after its last word); the link-loss
// timeout runs from that last contact, not from the notice.
func TestLinkLossMeasuredFromTheLastContact(t *testing.T) {
	tr := startRunner(t, "", func(c *Config) { c.Failsafe.LinkLossTimeout = time.Hour })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.SetLink(protocol.LinkState{Broker: false, DownSince: time.Now().Add(-2 * time.Hour)})
	s := tr.waitMode(protocol.ModeFailsafe)
	if s.Failsafe.Reason != "link_lost" {
		t.Fatalf("failsafe %+v, want link_lost", s.Failsafe)
	}
}

// An injection into a mission that has ended is refused: the tree would
// never run, and the sender (the VDA 5050 adapter extending an order)
// must know it.
func TestRunnerInjectAfterEndRefused(t *testing.T) {
	tr := startRunner(t, "", nil)
	doc := json.RawMessage(fmt.Sprintf(`{"format":"botd/mission@1","id":%q,"name":"m","main":"main",
		"trees":{"main":{"type":"DynamicSubTree","params":{"slot":"job","default":"idle"}},
		"idle":{"type":"Succeed"}}}`, missionID))
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: doc, Start: true})
	tr.waitFor("the mission to end", func(s protocol.State) bool {
		return s.Mission != nil && s.Mission.Status == protocol.RunSucceeded
	})
	rep := tr.do(protocol.Command{Op: protocol.OpMissionInject, Slot: "job", Tree: json.RawMessage(`{"type":"Log","params":{"message":"late"}}`)})
	if rep.OK || rep.Error.Code != protocol.ErrNoMission {
		t.Fatalf("inject after the end: %+v", rep)
	}
}
