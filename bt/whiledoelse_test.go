package bt

import "testing"

// WhileDoElse as BehaviorTree.CPP has it (gtest_while_do_else.cpp).
func TestWhileDoElse(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "ConditionTrue_DoBranch",
			tree:   nd("WhileDoElse", "w", nil, sc("cond", "S"), sc("do", "S"), sc("else", "S")),
			want:   "S",
			counts: map[string]counts{"do": {1, 1, 1, 0}, "else": {}},
		},
		{
			name:   "ConditionFalse_ElseBranch",
			tree:   nd("WhileDoElse", "w", nil, sc("cond", "F"), sc("do", "S"), sc("else", "S")),
			want:   "S",
			counts: map[string]counts{"do": {}, "else": {1, 1, 1, 0}},
		},
		{
			name:   "ConditionFalse_TwoChildren_ReturnsFailure",
			tree:   nd("WhileDoElse", "w", nil, sc("cond", "F"), sc("do", "S")),
			want:   "F",
			counts: map[string]counts{"do": {}},
		},
		{
			name: "DoBranchFails",
			tree: nd("WhileDoElse", "w", nil, sc("cond", "S"), sc("do", "F"), sc("else", "S")),
			want: "F",
		},
		{
			name: "ElseBranchFails",
			tree: nd("WhileDoElse", "w", nil, sc("cond", "F"), sc("do", "S"), sc("else", "F")),
			want: "F",
		},
		{
			// ConditionChanges_HaltsElse: the condition is ticked on every
			// tick; when it turns true the running else branch is halted
			// and the do branch runs.
			name:   "ConditionChanges_HaltsElse",
			tree:   nd("WhileDoElse", "w", nil, tl("cond", "FS"), sc("do", "S"), sc("else", "R")),
			want:   "RS",
			counts: map[string]counts{"cond": {2, 2, 2, 0}, "do": {1, 1, 1, 0}, "else": {1, 1, 0, 1}},
		},
		{
			name:   "ConditionChanges_HaltsDo",
			tree:   nd("WhileDoElse", "w", nil, tl("cond", "SF"), sc("do", "R"), sc("else", "S")),
			want:   "RS",
			counts: map[string]counts{"do": {1, 1, 0, 1}, "else": {1, 1, 1, 0}},
		},
		{
			name:   "ConditionRunning",
			tree:   nd("WhileDoElse", "w", nil, sc("cond", "RS"), sc("do", "S"), sc("else", "S")),
			want:   "RS",
			counts: map[string]counts{"cond": {1, 2, 1, 0}, "do": {1, 1, 1, 0}},
		},
	})
}
