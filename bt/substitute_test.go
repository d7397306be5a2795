package bt

import (
	"reflect"
	"testing"
)

func TestStub(t *testing.T) {
	runTickCases(t, []tickCase{
		{name: "statuses over ticks", tree: nd("Stub", "s", kv{"script": "Running:3,Success"}), want: "RRRS"},
		{name: "the script goes on across activations", tree: nd("Stub", "s", kv{"script": "Failure,Running,Success"}), want: "FRS"},
		{name: "a duration", tree: nd("Stub", "s", kv{"script": "Running:25ms,Failure"}), want: "RRRF"},
		{name: "short forms", tree: nd("Stub", "s", kv{"script": "r:2, s"}), want: "RRS"},
		{
			name: "in a retry",
			tree: nd("RepeatUntilSuccess", "retry", kv{"count": 3}, nd("Stub", "s", kv{"script": "Failure:2,Success"})),
			want: "RRS",
		},
	})
	ps := compileProblems(t, mainSpec(nd("Stub", "", kv{"script": "Running:x,Maybe"})))
	wantProblems(t, ps, "/trees/main/params/script", "want a number of ticks or a duration")
}

func subSpec(root *NodeDef, subs ...Substitution) *Spec {
	s := mainSpec(root)
	s.Substitutions = subs
	return s
}

func sub(pattern, typ string, params kv) Substitution {
	return Substitution{Pattern: pattern, With: NodeDef{Type: typ, Params: params}}
}

func TestSubstitutions(t *testing.T) {
	reg := testRegistry()
	tree := nd("Sequence", "root", nil,
		nd("ComputePathToPose", "plan", kv{"goal": "{goal}", "planner_id": "GridBased"}),
		nd("DistanceTracker", "", kv{"distance": 1}, nd("FollowPath", "follow", nil)),
		nd("Wait", "pause", kv{"ms": 1000}),
		nd("Spin", "", kv{"spin_dist": 1.57}))
	for _, tc := range []struct {
		name  string
		subs  []Substitution
		types []string // of the compiled nodes, in order
		names []string
	}{
		{
			name:  "every unknown type",
			subs:  []Substitution{sub("*", "Succeed", nil)},
			types: []string{"Sequence", "Succeed", "PassThrough", "Succeed", "Wait", "Succeed"},
			names: []string{"root", "plan", "DistanceTracker", "follow", "pause", "Spin"},
		},
		{
			name:  "by type, a stub script, and the rest",
			subs:  []Substitution{sub("*", "Succeed", nil), sub("FollowPath", "Stub", kv{"script": "Running:3,Success"})},
			types: []string{"Sequence", "Succeed", "PassThrough", "Stub", "Wait", "Succeed"},
		},
		{
			name:  "by name (a plain pattern is a type), and a known type",
			subs:  []Substitution{sub("*", "Fail", nil), sub("@plan", "Succeed", nil), sub("Wait", "Succeed", nil), sub("follow", "Error", nil)},
			types: []string{"Sequence", "Succeed", "PassThrough", "Fail", "Succeed", "Fail"},
		},
		{
			name:  "by path, which wins",
			subs:  []Substitution{sub("*", "Fail", nil), sub("/trees/main/children/1/children/*", "Running", nil), sub("Spin", "Succeed", nil), sub("/trees/*/children/3", "Error", nil)},
			types: []string{"Sequence", "Fail", "PassThrough", "Running", "Wait", "Error"},
		},
		{
			name:  "a wildcard does not touch known types",
			subs:  []Substitution{sub("W*", "Fail", nil), sub("*", "Succeed", nil)},
			types: []string{"Sequence", "Succeed", "PassThrough", "Succeed", "Wait", "Succeed"},
		},
		{
			name:  "legacy map rules",
			subs:  nil,
			types: []string{"Sequence", "Succeed", "PassThrough", "Succeed", "Wait", "Succeed"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := subSpec(tree, tc.subs...)
			if tc.subs == nil {
				spec.Substitute = map[string]string{"ComputePathToPose": "Succeed", "DistanceTracker": "Succeed", "FollowPath": "Succeed", "Spin": "Succeed"}
			}
			tr, err := reg.Compile(spec)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.types {
				if got := tr.Node(i).Type.Name; got != want {
					t.Errorf("node %d is a %s, want %s", i, got, want)
				}
			}
			for i, want := range tc.names {
				if got := tr.Node(i).Name; got != want {
					t.Errorf("node %d is named %q, want %q", i, got, want)
				}
			}
		})
	}
	// Succeed, Fail or Running stand in for a node with several children
	// as a StandIn returning that status without ticking them (as BT.CPP
	// does); another leaf cannot.
	h := newHarness(t, nd("Sequence", "", nil, nd("Mystery", "", nil, sc("a", "S"), sc("b", "S"))), func(s *Spec) {
		s.Substitutions = []Substitution{sub("*", "Fail", nil)}
	})
	if got := h.run(1); got != "F" {
		t.Errorf("StandIn for Fail: %s", got)
	}
	if h.counts("a") != (counts{}) || h.counts("b") != (counts{}) {
		t.Errorf("a StandIn ticked its children: %v %v", h.counts("a"), h.counts("b"))
	}
	_, err := reg.Compile(subSpec(nd("Sequence", "", nil, nd("Mystery", "", nil, sc("a", "S"), sc("b", "S"))), sub("*", "Stub", kv{"script": "Success"})))
	ps, _ := err.(Problems)
	wantProblems(t, ps, "/trees/main/children/0/children", "Stub is a leaf and takes no children, got 2")
	// An unknown stand-in is reported.
	_, err = reg.Compile(subSpec(nd("Mystery", "", nil), sub("Mystery", "Nope", nil)))
	ps, _ = err.(Problems)
	wantProblems(t, ps, "/trees/main/type", `unknown node type "Nope"`)
}

func TestGlobAll(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{
		{"/trees/*/children/0", "/trees/main/children/0", true},
		{"/trees/*", "/trees/main/children/0", true},
		{"/trees/main/children/?", "/trees/main/children/10", false},
		{"/trees/main", "/trees/main/children/0", false},
	} {
		if got := matchPath(tc.p, tc.s); got != tc.want {
			t.Errorf("matchPath(%q, %q) = %v", tc.p, tc.s, got)
		}
	}
}

// A SubTree of a tree that no loaded file holds is a node botd does not
// know: a rule for the tree's name, or a wildcard, stands in for it (its
// remapped ports stay unchecked), and the tree records the stand-in. A
// SubTree of a tree the mission has is never stood in for by a wildcard,
// and without a rule a missing tree stays an error.
func TestSubstituteMissingSubTree(t *testing.T) {
	reg := testRegistry()
	root := nd("Sequence", "", nil,
		nd("SubTree", "", kv{"tree": "Move to Waypoint", "waypoint_name": "Look"}),
		nd("SubTree", "inner", kv{"tree": "inner"}),
		nd("SubTree", "", kv{"tree": "Clear Snapshot"}))
	spec := func(subs ...Substitution) *Spec {
		s := subSpec(root, subs...)
		s.Trees["inner"] = sc("leaf", "S")
		return s
	}
	_, err := reg.Compile(spec())
	ps, _ := err.(Problems)
	wantProblems(t, ps,
		"/trees/main/children/0/params/tree", `unknown tree "Move to Waypoint"`,
		"/trees/main/children/2/params/tree", `unknown tree "Clear Snapshot"`)

	tr, err := reg.Compile(spec(sub("*", "Succeed", nil), sub("Clear Snapshot", "Stub", kv{"script": "Running:2,Failure"})))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < tr.Len(); i++ {
		got = append(got, tr.Node(i).Type.Name+":"+tr.Node(i).Name)
	}
	want := []string{"Sequence:", "Succeed:Move to Waypoint", "SubTree:inner", "Scripted:leaf", "Stub:Clear Snapshot"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("compiled %v, want %v", got, want)
	}
	wantIns := []StandIn{
		{Path: "/trees/main/children/0", Tree: "Move to Waypoint", With: "Succeed"},
		{Path: "/trees/main/children/2", Tree: "Clear Snapshot", With: "Running:2,Failure"},
	}
	if !reflect.DeepEqual(tr.StandIns(), wantIns) {
		t.Errorf("stand-ins %+v, want %+v", tr.StandIns(), wantIns)
	}

	// A rule for another tree leaves the missing one an error; a rule
	// by name stands in for the SubTree node whatever its tree.
	_, err = reg.Compile(spec(sub("Other", "Succeed", nil), sub("@inner", "Fail", nil)))
	ps, _ = err.(Problems)
	wantProblems(t, ps,
		"/trees/main/children/0/params/tree", `unknown tree "Move to Waypoint"`,
		"/trees/main/children/2/params/tree", `unknown tree "Clear Snapshot"`)
	if len(ps) != 2 {
		t.Errorf("problems %v", ps)
	}
}
