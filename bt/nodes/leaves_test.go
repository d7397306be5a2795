package nodes

import (
	"github.com/botd-project/botd/bt"
	"strings"
	"testing"
)

func TestConstantLeaves(t *testing.T) {
	runTickCases(t, []tickCase{
		{Name: "Succeed", Tree: nd("Succeed", "x", nil), Want: "SS", Counts: map[string]counts{"x": {2, 2, 2, 0}}},
		{Name: "AlwaysSuccess", Tree: nd("AlwaysSuccess", "x", nil), Want: "S"},
		{Name: "Fail", Tree: nd("Fail", "x", nil), Want: "FF", Counts: map[string]counts{"x": {2, 2, 2, 0}}},
		{Name: "AlwaysFailure", Tree: nd("AlwaysFailure", "x", nil), Want: "F"},
		{Name: "Running", Tree: nd("Running", "x", nil), Want: "RRR", Counts: map[string]counts{"x": {1, 3, 0, 0}}},
		{Name: "Runner", Tree: nd("Runner", "x", nil), Want: "R"},
		{Name: "Error", Tree: nd("Error", "x", nil), Want: "EE", Counts: map[string]counts{"x": {2, 2, 2, 0}}},
	})
}

func TestSubTree(t *testing.T) {
	// Two occurrences of one tree, each with its own nodes and memory: the
	// MemSequence of each resumes at its own running child.
	work := nd("MemSequence", "work", nil, sc("step1", "S"), sc("step2", "RS"))
	tree := compileTree(t, nd("MemSequence", "root", nil,
		nd("SubTree", "first", kv{"tree": "work"}),
		nd("SubTree", "second", kv{"tree": "work"})),
		withTree("work", work))
	if tree.Len() != 9 {
		t.Fatalf("%d nodes, want 9 (root, two SubTrees with 3 nodes each)", tree.Len())
	}
	var occ [2][3]int32 // work, step1, step2 of each occurrence
	for i, sub := range []string{"first", "second"} {
		s := tree.Node(int(nodeNamed(t, tree, sub)))
		if len(s.Children) != 1 {
			t.Fatalf("%s has children %v, want the root of work", sub, s.Children)
		}
		w := tree.Node(int(s.Children[0]))
		occ[i] = [3]int32{w.Index, w.Children[0], w.Children[1]}
		if w.Name != "work" || w.Tree != "work" || w.Path != "/trees/work" || w.Parent != s.Index {
			t.Errorf("%s's child: name %q tree %q path %q parent %d", sub, w.Name, w.Tree, w.Path, w.Parent)
		}
		if c := tree.Node(int(w.Children[1])); c.Path != "/trees/work/children/1" {
			t.Errorf("step2 path %q", c.Path)
		}
	}
	ids := map[string]bool{}
	for i := 0; i < tree.Len(); i++ {
		ids[tree.Node(i).ID] = true
	}
	if len(ids) != tree.Len() {
		t.Errorf("node ids are not unique per occurrence: %d ids for %d nodes", len(ids), tree.Len())
	}

	h := harnessFor(t, tree, 0)
	// tick 1: first: step1 S, step2 R. tick 2: first resumes at step2 (S),
	// second: step1 S, step2 R. tick 3: second resumes at step2: S.
	if got := h.Run(3); got != "RRS" {
		t.Fatalf("root statuses %s, want RRS", got)
	}
	for i, o := range occ {
		if got := h.Rec.Counts[o[1]]; got != (counts{1, 1, 1, 0}) {
			t.Errorf("occurrence %d step1: %v", i, got)
		}
		if got := h.Rec.Counts[o[2]]; got != (counts{1, 2, 1, 0}) {
			t.Errorf("occurrence %d step2: %v", i, got)
		}
	}
	h.CheckProbe()
}

func TestSubTreeTreeScopedKeys(t *testing.T) {
	// "tree:x" is private to each occurrence; a plain key is shared.
	tree := compileTree(t, nd("Sequence", "root", nil,
		nd("SubTree", "", kv{"tree": "writer"}),
		nd("SubTree", "", kv{"tree": "reader"})),
		withTree("writer", nd("Sequence", "", nil,
			nd("Set", "", kv{"key": "tree:x", "value": 1}),
			nd("Set", "", kv{"key": "shared", "value": 1}))),
		withTree("reader", nd("Sequence", "", nil,
			nd("Check", "shared?", kv{"key": "shared", "value": 1}),
			nd("Check", "x?", kv{"key": "tree:x", "value": 1}))))
	h := harnessFor(t, tree, 0)
	if st := h.Tick(); st != bt.Error {
		t.Errorf("reading another occurrence's tree:x: %v, want ERROR (missing key)", st)
	}
	if got := h.Counts("shared?"); got.Tick != 1 || h.A.Status(h.Idx("shared?")) != bt.Success {
		t.Errorf("shared key: %v %v, want SUCCESS", got, h.A.Status(h.Idx("shared?")))
	}
	if h.A.Status(h.Idx("x?")) != bt.Error {
		t.Errorf("tree:x: %v, want ERROR", h.A.Status(h.Idx("x?")))
	}
}

func TestSubTreeProblems(t *testing.T) {
	t.Run("unknown tree", func(t *testing.T) {
		ps := compileProblems(t, mainSpec(nd("SubTree", "", kv{"tree": "nowhere"})))
		wantProblems(t, ps, "/trees/main/params/tree", `unknown tree "nowhere" (trees: main)`)
	})
	t.Run("missing tree", func(t *testing.T) {
		ps := compileProblems(t, mainSpec(nd("SubTree", "", nil)))
		wantProblems(t, ps, "/trees/main/params/tree", `missing required parameter "tree"`)
	})
	t.Run("children", func(t *testing.T) {
		ps := compileProblems(t, mainSpec(nd("SubTree", "", kv{"tree": "a"}, sc("x", "S")), withTree("a", sc("y", "S"))))
		wantProblems(t, ps, "/trees/main/children", "SubTree takes no children")
	})
	t.Run("self recursion", func(t *testing.T) {
		ps := compileProblems(t, mainSpec(nd("SubTree", "", kv{"tree": "main"})))
		wantProblems(t, ps, "/trees/main/params/tree", "recursive subtree: main -> main")
	})
	t.Run("indirect recursion", func(t *testing.T) {
		ps := compileProblems(t, mainSpec(
			nd("Sequence", "", nil, sc("a", "S"), nd("SubTree", "", kv{"tree": "loop"})),
			withTree("loop", nd("Priority", "", nil, sc("b", "F"), nd("SubTree", "", kv{"tree": "main"})))))
		wantProblems(t, ps, "/trees/loop/children/1/params/tree", "recursive subtree: main -> loop -> main")
	})
	t.Run("ID alias", func(t *testing.T) {
		// BehaviorTree.CPP writes <SubTree ID="a"/>.
		tree := compileTree(t, nd("SubTree", "", kv{"ID": "a"}), withTree("a", sc("y", "S")))
		if tree.Len() != 2 {
			t.Fatalf("%d nodes, want 2", tree.Len())
		}
		if st := harnessFor(t, tree, 0).Tick(); st != bt.Success {
			t.Errorf("%v, want the subtree's SUCCESS", st)
		}
	})
}

func TestSubTreeDeepExpansion(t *testing.T) {
	// Three levels, each used twice: 2^3 copies of the leaf.
	tree := compileTree(t, nd("Sequence", "", nil, nd("SubTree", "", kv{"tree": "l1"}), nd("SubTree", "", kv{"tree": "l1"})),
		withTree("l1", nd("Sequence", "", nil, nd("SubTree", "", kv{"tree": "l2"}), nd("SubTree", "", kv{"tree": "l2"}))),
		withTree("l2", nd("Sequence", "", nil, nd("SubTree", "", kv{"tree": "l3"}), nd("SubTree", "", kv{"tree": "l3"}))),
		withTree("l3", sc("leaf", "RS")))
	leaves := 0
	for i := 0; i < tree.Len(); i++ {
		if tree.Node(i).Name == "leaf" {
			leaves++
		}
	}
	if leaves != 8 {
		t.Fatalf("%d leaves, want 8", leaves)
	}
	h := harnessFor(t, tree, 0)
	// A reactive Sequence of running-then-succeeding leaves: each tick
	// reaches one more leaf, earlier leaves reopen and run again.
	if got := h.Run(3); !strings.HasPrefix(got, "RRR") {
		t.Errorf("root statuses %s", got)
	}
	h.CheckProbe()
}
