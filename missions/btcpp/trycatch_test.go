package btcpp

import (
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// TryCatch as BehaviorTree.CPP 4 has it: BT.CPP's tests/gtest_try_catch.cpp
// scenarios, named after their test cases. Its counting actions are
// Scripts counting in the blackboard (test), a RUNNING-then-X action is a
// Stub, and a counting RUNNING action a reactive sequence of a Script and
// Running.
func TestTryCatch(t *testing.T) {
	tc := func(attrs, body string) string { return btcppDoc(`<TryCatch` + attrs + `>` + body + `</TryCatch>`) }
	runningCount := func(k string) string {
		return `<ReactiveSequence><Script code="` + k + ` += 1"/><Running/></ReactiveSequence>`
	}
	for _, c := range []struct {
		name  string
		xml   string
		steps []bt.Status // statuses of successive ticks; bt.Idle: halt the tree
		keys  []string
	}{
		{"AllTryChildrenSucceed", tc("", test("A_", "")+test("B_", "")+test("C_", "")), []bt.Status{bt.Success},
			[]string{"A_", "1", "B_", "1", "C_", "0"}},
		{"FirstChildFails_CatchExecuted", tc("", `<AlwaysFailure/>`+test("A_", "")+test("B_", "")), []bt.Status{bt.Failure},
			[]string{"A_", "0", "B_", "1"}},
		{"SecondChildFails_CatchExecuted", tc("", test("A_", "")+`<AlwaysFailure/>`+test("B_", "")), []bt.Status{bt.Failure},
			[]string{"A_", "1", "B_", "1"}},
		{"CatchReturnsFailure_NodeStillReturnsFAILURE", tc("", `<AlwaysFailure/><AlwaysFailure/>`), []bt.Status{bt.Failure}, nil},
		{"CatchReturnsSuccess_NodeStillReturnsFAILURE", tc("", `<AlwaysFailure/><AlwaysSuccess/>`), []bt.Status{bt.Failure}, nil},
		{"TryChildRunning", tc("", `<Stub script="Running,Success"/>`+test("A_", "")), []bt.Status{bt.Running, bt.Success},
			[]string{"A_", "0"}},
		{"CatchChildRunning", tc("", `<AlwaysFailure/><Stub script="Running,Failure"/>`), []bt.Status{bt.Running, bt.Failure}, nil},
		{"ReExecuteAfterSuccess", tc("", test("A_", "")+test("B_", "")), []bt.Status{bt.Success, bt.Success},
			[]string{"A_", "2", "B_", "0"}},
		{"ReExecuteAfterFailure", tc("", `<Stub script="Failure,Success"/>`+test("A_", "")), []bt.Status{bt.Failure, bt.Success},
			[]string{"A_", "1"}},
		{"CatchOnHalt_Disabled", tc("", `<Running/>`+test("A_", "")), []bt.Status{bt.Running, bt.Idle},
			[]string{"A_", "0"}},
		{"CatchOnHalt_Enabled", tc(` catch_on_halt="true"`, `<Running/>`+test("A_", "")), []bt.Status{bt.Running, bt.Idle},
			[]string{"A_", "1"}},
		{"CatchOnHalt_NotTriggeredWhenAlreadyInCatch", tc(` catch_on_halt="true"`, `<AlwaysFailure/>`+runningCount("A_")),
			[]bt.Status{bt.Running, bt.Idle}, []string{"A_", "1"}},
		{"CatchOnHalt_RunningCatchIsHalted", tc(` catch_on_halt="true"`, `<Running/>`+runningCount("A_")),
			[]bt.Status{bt.Running, bt.Idle}, []string{"A_", "1"}},
		{"AsyncCatchCompletesInsideSequence", btcppDoc(`<Sequence><TryCatch><AlwaysFailure/><Stub script="Running:5,Success"/></TryCatch>` +
			test("A_", "") + `</Sequence>`), []bt.Status{bt.Running, bt.Running, bt.Running, bt.Running, bt.Running, bt.Failure},
			[]string{"A_", "0"}},
		{"SingleTryChild_Success", tc("", test("A_", "")+test("B_", "")), []bt.Status{bt.Success}, []string{"A_", "1", "B_", "0"}},
		{"ManyTryChildren_ThirdFails", tc("", test("A_", "")+test("B_", "")+`<AlwaysFailure/>`+test("C_", "")), []bt.Status{bt.Failure},
			[]string{"A_", "1", "B_", "1", "C_", "1"}},
		{"SkippedTryChildren", tc("", test("A_", `_skipIf="true"`)+test("B_", "")), []bt.Status{bt.Skipped},
			[]string{"A_", "0", "B_", "0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBTCPP(t, c.xml, withCounters(nil))
			for i, want := range c.steps {
				if want == bt.Idle {
					r.a.HaltAll()
					continue
				}
				wantStatus(t, "tick "+itoa(i+1), r.tick(), want)
			}
			r.wantKeys(c.keys...)
			if c.name == "CatchOnHalt_RunningCatchIsHalted" {
				for i := int32(0); i < int32(r.tree.Len()); i++ {
					if r.a.IsOpen(i) {
						t.Errorf("node %d still open after the halt", i)
					}
				}
			}
		})
	}
	// BT.CPP's MinimumTwoChildren_ParseTimeValidation.
	if _, err := missions.Load([]byte(btcppDoc(`<TryCatch><AlwaysSuccess/></TryCatch>`)), missions.Options{}); err == nil {
		t.Error("a TryCatch with one child loaded")
	}
}
