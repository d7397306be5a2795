package runner

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry/protocol"
)

// hookMission: a first Wait, a Log that says "reached", a long Wait.
// Node indexes: 0 MemSequence, 1 Wait, 2 Log, 3 Wait.
const hookMission = `{"type":"MemSequence","children":[{"type":"Wait","params":{"ms":30}},{"type":"Log","params":{"message":"reached"}},{"type":"Wait","params":{"ms":60000}}]}`

func (tr *testRunner) hook(op HookOp) ([]bt.HookState, error) {
	tr.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitEvent)
	defer cancel()
	return tr.Hook(ctx, op)
}

func (tr *testRunner) mustHook(op HookOp) []bt.HookState {
	tr.t.Helper()
	hs, err := tr.hook(op)
	if err != nil {
		tr.t.Fatalf("%s: %v", op.Op, err)
	}
	return hs
}

// waitEvent waits for an event of kind whose data's reason (when want
// is not "") is want.
func (tr *testRunner) waitHookEvent(kind, reason string) protocol.Event {
	tr.t.Helper()
	var found protocol.Event
	testutil.Eventually(tr.t, waitEvent, fmt.Sprintf("a %s event (reason %q)", kind, reason), func() bool {
		for _, e := range tr.events.snapshot() {
			if e.Kind == kind && (reason == "" || e.Data["reason"] == reason) {
				found = e
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("events %v", tr.events.kinds()) })
	return found
}

func (tr *testRunner) logged(msg string) bool {
	for _, e := range tr.events.snapshot() {
		if e.Kind == "log" && e.Message == msg {
			return true
		}
	}
	return false
}

func TestRunnerHooksRefusedUnlessAllowed(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, waitLong), Start: true})
	if _, err := tr.hook(HookOp{Op: HookSet, Hooks: []bt.Hook{{Node: 2}}}); !errors.Is(err, ErrHooksNotAllowed) {
		t.Fatalf("hook without EnableHooks: %v", err)
	}
}

// A breakpoint holds the mission at its node while the tick loop goes on
// (ticks are counted, the node is not reached); the unlock lets it on;
// every step is an event.
func TestRunnerBreakpointHoldsTheMissionNotTheLoop(t *testing.T) {
	tr := startRunner(t, "", nil)
	hits := make(chan int32, 16)
	tr.EnableHooks(HookConfig{OnHit: func(n int32) { hits <- n }})
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, hookMission), Start: true})
	tr.waitMode(protocol.ModeRunning)
	hs := tr.mustHook(HookOp{Op: HookSet, Hooks: []bt.Hook{{Node: 2, Position: bt.HookPre, Mode: bt.HookBreakpoint}}})
	if len(hs) != 1 || hs[0].Node != 2 {
		t.Fatalf("hooks %+v", hs)
	}
	select {
	case n := <-hits:
		if n != 2 {
			t.Fatalf("hit at node %d", n)
		}
	case <-time.After(waitEvent):
		t.Fatal("no hit")
	}
	hit := tr.waitHookEvent("hook.hit", "")
	if hit.Node == nil || *hit.Node != 2 || hit.Data["position"] != "pre" || hit.Data["mode"] != "breakpoint" {
		t.Errorf("hit event %+v", hit)
	}
	_, _, _, before, _ := tr.stats.RunJitter()
	tr.waitFor("the loop ticking on", func(protocol.State) bool {
		_, _, _, n, _ := tr.stats.RunJitter()
		return n >= before+20
	})
	if tr.logged("reached") {
		t.Fatal("the held node ran")
	}
	// The loop went on ticking (above) while the node was held: a held
	// hook never blocks the tick goroutine. (Missed deadlines are no
	// measure of that on a loaded machine.)
	if s := tr.State(); s.Mode != protocol.ModeRunning {
		t.Errorf("mode %s", s.Mode)
	}
	hs = tr.mustHook(HookOp{Op: HookList})
	if len(hs) != 1 || !hs[0].Held {
		t.Fatalf("hooks %+v, want one held", hs)
	}
	tr.mustHook(HookOp{Op: HookUnlock, Node: 2, Position: bt.HookPre, Remove: true})
	tr.waitHookEvent("hook.released", "unlocked")
	tr.waitFor("the node reached", func(protocol.State) bool { return tr.logged("reached") })
	tr.waitHookEvent("hook.set", "")
	tr.waitHookEvent("hook.removed", "once")
	if _, err := tr.hook(HookOp{Op: HookRemove, Node: 2}); !errors.Is(err, ErrHookNotFound) {
		t.Errorf("removing a removed hook: %v", err)
	}
	if _, err := tr.hook(HookOp{Op: HookSet, Hooks: []bt.Hook{{Node: 999}}}); !errors.Is(err, ErrHookNotFound) {
		t.Errorf("a hook on no node: %v", err)
	}
}

// The e-stop releases every hook (the held node is halted, the hooks are
// removed) and stops the mission as always; no hook can be set while it
// is engaged.
func TestRunnerEStopReleasesHooks(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.EnableHooks(HookConfig{})
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, hookMission), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.mustHook(HookOp{Op: HookSet, Hooks: []bt.Hook{{Node: 2}, {Node: 3, Mode: bt.HookReplace, Status: bt.Failure}}})
	tr.waitHookEvent("hook.hit", "")
	tr.mustOK(protocol.Command{Op: protocol.OpEStop})
	tr.waitMode(protocol.ModeEStop)
	tr.waitHookEvent("hook.released", "halted")
	tr.waitHookEvent("hook.removed", "e-stop")
	if n := tr.events.count("hook.removed"); n != 2 {
		t.Errorf("%d hooks removed, want 2", n)
	}
	if hs := tr.mustHook(HookOp{Op: HookList}); len(hs) != 0 {
		t.Errorf("hooks left after the e-stop: %+v", hs)
	}
	if _, err := tr.hook(HookOp{Op: HookSet, Hooks: []bt.Hook{{Node: 2}}}); !errors.Is(err, ErrHookMode) {
		t.Errorf("a hook set during the e-stop: %v", err)
	}
}

// The end of the mission releases the hooks: here a REPLACE makes the
// long Wait fail, so the mission fails at once.
func TestRunnerMissionEndReleasesHooks(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.EnableHooks(HookConfig{})
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, hookMission), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.mustHook(HookOp{Op: HookSet, Hooks: []bt.Hook{{Node: 3, Mode: bt.HookReplace, Status: bt.Failure}}})
	tr.waitFor("the mission failed", func(s protocol.State) bool {
		return s.Mission != nil && s.Mission.Status == protocol.RunFailed
	})
	hit := tr.waitHookEvent("hook.hit", "")
	if hit.Data["status"] != "FAILURE" || hit.Data["mode"] != "replace" {
		t.Errorf("hit %+v", hit)
	}
	tr.waitHookEvent("hook.removed", "the mission ended")
	if _, err := tr.hook(HookOp{Op: HookSet, Hooks: []bt.Hook{{Node: 2}}}); !errors.Is(err, ErrHookNoMission) {
		t.Errorf("a hook with no mission: %v", err)
	}
}

// A client that goes silent loses its hooks: the held node goes on.
func TestRunnerSilentClientReleasesHooks(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.EnableHooks(HookConfig{Silence: 150 * time.Millisecond})
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, hookMission), Start: true})
	tr.waitMode(protocol.ModeRunning)
	tr.mustHook(HookOp{Op: HookSet, Hooks: []bt.Hook{{Node: 2}}})
	tr.waitHookEvent("hook.hit", "")
	ev := tr.waitHookEvent("hook.removed", "")
	if r, _ := ev.Data["reason"].(string); len(r) < 20 || r[:len("the debugging client was silent")] != "the debugging client was silent" {
		t.Errorf("removed because %q", r)
	}
	tr.waitFor("the node reached", func(protocol.State) bool { return tr.logged("reached") })
}
