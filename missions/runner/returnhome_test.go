package runner

import (
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/botd-project/botd/telemetry/protocol"
)

func hasError(s protocol.State, code string) bool {
	for _, e := range s.Errors {
		if e.Code == code {
			return true
		}
	}
	return false
}

// A geofence breach whose action is return_home runs botd's own return (Config.ReturnHome's
// tree) instead of the vehicle's, and the failsafe stays active while it runs, even once the
// robot is back inside; an abort stops it. A return that ends on its own is reported and lets
// the failsafe clear: the mission waits paused. Without a tree the vehicle returns on its own.
func TestRunnerReturnHome(t *testing.T) {
	g := &scriptedFence{st: inside()}
	var tree atomic.Value // *bt.NodeDef, or nil
	tree.Store(&bt.NodeDef{Type: "Wait", Params: map[string]any{"ms": 600000.0}})
	tr := startRunner(t, "", func(c *Config) {
		c.Geofence = g
		c.ReturnHome = func(m *missions.Mission) (*bt.NodeDef, string) {
			def, _ := tree.Load().(*bt.NodeDef)
			if def == nil || def.Type == "" {
				return nil, ""
			}
			return def, "rally point 1"
		}
	})
	breach := FenceStatus{Trip: true, Outside: true, X: 5.5, Clearance: -0.5, Alt: math.NaN(), Action: ActionReturnHome, Zone: "z"}
	back := inside()
	back.Action = ActionReturnHome
	run := func() {
		t.Helper()
		tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
		tr.waitMode(protocol.ModeRunning)
		g.set(breach)
	}

	// a long return: held in FAILSAFE after the robot is back inside, until the abort
	run()
	tr.waitFor("the return", func(s protocol.State) bool {
		return s.Mode == protocol.ModeFailsafe && hasError(s, CodeReturningHome) && tr.events.count("failsafe.return_home") == 1
	})
	g.set(back)
	s := tr.waitFor("back inside, still returning", func(s protocol.State) bool {
		return !hasError(s, CodeGeofenceBreach) && hasError(s, CodeReturningHome)
	})
	if s.Mode != protocol.ModeFailsafe || !s.Failsafe.Active || s.Failsafe.Reason != "geofence" {
		t.Fatalf("while returning: %+v", s)
	}
	if got := g.acted(); len(got) != 0 {
		t.Fatalf("the vehicle was asked to act: %v", got)
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionAbort})
	s = tr.waitMode(protocol.ModeIdle)
	if hasError(s, CodeReturningHome) {
		t.Fatalf("after the abort: %+v", s.Errors)
	}

	// a return that ends: reported, then the mission waits paused
	tree.Store(&bt.NodeDef{Type: "Succeed"})
	run()
	tr.waitFor("the return's end", func(protocol.State) bool { return tr.events.count("failsafe.returned") == 1 })
	g.set(back)
	s = tr.waitMode(protocol.ModePaused)
	if hasError(s, CodeReturningHome) || s.Mission.Status != protocol.RunPaused {
		t.Fatalf("after the return: %+v", s)
	}
	for _, e := range tr.events.snapshot() {
		if e.Kind == "failsafe.return_home" && (e.Data["target"] != "rally point 1" || !strings.Contains(e.Message, "botd returns to rally point 1")) ||
			e.Kind == "failsafe.returned" && (e.Data["x"] != 5.5 || e.Data["target"] != "rally point 1") {
			t.Errorf("event %+v", e)
		}
	}
	tr.mustOK(protocol.Command{Op: protocol.OpMissionAbort})
	tr.waitMode(protocol.ModeIdle)

	// no tree: the vehicle's own return
	tree.Store(&bt.NodeDef{})
	run()
	tr.waitFor("the vehicle's return", func(protocol.State) bool { a := g.acted(); return len(a) == 1 && a[0] == ActionReturnHome })
	if n := tr.events.count("failsafe.return_home"); n != 2 {
		t.Errorf("%d botd returns, want 2", n)
	}
}

// A battery-low return_home with a return of botd's own runs it (the vehicle is not asked for
// its own); battery critical's land then stops it and lands the vehicle.
func TestRunnerReturnHomeThenLand(t *testing.T) {
	tr, uav := startUAV(t, func(c *Config) {
		c.Failsafe.BatteryLowAction, c.Failsafe.BatteryAction = ActionReturnHome, ActionLand
		c.ReturnHome = func(*missions.Mission) (*bt.NodeDef, string) {
			return &bt.NodeDef{Type: "Wait", Params: map[string]any{"ms": 600000.0}}, "rally point 0"
		}
	})
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.hw.set("battery.percent", 22)
	tr.waitFor("botd's return", func(s protocol.State) bool {
		return hasError(s, CodeReturningHome) && s.Failsafe.Reason == "battery_low"
	})
	tr.hw.set("battery.percent", 8)
	tr.waitActions(uav, ActionLand)
	s := tr.waitFor("the return stopped", func(s protocol.State) bool { return !hasError(s, CodeReturningHome) })
	if s.Mode != protocol.ModeFailsafe || s.Failsafe.Reason != "battery_critical" {
		t.Fatalf("after the escalation: %+v", s)
	}
}
