package bt

import "testing"

// RecoveryNode follows Nav2: the second child is the recovery of the
// first, tried up to `retries` times per activation.
func TestRecoveryNode(t *testing.T) {
	runTickCases(t, []tickCase{
		{
			name:   "first child succeeds",
			tree:   nd("RecoveryNode", "root", nil, sc("a", "S"), sc("rec", "S")),
			want:   "S",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "rec": {}},
		},
		{
			// a fails, the recovery succeeds and a runs again in the same
			// tick.
			name:   "recovery then success in one tick",
			tree:   nd("RecoveryNode", "root", nil, sc("a", "F|S"), sc("rec", "S")),
			want:   "S",
			counts: map[string]counts{"a": {2, 2, 2, 0}, "rec": {1, 1, 1, 0}},
		},
		{
			name:   "retries run out",
			tree:   nd("RecoveryNode", "root", kv{"retries": 2}, sc("a", "F"), sc("rec", "S")),
			want:   "F",
			counts: map[string]counts{"a": {3, 3, 3, 0}, "rec": {2, 2, 2, 0}},
		},
		{
			name:   "zero retries",
			tree:   nd("RecoveryNode", "root", kv{"retries": 0}, sc("a", "F"), sc("rec", "S")),
			want:   "F",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "rec": {}},
		},
		{
			name:   "recovery fails",
			tree:   nd("RecoveryNode", "root", kv{"retries": 5}, sc("a", "F"), sc("rec", "F")),
			want:   "F",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "rec": {1, 1, 1, 0}},
		},
		{
			// tick 1: a F, rec R. tick 2: rec S, a (reopened) R. tick 3: a S.
			name:   "running recovery, then running first child",
			tree:   nd("RecoveryNode", "root", kv{"number_of_retries": 1}, sc("a", "F|RS"), sc("rec", "RS")),
			want:   "RRS",
			counts: map[string]counts{"a": {2, 3, 2, 0}, "rec": {1, 2, 1, 0}},
		},
		{
			name:   "error of the first child",
			tree:   nd("RecoveryNode", "root", nil, sc("a", "E"), sc("rec", "S")),
			want:   "E",
			counts: map[string]counts{"rec": {}},
		},
		{
			name:   "error of the recovery",
			tree:   nd("RecoveryNode", "root", nil, sc("a", "F"), sc("rec", "E")),
			want:   "E",
			counts: map[string]counts{"a": {1, 1, 1, 0}, "rec": {1, 1, 1, 0}},
		},
		{
			// Retries are counted per activation: each activation may
			// recover once.
			name:   "retries reset when it reopens",
			tree:   nd("RecoveryNode", "root", nil, sc("a", "F|S|F|S"), sc("rec", "S")),
			want:   "SS",
			counts: map[string]counts{"a": {4, 4, 4, 0}, "rec": {2, 2, 2, 0}},
		},
		{
			name:   "Recovery alias",
			tree:   nd("Recovery", "root", nil, sc("a", "F|S"), sc("rec", "S")),
			want:   "S",
			counts: map[string]counts{"rec": {1, 1, 1, 0}},
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
