package nav2

import (
	"testing"

	"github.com/botd-project/botd/bt"
)

// Nav2's test_pause_resume_controller.cpp, its service calls written as
// blackboard writes and its DummyNodes' changeStatus as timelines (one
// letter per tick).

func prState(h *harness, name string) string {
	n := h.Tree.Node(int(h.Idx(name)))
	return n.Behavior().(*pauseResume).mem.Of(h.A, n).state.String()
}

func TestPauseResumeUnusedChildren(t *testing.T) {
	h := newHarness(t, nd("PauseResumeController", "prc", kv{"pause_service_name": "pause", "resume_service_name": "resume"},
		tl("resumed", "R")), withKeys("pause", "resume"))
	pause, _ := h.Tree.Slot("pause")
	resume, _ := h.Tree.Slot("resume")
	step := func(what string, want bt.Status, state string) {
		t.Helper()
		if got := h.Tick(); got != want || prState(h, "prc") != state {
			t.Errorf("%s: %v in %s, want %v in %s", what, got, prState(h, "prc"), want, state)
		}
	}
	step("first tick", bt.Running, "RESUMED")
	h.A.BB.Set(pause, bt.BoolValue(true))
	step("pause", bt.Running, "PAUSED") // no ON_PAUSE child: straight on
	step("paused", bt.Running, "PAUSED")
	h.A.BB.Set(resume, bt.BoolValue(true))
	step("resume", bt.Running, "RESUMED")
	step("resumed", bt.Running, "RESUMED")
	if c := h.Counts("resumed"); c.Halt != 1 {
		t.Errorf("the RESUMED child was halted %d times, want 1 (at the pause)", c.Halt)
	}
}

func TestPauseResumeBehavior(t *testing.T) {
	// Ticks:            1 2 3 4 5 6 7 8 9
	// resumed           R . . . . . . R S
	// paused            . . . S S . . . .
	// on_pause          . R S . . . . . .
	// on_resume         . . . . . . F . .
	h := newHarness(t, nd("PauseResumeController", "prc", kv{"pause_service_name": "pause", "resume_service_name": "resume"},
		tl("resumed", "RRRRRRRRS"), tl("paused", "RRRSSRRRR"), tl("on_pause", "RRSSSSSSS"), tl("on_resume", "FFFFFFFFF")),
		withKeys("pause", "resume"))
	pause, _ := h.Tree.Slot("pause")
	resume, _ := h.Tree.Slot("resume")
	step := func(what string, want bt.Status, state string) {
		t.Helper()
		if got := h.Tick(); got != want || prState(h, "prc") != state {
			t.Errorf("%s: %v in %s, want %v in %s", what, got, prState(h, "prc"), want, state)
		}
	}
	step("1: resumed", bt.Running, "RESUMED")
	h.A.BB.Set(pause, bt.BoolValue(true))
	step("2: pause requested, ON_PAUSE runs", bt.Running, "ON_PAUSE")
	step("3: ON_PAUSE succeeds", bt.Running, "PAUSED")
	step("4: PAUSED succeeds: keeps ticking", bt.Running, "PAUSED")
	h.A.BB.Set(pause, bt.BoolValue(true))
	step("5: pause again is refused", bt.Running, "PAUSED")
	h.A.BB.Set(resume, bt.BoolValue(true))
	step("6: resume, ON_RESUME fails", bt.Failure, "ON_RESUME")
	h.A.HaltAll()
	step("7: after the halt", bt.Running, "RESUMED")
	step("8: resumed", bt.Running, "RESUMED")
	step("9: RESUMED succeeds", bt.Success, "RESUMED")
}

func TestPauseResumeChildCount(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("PauseResumeController", "", kv{"pause_service_name": "p", "resume_service_name": "r"})))
	wantProblems(t, ps, "/trees/main", "PauseResumeController needs at least 1 child, got 0")
}
