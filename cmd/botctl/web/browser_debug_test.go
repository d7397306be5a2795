package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// debugMission: 0 MemSequence, 1 a minute's Wait, 2 Log, 3 a minute's Wait.
const debugMission = `{"format":"botd/mission@1","name":"debugged","revision":1,"main":"main","trees":{"main":
{"type":"MemSequence","children":[{"type":"Wait","name":"first","params":{"ms":60000}},{"type":"Log","params":{"message":"reached"}},{"type":"Wait","name":"second","params":{"ms":60000}}]}}}`

// The dashboard's debugger on a real daemon (debug.allow): a forced
// status ends the first Wait, a breakpoint holds the mission at the
// second and the bar and the tree show it held while the robot runs on;
// an e-stop is obeyed with the node held and releases every hook; after
// the reset, a step that ends the held node with SUCCESS finishes the
// mission.
func TestBrowserDebugger(t *testing.T) {
	exe := findChromium()
	if exe == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	root := repoRoot(t)
	dir := t.TempDir()
	mission := filepath.Join(dir, "debugged.json")
	cfg := filepath.Join(dir, "botd.yaml")
	if err := os.WriteFile(mission, []byte(debugMission), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "robot: rover-b\nhardware: %s\nmission: %s\nfailsafe:\n  require_gcs: false\n  max_overruns: -1\ndebug:\n  allow: true\n",
		filepath.Join(root, "configs", "sim.yaml"), mission), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	runBotd(t, root, addr, "-config", cfg)
	g := connectGround(t, addr, "rover-b")
	p := openDashboard(t, exe, g, addr)
	p.wait("the page to open rover-b", `document.getElementById('robot-name').textContent === 'rover-b'`)
	p.wait("the tree", `document.getElementById('tree').dataset.nodes === '4'`)

	click := func(sel string) {
		t.Helper()
		p.wait(sel+" enabled", fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && !e.disabled; })()`, sel))
		p.eval(fmt.Sprintf(`(() => { document.querySelector(%q).dispatchEvent(new MouseEvent('click', {bubbles: true})); return ''; })()`, sel))
	}
	node := func(i int) string { return fmt.Sprintf(`#tree g.node[data-index="%d"]`, i) }
	state := func() *protocol.StateMsg {
		for _, r := range g.Robots() {
			if r.ID == "rover-b" {
				return r.State
			}
		}
		return nil
	}
	waitState := func(what string, ok func(*protocol.StateMsg) bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for s := state(); s == nil || !ok(s); s = state() {
			if time.Now().After(deadline) {
				p.shot("dashboard-debug-failure.png")
				t.Fatalf("waiting for %s: state %+v", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	hold := func() {
		t.Helper()
		click(node(3))
		p.wait("node 3 selected", `document.getElementById('dbg-node').textContent.startsWith('#3 Wait')`)
		click("#dbg-break")
		p.wait("node 3 outlined as hooked", `document.querySelector('`+node(3)+`').classList.contains('hooked')`)
		click(node(1))
		click("#dbg-force-s")
		p.wait("held at node 3", `document.getElementById('dbg-held').dataset.held === '3'`)
		p.wait("node 3 outlined as held", `document.querySelector('`+node(3)+`').classList.contains('held') && document.getElementById('dbg-held').textContent.includes('HELD at #3 Wait "second"')`)
	}

	waitState("the mission running", func(s *protocol.StateMsg) bool { return s.Mode == protocol.ModeRunning })
	// A hook another client sets (here the test's ground station) shows
	// on the page when it hears the hook's event.
	three := int32(3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	rep, err := g.Send(ctx, "rover-b", protocol.Command{Op: protocol.OpHookSet, Hook: &protocol.HookArgs{Node: &three, Position: protocol.HookPost}})
	cancel()
	if err != nil || !rep.OK {
		t.Fatalf("hook.set from another client: %+v %v", rep, err)
	}
	p.wait("the other client's hook on the page", `document.getElementById('dbg-hooks').textContent.includes('#3 Wait "second" break (post')`)
	hold()
	p.shot("dashboard-debug-held.png")
	// Held: the mission is RUNNING, the robot's loop ticks on.
	before := state().Tick.Count
	waitState("ticks while held", func(s *protocol.StateMsg) bool {
		return s.Tick.Count > before+10 && s.Mission.Status == protocol.RunRunning
	})

	// An e-stop with the node held: obeyed, and every hook goes.
	click("#btn-estop")
	waitState("the e-stop", func(s *protocol.StateMsg) bool { return s.Mode == protocol.ModeEStop })
	p.wait("the hooks gone with the e-stop", `document.getElementById('dbg-held').textContent === '' && document.getElementById('dbg-hooks').textContent === ''`)
	removed := eventKinds(t, g, "rover-b", "hook.removed", "e-stop")
	if removed == 0 {
		t.Fatal("no hook.removed event for the e-stop")
	}

	click("#btn-estop-reset")
	waitState("the reset", func(s *protocol.StateMsg) bool { return s.Mode == protocol.ModePaused })
	click("#btn-resume")
	waitState("the mission running again", func(s *protocol.StateMsg) bool { return s.Mode == protocol.ModeRunning })
	hold()
	click(node(3))
	click("#dbg-step-s")
	waitState("the mission's success", func(s *protocol.StateMsg) bool {
		return s.Mission != nil && s.Mission.Status == protocol.RunSucceeded
	})
	p.wait("nothing held after the mission", `document.getElementById('dbg-held').textContent === ''`)
	p.noProblems()
}

// eventKinds asks the robot for its kept events and counts those of
// kind whose data.reason is reason.
func eventKinds(t *testing.T, g *ground.Client, robot, kind, reason string) int {
	t.Helper()
	got := make(chan protocol.EventMsg, 1024)
	stop, err := g.Watch(robot, ground.RobotHandlers{Event: func(m protocol.EventMsg) {
		select {
		case got <- m:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := g.Send(ctx, robot, protocol.Command{Op: protocol.OpEventsRequest})
	if err != nil || !rep.OK {
		t.Fatalf("events.request: %+v %v", rep, err)
	}
	n := 0
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-got:
			if m.Kind == kind && m.Data["reason"] == reason {
				n++
				return n
			}
		case <-deadline:
			return n
		}
	}
}
