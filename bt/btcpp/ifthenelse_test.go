package btcpp

import "testing"

// IfThenElse as BehaviorTree.CPP has it (gtest_if_then_else.cpp).
func TestIfThenElse(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "ConditionTrue_ThenBranch",
			Tree:   nd("IfThenElse", "ite", nil, sc("cond", "S"), sc("then", "S"), sc("else", "S")),
			Want:   "S",
			Counts: map[string]counts{"then": {1, 1, 1, 0}, "else": {}},
		},
		{
			Name:   "ConditionFalse_ElseBranch",
			Tree:   nd("IfThenElse", "ite", nil, sc("cond", "F"), sc("then", "S"), sc("else", "S")),
			Want:   "S",
			Counts: map[string]counts{"then": {}, "else": {1, 1, 1, 0}},
		},
		{
			Name:   "ConditionFalse_TwoChildren_ReturnsFailure",
			Tree:   nd("IfThenElse", "ite", nil, sc("cond", "F"), sc("then", "S")),
			Want:   "F",
			Counts: map[string]counts{"then": {}},
		},
		{
			Name: "ThenBranchFails",
			Tree: nd("IfThenElse", "ite", nil, sc("cond", "S"), sc("then", "F"), sc("else", "S")),
			Want: "F",
		},
		{
			Name: "ElseBranchFails",
			Tree: nd("IfThenElse", "ite", nil, sc("cond", "F"), sc("then", "S"), sc("else", "F")),
			Want: "F",
		},
		{
			// ConditionRunning: the condition runs first, then the branch.
			Name:   "ConditionRunning",
			Tree:   nd("IfThenElse", "ite", nil, sc("cond", "RS"), sc("then", "S"), sc("else", "S")),
			Want:   "RS",
			Counts: map[string]counts{"cond": {1, 2, 1, 0}, "then": {1, 1, 1, 0}},
		},
		{
			// The condition is not re-evaluated while the branch runs.
			Name:   "the branch runs without the condition",
			Tree:   nd("IfThenElse", "ite", nil, tl("cond", "SF"), sc("then", "RRS"), sc("else", "S")),
			Want:   "RRS",
			Counts: map[string]counts{"cond": {1, 1, 1, 0}, "then": {1, 3, 1, 0}, "else": {}},
		},
		{
			// HaltBehavior: after a halt it starts again at the condition.
			Name: "HaltBehavior",
			Tree: nd("Priority", "root", nil, tl("guard", "FSF"),
				nd("IfThenElse", "ite", nil, sc("cond", "S"), sc("then", "R"), sc("else", "S"))),
			Want:   "RSR",
			Counts: map[string]counts{"cond": {2, 2, 2, 0}, "then": {2, 2, 0, 1}},
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
