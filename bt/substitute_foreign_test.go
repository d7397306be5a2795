package bt

import (
	"reflect"
	"testing"
)

// A leaf named like one of botd's but with parameters botd's type does not
// have is another framework's node of that name (a robot's own Wait with
// a time port, a Wait without ms): a wildcard rule stands in for it, as
// for a type botd does not know. A leaf with botd's parameters is botd's
// own and stays, and a control node with foreign parameters is still
// reported.
func TestSubstituteForeignLeaf(t *testing.T) {
	reg := testRegistry()
	tree := nd("Sequence", "root", nil,
		nd("Wait", "theirs", kv{"time": 2}),
		nd("Wait", "bare", nil),
		nd("Wait", "ours", kv{"ms": 1000}),
		nd("Succeed", "", nil))
	tr, err := reg.Compile(subSpec(tree, sub("*", "Succeed", nil)))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"Sequence", "Succeed", "Succeed", "Wait", "Succeed"} {
		if got := tr.Node(i).Type.Name; got != want {
			t.Errorf("node %d (%s) is a %s, want %s", i, tr.Node(i).Name, got, want)
		}
	}
	// The tree says which it stood in for.
	want := []StandIn{{Path: "/trees/main/children/0", Type: "Wait", With: "Succeed"}, {Path: "/trees/main/children/1", Type: "Wait", With: "Succeed"}}
	if got := tr.StandIns(); !reflect.DeepEqual(got, want) {
		t.Errorf("stand-ins %+v, want %+v", got, want)
	}
	// A parameter one letter off botd's is a typo, reported as one, not
	// another framework's port (and so is the required one it misses).
	_, err = reg.Compile(subSpec(nd("Sequence", "", nil, nd("Wait", "", kv{"mss": 1000}), nd("Wait", "", kv{"MS": 5})), sub("*", "Succeed", nil)))
	ps, _ := err.(Problems)
	wantProblems(t, ps,
		"/trees/main/children/0/params/mss", `unknown parameter "mss" for Wait`,
		"/trees/main/children/0/params/ms", `missing required parameter "ms"`,
		"/trees/main/children/1/params/MS", `unknown parameter "MS" for Wait`,
		"/trees/main/children/1/params/ms", `missing required parameter "ms"`)
	// Without a wildcard rule the parameters are reported as before.
	_, err = reg.Compile(subSpec(nd("Sequence", "", nil, nd("Wait", "", kv{"ms": 1, "time": 2})), sub("Spin", "Succeed", nil)))
	ps, _ = err.(Problems)
	wantProblems(t, ps, "/trees/main/children/0/params/time", `unknown parameter "time" for Wait`)
	// A composite with a parameter it does not take is not stood in for.
	_, err = reg.Compile(subSpec(nd("Sequence", "", kv{"policy": "x"}, nd("Succeed", "", nil)), sub("*", "Succeed", nil)))
	ps, _ = err.(Problems)
	wantProblems(t, ps, "/trees/main/params/policy", `unknown parameter "policy" for Sequence`)
}

// PassThrough, the stand-in for an unknown decorator, returns its child's
// SKIPPED as it returns every status, so a parent that handles SKIPPED
// counts the child as not ticked (BT.CPP's decorators return the child's
// status, SKIPPED included, unless they handle it).
func TestPassThroughSkipped(t *testing.T) {
	skip := nd("Skipper", "skipped", nil)
	tree := nd("Sequence", "", nil, nd("Mystery", "wrap", nil, skip), sc("after", "S"))
	reg := testRegistry()
	tr, err := reg.Compile(subSpec(tree, sub("*", "Succeed", nil)))
	if err != nil {
		t.Fatal(err)
	}
	if ps := tr.SkipProblems(); len(ps) != 0 {
		t.Fatalf("SKIPPED under a PassThrough refused: %v", ps)
	}
	h := newHarness(t, tree, func(s *Spec) { s.Substitutions = []Substitution{sub("*", "Succeed", nil)} })
	if got := h.run(1); got != "S" {
		t.Errorf("tree returned %s, want S", got)
	}
	if c := h.counts("skipped"); c.tick != 1 || h.a.Status(h.idx("wrap")) != Skipped {
		t.Errorf("the skipping child ticked %d times, its PassThrough %v; want once, SKIPPED", c.tick, h.a.Status(h.idx("wrap")))
	}
	if c := h.counts("after"); c.tick != 1 {
		t.Errorf("the next child ticked %d times, want 1", c.tick)
	}
	// As the root it is still refused: a mission does not end SKIPPED.
	tr, err = reg.Compile(subSpec(nd("Mystery", "", nil, nd("Skipper", "", nil)), sub("*", "Succeed", nil)))
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, tr.SkipProblems(), "/trees/main", "the root may return SKIPPED")
}
