package runner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/configs"
	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry/protocol"
)

// legs records the waypoints the patrol's MoveTo leaves drive to, and lets
// the test decide when each arrives.
type legs struct {
	mu     sync.Mutex
	opened []string // each activation's waypoint, "x,y"
	halts  int
	allow  int // arrivals the test has allowed
	done   int // arrivals so far
}

func (l *legs) snapshot() (opened []string, halts int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.opened), l.halts
}

func (l *legs) arrive(n int) { l.mu.Lock(); l.allow += n; l.mu.Unlock() }

// moveTo stands in for the rover's MoveTo: it drives until the test lets
// it arrive; a halt stops it.
type moveTo struct {
	l    *legs
	x, y bt.Num
}

func (m *moveTo) Open(a *bt.Agent, n *bt.Node) {
	x, _ := m.x.Get(a)
	y, _ := m.y.Get(a)
	m.l.mu.Lock()
	m.l.opened = append(m.l.opened, fmt.Sprintf("%g,%g", x, y))
	m.l.mu.Unlock()
}

func (m *moveTo) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m.l.mu.Lock()
	defer m.l.mu.Unlock()
	if m.l.allow > m.l.done {
		m.l.done++
		return bt.Success
	}
	return bt.Running
}

func (m *moveTo) Halt(a *bt.Agent, n *bt.Node) { m.l.mu.Lock(); m.l.halts++; m.l.mu.Unlock() }

// roverRegistry is the built-ins and stand-ins for the rover's leaves
// that configs/missions/patrol.json uses.
func roverRegistry(l *legs) *bt.Registry {
	r := catalog.NewRegistry()
	done := func(*bt.Builder) bt.Behavior { return doneLeaf{} }
	num := func(name string) bt.Param { return bt.Param{Name: name, Type: bt.TNumber} }
	r.Register(bt.NodeType{Name: "Servo", Kind: bt.Leaf, Params: []bt.Param{num("angle")}, New: done})
	r.Register(bt.NodeType{Name: "Led", Kind: bt.Leaf, Params: []bt.Param{{Name: "mode", Type: bt.TString}, num("hz")}, New: done})
	r.Register(bt.NodeType{Name: "Stop", Kind: bt.Leaf, New: done})
	r.Register(bt.NodeType{Name: "Turn", Kind: bt.Leaf, Params: []bt.Param{num("angle_deg")}, New: done})
	r.Register(bt.NodeType{Name: "MoveTo", Kind: bt.Leaf, Params: []bt.Param{num("x"), num("y"), num("speed"), num("tolerance")},
		New: func(b *bt.Builder) bt.Behavior { return &moveTo{l: l, x: b.Number("x"), y: b.Number("y")} }})
	return r
}

type doneLeaf struct{}

func (doneLeaf) Tick(*bt.Agent, *bt.Node) bt.Status { return bt.Success }

// roverHW is fakeHW whose sensors reach the blackboard: a full battery and
// nothing ahead.
type roverHW struct{ *fakeHW }

func (h roverHW) Bind(t *bt.Tree) Binding {
	var b sensorBinding
	for _, k := range []string{"battery.percent", "range.front"} {
		if s, ok := t.Slot(k); ok {
			b = append(b, s)
		}
	}
	return b
}

type sensorBinding []bt.Slot

func (b sensorBinding) Snapshot(bb *bt.Blackboard) {
	for _, s := range b {
		bb.Set(s, bt.NumberValue(90))
	}
}

func patrolMission(t *testing.T) json.RawMessage {
	t.Helper()
	data, err := configs.FS.ReadFile("missions/patrol.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["id"] = missionID
	out, _ := json.Marshal(doc)
	return out
}

func (tr *testRunner) waitLegs(l *legs, what string, cond func(opened []string, halts int) bool) {
	tr.t.Helper()
	testutil.Eventually(tr.t, waitEvent, what, func() bool { return cond(l.snapshot()) }, func() string {
		opened, halts := l.snapshot()
		return fmt.Sprintf("legs %v, %d halts; events %v", opened, halts, tr.events.kinds())
	})
}

// statusOf returns the letter the status board shows for the node named
// name.
func (tr *testRunner) statusOf(name string) byte {
	tr.t.Helper()
	ti, _ := tr.Tree()
	u, _ := tr.Status(true)
	for i, n := range ti.Nodes {
		if n.Name == name {
			return u.Keyframe[i]
		}
	}
	tr.t.Fatalf("no node named %q", name)
	return 0
}

// TestPatrolPauseResumeKeepsProgress runs the demo patrol, pauses it in
// its second round while it drives its second leg, and resumes it: the
// halted leg drives again, then the round goes on; no finished leg is
// driven again and the Repeater ends after two rounds. While paused, the
// status board shows the halted nodes IDLE and the finished ones as they
// ended.
func TestPatrolPauseResumeKeepsProgress(t *testing.T) {
	l := &legs{}
	tr := startRunner(t, "", func(c *Config) {
		c.Registry = roverRegistry(l)
		c.Keys = []string{"battery.percent", "range.front"}
		c.Hardware = roverHW{c.Hardware.(*fakeHW)}
	})
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: patrolMission(t), Start: true})
	round := []string{"2.9,0", "2,2", "0,2", "0,0"}
	// Round 1, then the first leg of round 2: the patrol drives its
	// sixth leg, (2, 2).
	l.arrive(5)
	tr.waitLegs(l, "the second leg of round 2", func(opened []string, _ int) bool { return len(opened) == 6 })
	tr.mustOK(protocol.Command{Op: protocol.OpMissionPause})
	s := tr.waitMode(protocol.ModePaused)
	if s.RequestedMode != protocol.ModePaused {
		t.Errorf("paused: requested mode %s", s.RequestedMode)
	}
	if _, halts := l.snapshot(); halts != 1 {
		t.Fatalf("the pause halted the driving leg %d times, want 1", halts)
	}
	// The board shows what is current once the pause's tick committed it.
	tr.waitFor("the halted nodes shown IDLE", func(protocol.State) bool {
		return tr.statusOf("below the bench") == 'I' && tr.statusOf("two rounds") == 'I'
	})
	for name, want := range map[string]byte{"round": 'I', "patrol mission": 'I', "toward the crate": 'S', "camera level": 'S'} {
		if got := tr.statusOf(name); got != want {
			t.Errorf("paused: %s shows %c, want %c", name, got, want)
		}
	}
	if u, _ := tr.Status(true); strings.ContainsRune(u.Keyframe, 'R') {
		t.Errorf("paused: the board shows nodes RUNNING: %s", u.Keyframe)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionResume})
	tr.waitLegs(l, "the halted leg driven again", func(opened []string, _ int) bool { return len(opened) == 7 })
	if opened, _ := l.snapshot(); opened[6] != "2,2" {
		t.Fatalf("after the resume the patrol drove to %s, want 2,2 again (the leg the pause halted); legs %v", opened[6], opened)
	}
	tr.waitFor("the resumed leg shown RUNNING", func(protocol.State) bool { return tr.statusOf("below the bench") == 'R' })
	if got := tr.statusOf("toward the crate"); got != 'S' {
		t.Errorf("after the resume: the finished leg shows %c, want S", got)
	}
	// The rest of round 2 (3 legs) and home.
	l.arrive(4)
	s = tr.waitFor("the patrol finished", func(s protocol.State) bool { return s.Mission != nil && s.Mission.Status != protocol.RunRunning })
	if s.Mission.Status != protocol.RunSucceeded {
		t.Fatalf("the patrol ended %s", s.Mission.Status)
	}
	opened, _ := l.snapshot()
	want := slices.Concat(round, round[:2], round[1:], []string{"0,0"})
	if !slices.Equal(opened, want) {
		t.Fatalf("legs driven %v\nwant %v (round 2 going on at the leg the pause halted)", opened, want)
	}
	if !strings.Contains(strings.Join(tr.events.kinds(), " "), "mission.paused mission.resumed") {
		t.Errorf("events %v", tr.events.kinds())
	}
}

// TestEStopResetRequestedModeAgrees: after an e-stop is released the
// mission waits PAUSED, and the requested mode says PAUSED too (it said
// RUNNING during the e-stop: what the operator had asked for).
func TestEStopResetRequestedModeAgrees(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.mustOK(protocol.Command{Op: protocol.OpEStop})
	s := tr.waitMode(protocol.ModeEStop)
	if s.RequestedMode != protocol.ModeRunning {
		t.Errorf("during the e-stop: requested %s, want RUNNING (the operator's last request)", s.RequestedMode)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpEStopReset})
	s = tr.waitMode(protocol.ModePaused)
	if s.RequestedMode != protocol.ModePaused {
		t.Fatalf("after the reset: mode %s requested %s, want both PAUSED", s.Mode, s.RequestedMode)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionResume})
	s = tr.waitMode(protocol.ModeRunning)
	if s.RequestedMode != protocol.ModeRunning {
		t.Fatalf("resumed: requested %s", s.RequestedMode)
	}
}
