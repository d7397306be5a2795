package btcpp

import "testing"

// WhileDoElse as BehaviorTree.CPP has it (gtest_while_do_else.cpp).
func TestWhileDoElse(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "ConditionTrue_DoBranch",
			Tree:   nd("WhileDoElse", "w", nil, sc("cond", "S"), sc("do", "S"), sc("else", "S")),
			Want:   "S",
			Counts: map[string]counts{"do": {1, 1, 1, 0}, "else": {}},
		},
		{
			Name:   "ConditionFalse_ElseBranch",
			Tree:   nd("WhileDoElse", "w", nil, sc("cond", "F"), sc("do", "S"), sc("else", "S")),
			Want:   "S",
			Counts: map[string]counts{"do": {}, "else": {1, 1, 1, 0}},
		},
		{
			Name:   "ConditionFalse_TwoChildren_ReturnsFailure",
			Tree:   nd("WhileDoElse", "w", nil, sc("cond", "F"), sc("do", "S")),
			Want:   "F",
			Counts: map[string]counts{"do": {}},
		},
		{
			Name: "DoBranchFails",
			Tree: nd("WhileDoElse", "w", nil, sc("cond", "S"), sc("do", "F"), sc("else", "S")),
			Want: "F",
		},
		{
			Name: "ElseBranchFails",
			Tree: nd("WhileDoElse", "w", nil, sc("cond", "F"), sc("do", "S"), sc("else", "F")),
			Want: "F",
		},
		{
			// ConditionChanges_HaltsElse: the condition is ticked on every
			// tick; when it turns true the running else branch is halted
			// and the do branch runs.
			Name:   "ConditionChanges_HaltsElse",
			Tree:   nd("WhileDoElse", "w", nil, tl("cond", "FS"), sc("do", "S"), sc("else", "R")),
			Want:   "RS",
			Counts: map[string]counts{"cond": {2, 2, 2, 0}, "do": {1, 1, 1, 0}, "else": {1, 1, 0, 1}},
		},
		{
			Name:   "ConditionChanges_HaltsDo",
			Tree:   nd("WhileDoElse", "w", nil, tl("cond", "SF"), sc("do", "R"), sc("else", "S")),
			Want:   "RS",
			Counts: map[string]counts{"do": {1, 1, 0, 1}, "else": {1, 1, 1, 0}},
		},
		{
			Name:   "ConditionRunning",
			Tree:   nd("WhileDoElse", "w", nil, sc("cond", "RS"), sc("do", "S"), sc("else", "S")),
			Want:   "RS",
			Counts: map[string]counts{"cond": {1, 2, 1, 0}, "do": {1, 1, 1, 0}},
		},
	})
}
