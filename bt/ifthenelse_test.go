package bt

import "testing"

// IfThenElse as BehaviorTree.CPP has it (gtest_if_then_else.cpp).
func TestIfThenElse(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "ConditionTrue_ThenBranch",
			tree:   nd("IfThenElse", "ite", nil, sc("cond", "S"), sc("then", "S"), sc("else", "S")),
			want:   "S",
			counts: map[string]counts{"then": {1, 1, 1, 0}, "else": {}},
		},
		{
			name:   "ConditionFalse_ElseBranch",
			tree:   nd("IfThenElse", "ite", nil, sc("cond", "F"), sc("then", "S"), sc("else", "S")),
			want:   "S",
			counts: map[string]counts{"then": {}, "else": {1, 1, 1, 0}},
		},
		{
			name:   "ConditionFalse_TwoChildren_ReturnsFailure",
			tree:   nd("IfThenElse", "ite", nil, sc("cond", "F"), sc("then", "S")),
			want:   "F",
			counts: map[string]counts{"then": {}},
		},
		{
			name: "ThenBranchFails",
			tree: nd("IfThenElse", "ite", nil, sc("cond", "S"), sc("then", "F"), sc("else", "S")),
			want: "F",
		},
		{
			name: "ElseBranchFails",
			tree: nd("IfThenElse", "ite", nil, sc("cond", "F"), sc("then", "S"), sc("else", "F")),
			want: "F",
		},
		{
			// ConditionRunning: the condition runs first, then the branch.
			name:   "ConditionRunning",
			tree:   nd("IfThenElse", "ite", nil, sc("cond", "RS"), sc("then", "S"), sc("else", "S")),
			want:   "RS",
			counts: map[string]counts{"cond": {1, 2, 1, 0}, "then": {1, 1, 1, 0}},
		},
		{
			// The condition is not re-evaluated while the branch runs.
			name:   "the branch runs without the condition",
			tree:   nd("IfThenElse", "ite", nil, tl("cond", "SF"), sc("then", "RRS"), sc("else", "S")),
			want:   "RRS",
			counts: map[string]counts{"cond": {1, 1, 1, 0}, "then": {1, 3, 1, 0}, "else": {}},
		},
		{
			// HaltBehavior: after a halt it starts again at the condition.
			name: "HaltBehavior",
			tree: nd("Priority", "root", nil, tl("guard", "FSF"),
				nd("IfThenElse", "ite", nil, sc("cond", "S"), sc("then", "R"), sc("else", "S"))),
			want:   "RSR",
			counts: map[string]counts{"cond": {2, 2, 2, 0}, "then": {2, 2, 0, 1}},
		},
	})
}

func TestIfThenElseChildCount(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("IfThenElse", "", nil, sc("a", "S")),
		nd("WhileDoElse", "", nil, sc("b", "S"), sc("c", "S"), sc("d", "S"), sc("e", "S")))))
	wantProblems(t, ps,
		"/trees/main/children/0", "needs at least 2 children, got 1",
		"/trees/main/children/1/children", "takes at most 3 children, got 4")
}
