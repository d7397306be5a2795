package btcpp

import "github.com/botd-project/botd/bt"

import "testing"

// Switch2 as BehaviorTree.CPP has it (gtest_switch.cpp: variable {my_var},
// case_1 "1", case_2 "42", actions that run for a while).
func TestSwitch(t *testing.T) {
	sw := func(v any) kv { return kv{"variable": v, "case_1": "1", "case_2": 42} }
	runTickCases(t, []tickCase{
		{
			Name:   "DefaultCase",
			Tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RS"), sc("a42", "RS"), sc("def", "RS")),
			Want:   "RS",
			Counts: map[string]counts{"a1": {}, "a42": {}, "def": {1, 2, 1, 0}},
		},
		{
			Name:   "Case1",
			Tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RS"), sc("a42", "RS"), sc("def", "RS")),
			BB:     kv{"my_var": "1"},
			Want:   "RS",
			Counts: map[string]counts{"a1": {1, 2, 1, 0}, "a42": {}, "def": {}},
		},
		{
			Name:   "Case2",
			Tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RS"), sc("a42", "RS"), sc("def", "RS")),
			BB:     kv{"my_var": "42"},
			Want:   "RS",
			Counts: map[string]counts{"a1": {}, "a42": {1, 2, 1, 0}, "def": {}},
		},
		{
			Name:   "CaseNone",
			Tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RS"), sc("a42", "RS"), sc("def", "RS")),
			BB:     kv{"my_var": "none"},
			Want:   "RS",
			Counts: map[string]counts{"def": {1, 2, 1, 0}},
		},
		{
			Name:   "ActionFailure",
			Tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "RF"), sc("a42", "RS"), sc("def", "RS")),
			BB:     kv{"my_var": "1"},
			Want:   "RF",
			Counts: map[string]counts{"a1": {1, 2, 1, 0}},
		},
		{
			Name:   "numbers compare as numbers",
			Tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "S"), sc("a42", "S"), sc("def", "S")),
			BB:     kv{"my_var": 42.0},
			Want:   "S",
			Counts: map[string]counts{"a42": {1, 1, 1, 0}},
		},
		{
			// SwitchStringEquality.RejectsTrailingCharacters.
			Name:   "trailing characters do not match",
			Tree:   nd("Switch2", "sw", sw("{my_var}"), sc("a1", "S"), sc("a42", "S"), sc("def", "S")),
			BB:     kv{"my_var": "42abc"},
			Want:   "S",
			Counts: map[string]counts{"a42": {}, "def": {1, 1, 1, 0}},
		},
	})
}

// SwitchTest.CaseSwitchToDefault: the variable changes while a case
// runs; the switch notices at its next tick, halts that case and runs the
// default.
func TestSwitchToDefault(t *testing.T) {
	h := newHarness(t, nd("Switch2", "sw", kv{"variable": "{my_var}", "case_1": "1", "case_2": "42"},
		sc("a1", "R"), sc("a42", "R"), sc("def", "RRS")), withBB(kv{"my_var": "1"}))
	if got := h.Run(2); got != "RR" {
		t.Fatalf("statuses %s, want RR", got)
	}
	s, _ := h.Tree.Slot("my_var")
	h.A.BB.Set(s, bt.StringValue(""))
	if got := h.Run(3); got != "RRS" {
		t.Fatalf("statuses %s, want RRS", got)
	}
	if c := h.Counts("a1"); c != (counts{1, 2, 0, 1}) {
		t.Errorf("a1: %v", c)
	}
	if c := h.Counts("def"); c != (counts{1, 3, 1, 0}) {
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
