package bt

import "testing"

// Nav2's test_pause_resume_controller.cpp, its service calls written as
// blackboard writes and its DummyNodes' changeStatus as timelines (one
// letter per tick).

func prState(h *harness, name string) string {
	n := &h.tree.nodes[h.idx(name)]
	return n.b.(*pauseResume).mem.Of(h.a, n).state.String()
}

func TestPauseResumeUnusedChildren(t *testing.T) {
	h := newHarness(t, nd("PauseResumeController", "prc", kv{"pause_service_name": "pause", "resume_service_name": "resume"},
		tl("resumed", "R")), withKeys("pause", "resume"))
	pause, _ := h.tree.Slot("pause")
	resume, _ := h.tree.Slot("resume")
	step := func(what string, want Status, state string) {
		t.Helper()
		if got := h.tick(); got != want || prState(h, "prc") != state {
			t.Errorf("%s: %v in %s, want %v in %s", what, got, prState(h, "prc"), want, state)
		}
	}
	step("first tick", Running, "RESUMED")
	h.a.BB.Set(pause, BoolValue(true))
	step("pause", Running, "PAUSED") // no ON_PAUSE child: straight on
	step("paused", Running, "PAUSED")
	h.a.BB.Set(resume, BoolValue(true))
	step("resume", Running, "RESUMED")
	step("resumed", Running, "RESUMED")
	if c := h.counts("resumed"); c.halt != 1 {
		t.Errorf("the RESUMED child was halted %d times, want 1 (at the pause)", c.halt)
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
	pause, _ := h.tree.Slot("pause")
	resume, _ := h.tree.Slot("resume")
	step := func(what string, want Status, state string) {
		t.Helper()
		if got := h.tick(); got != want || prState(h, "prc") != state {
			t.Errorf("%s: %v in %s, want %v in %s", what, got, prState(h, "prc"), want, state)
		}
	}
	step("1: resumed", Running, "RESUMED")
	h.a.BB.Set(pause, BoolValue(true))
	step("2: pause requested, ON_PAUSE runs", Running, "ON_PAUSE")
	step("3: ON_PAUSE succeeds", Running, "PAUSED")
	step("4: PAUSED succeeds: keeps ticking", Running, "PAUSED")
	h.a.BB.Set(pause, BoolValue(true))
	step("5: pause again is refused", Running, "PAUSED")
	h.a.BB.Set(resume, BoolValue(true))
	step("6: resume, ON_RESUME fails", Failure, "ON_RESUME")
	h.a.HaltAll()
	step("7: after the halt", Running, "RESUMED")
	step("8: resumed", Running, "RESUMED")
	step("9: RESUMED succeeds", Success, "RESUMED")
}

func TestPauseResumeChildCount(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("PauseResumeController", "", kv{"pause_service_name": "p", "resume_service_name": "r"})))
	wantProblems(t, ps, "/trees/main", "PauseResumeController needs at least 1 child, got 0")
}
