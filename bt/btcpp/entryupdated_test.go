package btcpp

import "github.com/botd-project/botd/bt"

import "testing"

// WasEntryUpdated and WaitValueUpdate as BehaviorTree.CPP has them
// (gtest_updates.cpp): a write is seen once.
func TestEntryUpdated(t *testing.T) {
	h := newHarness(t, nd("WasEntryUpdated", "upd", kv{"entry": "{k}"}), withKeys("k"))
	k, _ := h.Tree.Slot("k")
	if got := h.Run(1); got != "F" {
		t.Fatalf("never written: %s, want F", got)
	}
	h.A.BB.Set(k, bt.NumberValue(1)) // written before the next tick
	if got := h.Run(2); got != "SF" {
		t.Fatalf("after a write: %s, want SF", got)
	}
	h.Now += h.Step
	h.A.BB.SetAt(k, bt.NumberValue(1), h.Now) // the same value, written again
	if got := h.Run(1); got != "S" {
		t.Fatalf("rewritten: %s, want S", got)
	}
}

func TestWaitValueUpdate(t *testing.T) {
	h := newHarness(t, nd("WaitValueUpdate", "wait", kv{"entry": "k"}, sc("child", "RS")), withKeys("k"))
	k, _ := h.Tree.Slot("k")
	if got := h.Run(2); got != "RR" {
		t.Fatalf("before the write: %s", got)
	}
	if c := h.Counts("child"); c.Tick != 0 {
		t.Fatalf("child ticked before the write: %v", c)
	}
	h.A.BB.Set(k, bt.StringValue("go"))
	if got := h.Run(2); got != "RS" {
		t.Fatalf("after the write: %s, want RS", got)
	}
}

func TestUnsetBlackboard(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name: "unset then check",
			Tree: nd("Sequence", "root", nil, nd("UnsetBlackboard", "", kv{"key": "{a}"}),
				nd("Inverter", "", nil, nd("WasEntryUpdated", "", kv{"entry": "a"}))),
			BB:   kv{"a": 1},
			Want: "S",
		},
	})
}

// TestNode (BehaviorTree.CPP's actions/test_node.cpp): the delay, the
// status and the scripts.
func TestTestNode(t *testing.T) {
	runTickCases(t, []tickCase{
		{Name: "immediate", Tree: nd("TestNode", "t", nil), Want: "S"},
		{Name: "failure after 30 ms", Tree: nd("TestNode", "t", kv{"async_delay": 30, "return_status": "FAILURE"}), Want: "RRRF"},
		{
			Name: "scripts",
			Tree: nd("Sequence", "root", nil,
				nd("TestNode", "t", kv{"success_script": "done := true", "post_script": "count := 1"}),
				nd("ScriptCondition", "", kv{"code": "done && count == 1"})),
			Want: "S",
		},
		{
			Name: "failure script",
			Tree: nd("Sequence", "root", nil,
				nd("Inverter", "", nil, nd("TestNode", "t", kv{"return_status": "FAILURE", "failure_script": "failed := true"})),
				nd("ScriptCondition", "", kv{"code": "failed"})),
			Want: "S",
		},
	})
}
