package nav2

import "testing"

// RecoveryNode follows Nav2: the second child is the recovery of the
// first, tried up to `retries` times per activation.
func TestRecoveryNode(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			Name:   "first child succeeds",
			Tree:   nd("RecoveryNode", "root", nil, sc("a", "S"), sc("rec", "S")),
			Want:   "S",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "rec": {}},
		},
		{
			// a fails, the recovery succeeds and a runs again in the same
			// tick.
			Name:   "recovery then success in one tick",
			Tree:   nd("RecoveryNode", "root", nil, sc("a", "F|S"), sc("rec", "S")),
			Want:   "S",
			Counts: map[string]counts{"a": {2, 2, 2, 0}, "rec": {1, 1, 1, 0}},
		},
		{
			Name:   "retries run out",
			Tree:   nd("RecoveryNode", "root", kv{"retries": 2}, sc("a", "F"), sc("rec", "S")),
			Want:   "F",
			Counts: map[string]counts{"a": {3, 3, 3, 0}, "rec": {2, 2, 2, 0}},
		},
		{
			Name:   "zero retries",
			Tree:   nd("RecoveryNode", "root", kv{"retries": 0}, sc("a", "F"), sc("rec", "S")),
			Want:   "F",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "rec": {}},
		},
		{
			Name:   "recovery fails",
			Tree:   nd("RecoveryNode", "root", kv{"retries": 5}, sc("a", "F"), sc("rec", "F")),
			Want:   "F",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "rec": {1, 1, 1, 0}},
		},
		{
			// tick 1: a F, rec R. tick 2: rec S, a (reopened) R. tick 3: a S.
			Name:   "running recovery, then running first child",
			Tree:   nd("RecoveryNode", "root", kv{"number_of_retries": 1}, sc("a", "F|RS"), sc("rec", "RS")),
			Want:   "RRS",
			Counts: map[string]counts{"a": {2, 3, 2, 0}, "rec": {1, 2, 1, 0}},
		},
		{
			Name:   "error of the first child",
			Tree:   nd("RecoveryNode", "root", nil, sc("a", "E"), sc("rec", "S")),
			Want:   "E",
			Counts: map[string]counts{"rec": {}},
		},
		{
			Name:   "error of the recovery",
			Tree:   nd("RecoveryNode", "root", nil, sc("a", "F"), sc("rec", "E")),
			Want:   "E",
			Counts: map[string]counts{"a": {1, 1, 1, 0}, "rec": {1, 1, 1, 0}},
		},
		{
			// Retries are counted per activation: each activation may
			// recover once.
			Name:   "retries reset when it reopens",
			Tree:   nd("RecoveryNode", "root", nil, sc("a", "F|S|F|S"), sc("rec", "S")),
			Want:   "SS",
			Counts: map[string]counts{"a": {4, 4, 4, 0}, "rec": {2, 2, 2, 0}},
		},
		{
			Name:   "Recovery alias",
			Tree:   nd("Recovery", "root", nil, sc("a", "F|S"), sc("rec", "S")),
			Want:   "S",
			Counts: map[string]counts{"rec": {1, 1, 1, 0}},
		},
	})
}

func TestRecoveryNodeTakesTwoChildren(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("RecoveryNode", "", nil, sc("a", "S")),
		nd("RecoveryNode", "", nil, sc("a", "S"), sc("b", "S"), sc("c", "S")))))
	wantProblems(t, ps,
		"/trees/main/children/0", "RecoveryNode takes exactly 2 children, got 1",
		"/trees/main/children/1/children", "RecoveryNode takes at most 2 children, got 3")
}
