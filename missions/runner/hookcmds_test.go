package runner

import (
	"testing"

	"github.com/botd-project/botd/telemetry/protocol"
)

func hookCmd(op string, a *protocol.HookArgs) protocol.Command {
	return protocol.Command{Op: op, Hook: a}
}

func node(i int32) *int32 { return &i }

// The hook commands are refused unless the config allows them, even when
// Groot2's hooks are allowed.
func TestHookCommandsRefusedUnlessAllowed(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(0, hookMission), Start: true})
	for _, enable := range []bool{false, true} {
		if enable {
			tr.EnableHooks(HookConfig{}) // Groot2's hooks only
		}
		rep := tr.do(hookCmd(protocol.OpHookSet, &protocol.HookArgs{Node: node(2)}))
		if rep.OK || rep.Error.Code != protocol.ErrDebugNotAllowed {
			t.Fatalf("enabled %v: %+v", enable, rep)
		}
	}
}

// A breakpoint set by command holds the mission at its node; list shows
// it held; a step (an unlock) lets one pass; a continue (unlock with
// remove) lets it go on; a forced status ends a node without ticking it;
// every step is an event.
func TestHookCommandsBreakStepForce(t *testing.T) {
	tr := startRunner(t, "", nil)
	tr.EnableHooks(HookConfig{Commands: true})
	// 0 MemSequence, 1 a minute's Wait, 2 Log "reached", 3 a minute's Wait
	tr.mustOK(protocol.Command{Op: protocol.OpMissionLoad, Mission: mission(3, `{"type":"MemSequence","children":[{"type":"Wait","params":{"ms":60000}},{"type":"Log","params":{"message":"reached"}},{"type":"Wait","params":{"ms":60000}}]}`), Start: true})
	tr.waitMode(protocol.ModeRunning)

	for _, c := range []struct {
		a    *protocol.HookArgs
		op   string
		code string
		path string
	}{
		{&protocol.HookArgs{}, protocol.OpHookSet, protocol.ErrValidation, "/hook/node"},
		{&protocol.HookArgs{Node: node(2), Mode: "replace"}, protocol.OpHookSet, protocol.ErrValidation, "/hook/status"},
		{&protocol.HookArgs{Node: node(2), Position: "middle"}, protocol.OpHookSet, protocol.ErrValidation, "/hook/position"},
		{&protocol.HookArgs{Node: node(99)}, protocol.OpHookSet, protocol.ErrValidation, "/hook/node"},
		{&protocol.HookArgs{Node: node(2), Mission: missionID, Revision: 2}, protocol.OpHookSet, protocol.ErrOtherMission, "/hook/mission"},
		{&protocol.HookArgs{Node: node(1)}, protocol.OpHookRemove, protocol.ErrValidation, "/hook/node"},
	} {
		rep := tr.do(hookCmd(c.op, c.a))
		if rep.OK || rep.Error.Code != c.code || rep.Error.Path != c.path {
			t.Fatalf("%s %+v: want %s at %s, got %+v", c.op, c.a, c.code, c.path, rep)
		}
	}

	rep := tr.mustOK(hookCmd(protocol.OpHookSet, &protocol.HookArgs{Node: node(2), Mission: missionID, Revision: 3}))
	res, err := protocol.DecodeHooksResult(rep.Result)
	if err != nil || len(res.Hooks) != 1 || res.Hooks[0].Node != 2 || res.Hooks[0].Mode != protocol.HookBreakpoint || res.Mission != missionID || res.Revision != 3 {
		t.Fatalf("set: %+v %v", res, err)
	}
	// Force the first Wait to succeed, once: the mission reaches the Log.
	tr.mustOK(hookCmd(protocol.OpHookSet, &protocol.HookArgs{Node: node(1), Mode: protocol.HookReplace, Status: "SUCCESS", Once: true}))
	tr.waitHookEvent("hook.hit", "")
	res, _ = protocol.DecodeHooksResult(tr.mustOK(hookCmd(protocol.OpHookList, nil)).Result)
	tr.waitFor("held at the Log", func(protocol.State) bool {
		res, _ = protocol.DecodeHooksResult(tr.mustOK(hookCmd(protocol.OpHookList, nil)).Result)
		return len(res.Hooks) == 1 && res.Hooks[0].Held
	})
	if len(res.Hooks) != 1 || res.Hooks[0].Node != 2 || res.Hooks[0].Hits != 1 {
		t.Fatalf("list while held: %+v", res)
	}
	if tr.logged("reached") {
		t.Fatal("the held Log ran")
	}
	// Continue: the Log runs, the breakpoint is gone.
	tr.mustOK(hookCmd(protocol.OpHookUnlock, &protocol.HookArgs{Node: node(2), Remove: true}))
	tr.waitHookEvent("hook.released", "unlocked")
	tr.waitFor("the Log ran", func(protocol.State) bool { return tr.logged("reached") })

	// Break at the minute-long Wait, then force it to SUCCESS: the mission
	// succeeds without waiting.
	tr.mustOK(hookCmd(protocol.OpHookSet, &protocol.HookArgs{Node: node(3), Position: protocol.HookPre}))
	tr.waitFor("held at the Wait", func(protocol.State) bool {
		res, _ := protocol.DecodeHooksResult(tr.mustOK(hookCmd(protocol.OpHookList, nil)).Result)
		return len(res.Hooks) == 1 && res.Hooks[0].Held
	})
	tr.mustOK(hookCmd(protocol.OpHookUnlock, &protocol.HookArgs{Node: node(3), Status: "SUCCESS"}))
	tr.waitFor("the mission succeeded", func(s protocol.State) bool {
		return s.Mission != nil && s.Mission.Status == protocol.RunSucceeded
	})
	// The mission's end released the hooks.
	tr.waitHookEvent("hook.removed", "the mission ended")
	if rep := tr.do(hookCmd(protocol.OpHookSet, &protocol.HookArgs{Node: node(1)})); rep.OK || rep.Error.Code != protocol.ErrNoMission {
		t.Fatalf("set without a mission: %+v", rep)
	}
}
