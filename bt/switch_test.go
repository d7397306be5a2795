package bt

import "testing"

// Switch2 as BehaviorTree.CPP has it (gtest_switch.cpp: variable {my_var},
// case_1 "1", case_2 "42", actions that run for a while).
func TestSwitch(t *testing.T) {
	sw := func(v any) kv { return kv{"variable": v, "case_1": "1", "case_2": 42} }
	runTickCases(t, []tickCase{
		{
			name:   "DefaultCase",
			tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RS"), sc("a42", "RS"), sc("def", "RS")),
			want:   "RS",
			counts: map[string]counts{"a1": {}, "a42": {}, "def": {1, 2, 1, 0}},
		},
		{
			name:   "Case1",
			tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RS"), sc("a42", "RS"), sc("def", "RS")),
			bb:     kv{"my_var": "1"},
			want:   "RS",
			counts: map[string]counts{"a1": {1, 2, 1, 0}, "a42": {}, "def": {}},
		},
		{
			name:   "Case2",
			tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RS"), sc("a42", "RS"), sc("def", "RS")),
			bb:     kv{"my_var": "42"},
			want:   "RS",
			counts: map[string]counts{"a1": {}, "a42": {1, 2, 1, 0}, "def": {}},
		},
		{
			name:   "CaseNone",
			tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RS"), sc("a42", "RS"), sc("def", "RS")),
			bb:     kv{"my_var": "none"},
			want:   "RS",
			counts: map[string]counts{"def": {1, 2, 1, 0}},
		},
		{
			name:   "ActionFailure",
			tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RF"), sc("a42", "RS"), sc("def", "RS")),
			bb:     kv{"my_var": "1"},
			want:   "RF",
			counts: map[string]counts{"a1": {1, 2, 1, 0}},
		},
		{
			name:   "numbers compare as numbers",
			tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "S"), sc("a42", "S"), sc("def", "S")),
			bb:     kv{"my_var": 42.0},
			want:   "S",
			counts: map[string]counts{"a42": {1, 1, 1, 0}},
		},
		{
			// SwitchStringEquality.RejectsTrailingCharacters.
			name:   "trailing characters do not match",
			tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "S"), sc("a42", "S"), sc("def", "S")),
			bb:     kv{"my_var": "42abc"},
			want:   "S",
			counts: map[string]counts{"a42": {}, "def": {1, 1, 1, 0}},
		},
	})
}

// SwitchTest.CaseSwitchToDefault: the variable changes while a case
// runs; the switch notices at its next tick, halts that case and runs the
// default.
func TestSwitchToDefault(t *testing.T) {
	h := newHarness(t, nd("Switch2", "sw", kv{"variable": "{my_var}", "case_1": "1", "case_2": "42"},
		sc("a1", "R"), sc("a42", "R"), sc("def", "RRS")), withBB(kv{"my_var": "1"}))
	if got := h.run(2); got != "RR" {
		t.Fatalf("statuses %s, want RR", got)
	}
	s, _ := h.tree.Slot("my_var")
	h.a.BB.Set(s, StringValue(""))
	if got := h.run(3); got != "RRS" {
		t.Fatalf("statuses %s, want RRS", got)
	}
	if c := h.counts("a1"); c != (counts{1, 2, 0, 1}) {
		t.Errorf("a1: %v", c)
	}
	if c := h.counts("def"); c != (counts{1, 3, 1, 0}) {
		t.Errorf("def: %v", c)
	}
}

func TestSwitchEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"1", "1", true}, {"1", "1.0", true}, {"42", "42abc", false}, {"0.1", "0.10000001", true},
		{"a", "b", false}, {"", "", true}, {"1e3", "1000", true},
	} {
		if got := switchEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("switchEqual(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}
