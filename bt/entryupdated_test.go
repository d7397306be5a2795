package bt

import "testing"

// WasEntryUpdated and WaitValueUpdate as BehaviorTree.CPP has them
// (gtest_updates.cpp): a write is seen once.
func TestEntryUpdated(t *testing.T) {
	h := newHarness(t, nd("WasEntryUpdated", "upd", kv{"entry": "{k}"}), withKeys("k"))
	k, _ := h.tree.Slot("k")
	if got := h.run(1); got != "F" {
		t.Fatalf("never written: %s, want F", got)
	}
	h.a.BB.Set(k, NumberValue(1)) // written before the next tick
	if got := h.run(2); got != "SF" {
		t.Fatalf("after a write: %s, want SF", got)
	}
	h.now += h.step
	h.a.BB.SetAt(k, NumberValue(1), h.now) // the same value, written again
	if got := h.run(1); got != "S" {
		t.Fatalf("rewritten: %s, want S", got)
	}
}

func TestWaitValueUpdate(t *testing.T) {
	h := newHarness(t, nd("WaitValueUpdate", "wait", kv{"entry": "k"}, sc("child", "RS")), withKeys("k"))
	k, _ := h.tree.Slot("k")
	if got := h.run(2); got != "RR" {
		t.Fatalf("before the write: %s", got)
	}
	if c := h.counts("child"); c.tick != 0 {
		t.Fatalf("child ticked before the write: %v", c)
	}
	h.a.BB.Set(k, StringValue("go"))
	if got := h.run(2); got != "RS" {
		t.Fatalf("after the write: %s, want RS", got)
	}
}

func TestUnsetBlackboard(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name: "unset then check",
			tree: nd("Sequence", "root", nil, nd("UnsetBlackboard", "", kv{"key": "{a}"}),
				nd("Inverter", "", nil, nd("WasEntryUpdated", "", kv{"entry": "a"}))),
			bb:   kv{"a": 1},
			want: "S",
		},
	})
}

// TestNode (BehaviorTree.CPP's actions/test_node.cpp): the delay, the
// status and the scripts.
func TestTestNode(t *testing.T) {
	runTickCases(t, []tickCase{
		{name: "immediate", tree: nd("TestNode", "t", nil), want: "S"},
		{name: "failure after 30 ms", tree: nd("TestNode", "t", kv{"async_delay": 30, "return_status": "FAILURE"}), want: "RRRF"},
		{
			name: "scripts",
			tree: nd("Sequence", "root", nil,
				nd("TestNode", "t", kv{"success_script": "done := true", "post_script": "count := 1"}),
				nd("ScriptCondition", "", kv{"code": "done && count == 1"})),
			want: "S",
		},
		{
			name: "failure script",
			tree: nd("Sequence", "root", nil,
				nd("Inverter", "", nil, nd("TestNode", "t", kv{"return_status": "FAILURE", "failure_script": "failed := true"})),
				nd("ScriptCondition", "", kv{"code": "failed"})),
			want: "S",
		},
	})
}
