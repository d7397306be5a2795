package bt

import "testing"

func TestSet(t *testing.T) {
	h := newHarness(t, nd("Sequence", "root", nil,
		nd("Set", "num", kv{"key": "speed", "value": 0.5}),
		nd("Set", "str", kv{"key": "mode", "value": "auto"}),
		nd("SetBlackboard", "bool", kv{"output_key": "armed", "value": true}),
		nd("Set", "copy", kv{"key": "saved", "value": "{speed}"}),
		nd("Set", "list", kv{"key": "path", "value": []any{1.0, 2.0}}),
	))
	h.step = 40 * ms
	if st := h.tick(); st != Success {
		t.Fatalf("%v, want SUCCESS", st)
	}
	want := map[string]any{"speed": 0.5, "mode": "auto", "armed": true, "saved": 0.5}
	for key, v := range want {
		slot, ok := h.tree.Slot(key)
		if !ok {
			t.Fatalf("no slot for %s", key)
		}
		if got := h.a.BB.Get(slot).Interface(); got != v {
			t.Errorf("%s = %v, want %v", key, got, v)
		}
		if ts, _ := h.a.BB.Stamp(slot); ts != 40*ms {
			t.Errorf("%s stamped %d, want the tick time %d", key, ts, 40*ms)
		}
	}
	path, _ := h.tree.Slot("path")
	if v := h.a.BB.Get(path); v.Kind() != KindOther || v.String() != "[1 2]" {
		t.Errorf("path = %v (%v), want the list", v, v.Kind())
	}
}

func TestSetCopyReadsAtTick(t *testing.T) {
	h := newHarness(t, nd("Set", "copy", kv{"key": "target", "value": "{source}"}), withBB(kv{"source": "a"}))
	src, _ := h.tree.Slot("source")
	dst, _ := h.tree.Slot("target")
	h.tick()
	h.a.BB.Set(src, StringValue("b"))
	h.tick()
	if got := h.a.BB.Get(dst).String(); got != "b" {
		t.Errorf("target = %q, want the latest source b", got)
	}
}

// BT.CPP's SetBlackboard fails when the entry it copies does not exist
// (gtest_blackboard.cpp SetBlackboard_WithPortRemapping without its set).
func TestSetCopyMissingFails(t *testing.T) {
	h := newHarness(t, nd("Set", "copy", kv{"key": "target", "value": "{source}"}))
	if st := h.tick(); st != Failure {
		t.Errorf("%v, want FAILURE", st)
	}
	dst, _ := h.tree.Slot("target")
	if k := h.a.BB.Get(dst).Kind(); k != KindNone {
		t.Errorf("target written (%v) although the source is missing", k)
	}
}

func TestSetNodeScope(t *testing.T) {
	// "node:x" is private to the node: two Sets write two slots.
	tree := compileTree(t, nd("Sequence", "", nil,
		nd("Set", "", kv{"key": "node:x", "value": 1}),
		nd("Set", "", kv{"key": "node:x", "value": 2})))
	n := 0
	for _, k := range tree.Keys() {
		if k.Name == "x" && k.Scope == ScopeNode {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d node-scoped slots for x, want 2: %v", n, tree.Keys())
	}
}

func TestSetProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Set", "", kv{"key": "x"}),
		nd("Set", "", kv{"value": 1}),
		nd("Set", "", kv{"key": "", "value": 1}),
	)))
	wantProblems(t, ps,
		"/trees/main/children/0/params/value", `missing required parameter "value"`,
		"/trees/main/children/1/params/key", `missing required parameter "key"`,
		"/trees/main/children/2/params/key", "empty blackboard key")
}
