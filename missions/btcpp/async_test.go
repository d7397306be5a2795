package btcpp

import (
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// BehaviorTree.CPP 4's AsyncSequence, from tests/gtest_reactive.cpp
// (TEST Reactive.RunningChildren, Reactive.TwoAsyncNodesInReactiveSequence),
// and AsyncFallback, its mirror.
func TestBTCPPAsyncSequence(t *testing.T) {
	// RunningChildren: the ReactiveSequence ticks the Sequence again on
	// every tick; the AsyncSequence returns RUNNING after each child that
	// started and succeeded, so D, E, F run on three ticks.
	r := runBTCPP(t, btcppDoc(`<ReactiveSequence>
	  <Sequence name="first">`+test("A_", "")+test("B_", "")+test("C_", "")+`</Sequence>
	  <AsyncSequence name="second">`+test("D_", "")+test("E_", "")+test("F_", "")+`</AsyncSequence>
	</ReactiveSequence>`), withCounters(map[string]any{"E_": 0, "F_": 0}))
	var got []bt.Status
	for st := bt.Running; st == bt.Running && len(got) < 100; {
		st = r.tick()
		got = append(got, st)
	}
	if len(got) != 3 || got[2] != bt.Success {
		t.Errorf("statuses %v, want RUNNING, RUNNING, SUCCESS", got)
	}
	r.wantKeys("A_", "3", "B_", "3", "C_", "3", "D_", "1", "E_", "1", "F_", "1")

	// A child that was RUNNING and then succeeds does not yield: the next
	// child starts in the same tick.
	r = runBTCPP(t, btcppDoc(`<AsyncSequence><Sleep msec="5"/>`+test("A_", "")+test("B_", "")+`</AsyncSequence>`), withCounters(nil))
	wantStatus(t, "tick 1", r.tick(), bt.Running) // Sleep runs
	wantStatus(t, "tick 2", r.tick(), bt.Running) // Sleep done, A starts and succeeds: yield
	r.wantKeys("A_", "1", "B_", "0")
	wantStatus(t, "tick 3", r.tick(), bt.Success)
	r.wantKeys("A_", "1", "B_", "1")

	// A failure ends it; the next activation starts at the first child.
	r = runBTCPP(t, btcppDoc(`<Sequence><Script code="n:=0"/><RetryUntilSuccessful num_attempts="2"><AsyncSequence>`+
		test("A_", "")+`<ScriptCondition code="n >= 1"/><Script code="n += 1"/></AsyncSequence></RetryUntilSuccessful></Sequence>`), withCounters(nil))
	wantStatus(t, "tick 1", r.tick(), bt.Running) // A yields
	wantStatus(t, "tick 2", r.tick(), bt.Running) // the condition fails: the retry starts again, A yields
	r.wantKeys("A_", "2")

	// AsyncFallback yields after a child that failed.
	r = runBTCPP(t, btcppDoc(`<AsyncFallback><Inverter>`+test("A_", "")+`</Inverter>`+test("B_", "")+`</AsyncFallback>`), withCounters(nil))
	wantStatus(t, "fallback tick 1", r.tick(), bt.Running)
	r.wantKeys("A_", "1", "B_", "0")
	wantStatus(t, "fallback tick 2", r.tick(), bt.Success)
	r.wantKeys("A_", "1", "B_", "1")

	// TwoAsyncNodesInReactiveSequence: BT.CPP refuses the tree.
	_, err := missions.Decode([]byte(btcppDoc(`<ReactiveSequence>
	  <AsyncSequence>` + test("A_", "") + test("B_", "") + `</AsyncSequence>
	  <AsyncSequence>` + test("D_", "") + test("E_", "") + `</AsyncSequence>
	</ReactiveSequence>`)))
	if err == nil || !strings.Contains(err.Error(), "more than one AsyncSequence") {
		t.Errorf("two AsyncSequences under a ReactiveSequence: %v", err)
	}
}

// BehaviorTree.CPP 3's BlackboardCheckInt, BlackboardCheckDouble,
// BlackboardCheckString and BlackboardCheckBool (elsabot's and
// CoreSense4Home's trees): the child runs while the two values are equal.
func TestBTCPPBlackboardCheck(t *testing.T) {
	for _, tc := range []struct {
		name, node string
		bb         map[string]any
		want       bt.Status
		ticked     string
	}{
		{"int equal", `<BlackboardCheckInt value_A="{x}" value_B="3" return_on_mismatch="FAILURE">`, map[string]any{"x": 3}, bt.Success, "1"},
		{"int differs", `<BlackboardCheckInt value_A="{x}" value_B="3" return_on_mismatch="SUCCESS">`, map[string]any{"x": 4}, bt.Success, "0"},
		{"int not whole", `<BlackboardCheckInt value_A="{x}" value_B="{x}">`, map[string]any{"x": 2.5}, bt.Failure, "0"},
		{"double", `<BlackboardCheckDouble value_A="{x}" value_B="2.5">`, map[string]any{"x": 2.5}, bt.Success, "1"},
		{"string", `<BlackboardCheckString value_A="{s}" value_B="cat" return_on_mismatch="FAILURE">`, map[string]any{"s": "cat"}, bt.Success, "1"},
		{"string differs", `<BlackboardCheckString value_A="{s}" value_B="dog">`, map[string]any{"s": "cat"}, bt.Failure, "0"},
		{"bool", `<BlackboardCheckBool value_A="{b}" value_B="1">`, map[string]any{"b": true}, bt.Success, "1"},
		{"missing key", `<BlackboardCheckInt value_A="{nope}" value_B="1" return_on_mismatch="RUNNING">`, map[string]any{"nope": nil}, bt.Running, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bb := withCounters(tc.bb)
			for k, v := range bb {
				if v == nil {
					delete(bb, k)
				}
			}
			r := runBTCPP(t, btcppDoc(tc.node+test("A_", "")+`</`+strings.Fields(tc.node[1:])[0]+`>`), bb)
			wantStatus(t, "status", r.tick(), tc.want)
			r.wantKeys("A_", tc.ticked)
		})
	}
	// A running child is halted once the values differ.
	r := runBTCPP(t, btcppDoc(`<BlackboardCheckInt value_A="{x}" value_B="1"><Sleep msec="1000" _onHalted="halted := true"/></BlackboardCheckInt>`),
		map[string]any{"x": 1, "halted": false})
	wantStatus(t, "tick 1", r.tick(), bt.Running)
	r.set("x", 2)
	wantStatus(t, "tick 2", r.tick(), bt.Failure)
	r.wantKeys("halted", "true")
}

// BehaviorTree.CPP 3.8's tests/gtest_blackboard_precondition.cpp: two
// SetBlackboards, then the check over AlwaysFailure with
// return_on_mismatch SUCCESS: FAILURE when the values are equal, SUCCESS
// when they differ.
func TestBlackboardPreconditionTest(t *testing.T) {
	for _, tc := range []struct {
		name, node, a, b string
		want             bt.Status
	}{
		{"IntEquals", "BlackboardCheckInt", "1", "1", bt.Failure},
		{"IntDoesNotEqual", "BlackboardCheckInt", "1", "2", bt.Success},
		{"DoubleEquals", "BlackboardCheckDouble", "1.1", "1.1", bt.Failure},
		{"DoubleDoesNotEqual", "BlackboardCheckDouble", "1.1", "2.1", bt.Success},
		{"StringEquals", "BlackboardCheckString", "foo", "foo", bt.Failure},
		{"StringDoesNotEqual", "BlackboardCheckString", "foo", "bar", bt.Success},
		{"BoolEquals", "BlackboardCheckBool", "true", "true", bt.Failure},
		{"BoolDoesNotEqual", "BlackboardCheckBool", "true", "false", bt.Success},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xml := `<root main_tree_to_execute = "MainTree" ><BehaviorTree ID="MainTree"><Sequence>
			  <SetBlackboard output_key="a" value="` + tc.a + `" />
			  <SetBlackboard output_key="b" value="` + tc.b + `" />
			  <` + tc.node + ` value_A="{a}" value_B="{b}" return_on_mismatch="SUCCESS"><AlwaysFailure /></` + tc.node + `>
			</Sequence></BehaviorTree></root>`
			r := runBTCPP(t, xml, nil)
			wantStatus(t, "status", r.tick(), tc.want)
		})
	}
}
