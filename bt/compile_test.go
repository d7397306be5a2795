package bt

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestCompileReportsEveryProblem puts one of each problem in a mission
// and expects all of them at once, each with its JSON path.
func TestCompileReportsEveryProblem(t *testing.T) {
	spec := &Spec{
		Main: "main",
		Trees: map[string]*NodeDef{
			"main": nd("Priority", "root", nil,
				nd("Sequenze", "", nil, sc("a", "S")), // 0: unknown type
				nd("Sequence", "", nil,
					nd("Turn", "", kv{"angle_deg": 200}),               // 1/0: above the limit
					nd("Turn", "", kv{"angle_deg": -90, "speed": -1})), // 1/1: below the limit
				nd("Wait", "", kv{"ms": 10, "colour": "red"}),       // 2: unknown parameter
				nd("Wait", "", nil),                                 // 3: missing parameter
				nd("Wait", "", kv{"ms": true}),                      // 4: mistyped parameter
				nd("Inverter", "", nil),                             // 5: too few children
				nd("Inverter", "", nil, sc("x", "S"), sc("y", "S")), // 6: too many
				nd("Succeed", "", nil, sc("z", "S")),                // 7: a leaf with children
				nd("Sequence", "", nil),                             // 8: a composite without children
				nd("SubTree", "", kv{"tree": "nowhere"}),            // 9: unknown tree
				nd("SubTree", "", kv{"tree": "loop"}),               // 10: recursion
				nd("Expr", "", kv{"expr": "a <"}),                   // 11: bad expression
				nil,                                                 // 12: null node
				nd("", "", nil),                                     // 13: no type
			),
			"loop": nd("SubTree", "", kv{"tree": "loop"}),
		},
	}
	ps := compileProblems(t, spec)
	wantProblems(t, ps,
		"/trees/main/children/0/type", `unknown node type "Sequenze"`,
		"/trees/main/children/1/children/0/params/angle_deg", "200 is above the limit 180",
		"/trees/main/children/1/children/1/params/speed", "-1 is below the limit 0",
		"/trees/main/children/2/params/colour", `unknown parameter "colour" for Wait (known: ms)`,
		"/trees/main/children/3/params/ms", `missing required parameter "ms" (number)`,
		"/trees/main/children/4/params/ms", `want a number or "{key}", got the boolean true`,
		"/trees/main/children/5", "Inverter takes exactly 1 child, got 0",
		"/trees/main/children/6/children", "Inverter takes at most 1 child, got 2",
		"/trees/main/children/7/children", "Succeed is a leaf and takes no children, got 1",
		"/trees/main/children/8", "Sequence needs at least 1 child, got 0",
		"/trees/main/children/9/params/tree", `unknown tree "nowhere" (trees: loop, main)`,
		"/trees/loop/params/tree", "recursive subtree: main -> loop -> loop",
		"/trees/main/children/11/params/expr", "unexpected token",
		"/trees/main/children/12", "null node",
		"/trees/main/children/13/type", "missing node type",
	)
	codes := map[string]string{
		"/trees/main/children/0/type":                        CodeUnknownType,
		"/trees/main/children/1/children/0/params/angle_deg": CodeLimit,
		"/trees/main/children/1/children/1/params/speed":     CodeLimit,
		"/trees/main/children/4/params/ms":                   CodeValidation,
		"/trees/main/children/9/params/tree":                 CodeValidation,
	}
	for _, p := range ps {
		if want, ok := codes[p.Path]; ok && p.Code != want {
			t.Errorf("%s: code %s, want %s", p, p.Code, want)
		}
		if p.Code == "" {
			t.Errorf("%s: no code", p)
		}
	}
	// The error text has one line per problem, "path: message".
	if msg := ps.Error(); !strings.HasPrefix(msg, "15 problems:\n  /trees/") || strings.Count(msg, "\n") != 15 {
		t.Errorf("error text:\n%s", msg)
	}
}

func TestCompileSpecLevelProblems(t *testing.T) {
	cases := []struct {
		name string
		spec *Spec
		want []string
	}{
		{"no trees", &Spec{Main: "main"}, []string{"/trees", "at least one tree"}},
		{"no main", &Spec{Trees: map[string]*NodeDef{"a": sc("x", "S")}}, []string{"/main", "no main tree named"}},
		{"unknown main", &Spec{Main: "mian", Trees: map[string]*NodeDef{"main": sc("x", "S")}}, []string{"/main", `main tree "mian" is not defined (trees: main)`}},
		{
			"blackboard keys",
			&Spec{Main: "main", Trees: map[string]*NodeDef{"main": sc("x", "S")}, Blackboard: kv{"tree:x": 1, "a b": 2, "ok": 3}},
			[]string{
				"/blackboard/tree:x", "initial values can only be given for global keys",
				"/blackboard/a b", `blackboard key "a b" contains a space`,
			},
		},
		{
			"extra keys",
			&Spec{Main: "main", Trees: map[string]*NodeDef{"main": sc("x", "S")}, Keys: []string{"range.front", "{bad}"}},
			[]string{"/keys", "contains a space or a brace"},
		},
		{
			"escaped tree name",
			&Spec{Main: "a/b", Trees: map[string]*NodeDef{"a/b": nd("Wait", "", nil)}},
			[]string{"/trees/a~1b/params/ms", "missing required parameter"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantProblems(t, compileProblems(t, c.spec), c.want...)
		})
	}
}

func TestCompileUnknownTypeSuggestion(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("sequence", "", nil, sc("a", "S"))))
	wantProblems(t, ps, "/trees/main/type", `unknown node type "sequence" (did you mean "Sequence"?)`)
	if ps[0].Code != CodeUnknownType {
		t.Errorf("code %s", ps[0].Code)
	}
	if got := ps.Error(); got != `/trees/main/type: unknown node type "sequence" (did you mean "Sequence"?)` {
		t.Errorf("single problem error text %q", got)
	}
}

// A tree used by two SubTree nodes is compiled twice; its problems are
// reported once.
func TestCompileProblemsDeduplicated(t *testing.T) {
	ps := compileProblems(t, mainSpec(
		nd("Sequence", "", nil,
			nd("SubTree", "", kv{"tree": "broken"}),
			nd("SubTree", "", kv{"tree": "broken"}),
			nd("SubTree", "", kv{"tree": "twice"})),
		withTree("twice", nd("Sequence", "", nil, nd("SubTree", "", kv{"tree": "broken"}), nd("SubTree", "", kv{"tree": "broken"}))),
		withTree("broken", nd("Wait", "", kv{"ms": -3}))))
	wantProblems(t, ps, "/trees/broken/params/ms", "-3 is below the limit 0")
}

// Trees that main does not use are still validated.
func TestCompileValidatesUnreachedTrees(t *testing.T) {
	ps := compileProblems(t, mainSpec(sc("a", "S"),
		withTree("spare", nd("Turn", "", kv{"angle_deg": 500})),
		withTree("cycle", nd("SubTree", "", kv{"tree": "cycle"}))))
	wantProblems(t, ps,
		"/trees/spare/params/angle_deg", "500 is above the limit 180",
		"/trees/cycle/params/tree", "recursive subtree: cycle -> cycle")
}

func TestCompileParamAliases(t *testing.T) {
	t.Run("given twice", func(t *testing.T) {
		ps := compileProblems(t, mainSpec(nd("Wait", "", kv{"ms": 1, "msec": 2})))
		wantProblems(t, ps, "/trees/main/params/msec", `parameter "ms" given twice (as "msec")`)
	})
	t.Run("mistyped alias is not also missing", func(t *testing.T) {
		ps := compileProblems(t, mainSpec(nd("Wait", "", kv{"msec": "soon"})))
		wantProblems(t, ps, "/trees/main/params/msec", `want a number or "{key}", got the string "soon"`)
	})
}

func TestCompileMaxNodes(t *testing.T) {
	spec := mainSpec(nd("Sequence", "", nil, scriptedKids(10, "S")...))
	spec.MaxNodes = 5
	ps := compileProblems(t, spec)
	if len(ps) != 1 || ps[0].Code != CodeLimit || !strings.Contains(ps[0].Message, "more than 5 nodes") {
		t.Errorf("problems %v", ps)
	}
	spec.MaxNodes = 11
	if _, err := testRegistry().Compile(spec); err != nil {
		t.Errorf("11 nodes with MaxNodes 11: %v", err)
	}
}

func TestCompileLayout(t *testing.T) {
	// Indexes are depth-first pre-order; a node's descendants are exactly
	// the indexes in (Index, End).
	tree := compileTree(t, nd("Sequence", "r", nil,
		nd("Priority", "p", nil, sc("a", "S"), sc("b", "S")),
		nd("Inverter", "i", nil, sc("c", "S")),
		sc("d", "S")))
	want := []struct {
		name        string
		parent, end int32
		path        string
	}{
		{"r", -1, 7, "/trees/main"},
		{"p", 0, 4, "/trees/main/children/0"},
		{"a", 1, 3, "/trees/main/children/0/children/0"},
		{"b", 1, 4, "/trees/main/children/0/children/1"},
		{"i", 0, 6, "/trees/main/children/1"},
		{"c", 4, 6, "/trees/main/children/1/children/0"},
		{"d", 0, 7, "/trees/main/children/2"},
	}
	if tree.Len() != len(want) {
		t.Fatalf("%d nodes", tree.Len())
	}
	for i, w := range want {
		n := tree.Node(i)
		if n.Index != int32(i) || n.Name != w.name || n.Parent != w.parent || n.End != w.end || n.Path != w.path || n.Tree != "main" {
			t.Errorf("node %d: %+v", i, *n)
		}
	}
	if tree.Root() != tree.Node(0) || tree.Node(0).Type.Name != "Sequence" {
		t.Error("Root is not node 0")
	}
	if got := tree.Node(0).Children; len(got) != 3 || got[0] != 1 || got[1] != 4 || got[2] != 6 {
		t.Errorf("root children %v", got)
	}
}

func TestCompileNodeIDs(t *testing.T) {
	def := func() *NodeDef {
		return nd("Sequence", "", nil, nd("Succeed", "", nil), &NodeDef{Type: "Fail", ID: "my-fail"})
	}
	compile := func(ns string) *Tree {
		s := mainSpec(def())
		s.Namespace = ns
		tree, err := testRegistry().Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	a, b, c := compile("mission-1"), compile("mission-1"), compile("mission-2")
	for i := 0; i < a.Len(); i++ {
		if a.Node(i).ID == "" || a.Node(i).ID != b.Node(i).ID {
			t.Errorf("node %d: ids %q and %q are not stable", i, a.Node(i).ID, b.Node(i).ID)
		}
	}
	if a.Node(0).ID == c.Node(0).ID {
		t.Error("generated ids ignore the namespace")
	}
	if a.Node(2).ID != "my-fail" {
		t.Errorf("explicit id %q", a.Node(2).ID)
	}

	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil, &NodeDef{Type: "Succeed", ID: "x"}, &NodeDef{Type: "Fail", ID: "x"})))
	wantProblems(t, ps, "/trees/main/children/1/id", `id "x" is also used at /trees/main/children/0`)

	// An explicit id inside a tree used twice stays unique per occurrence.
	tree := compileTree(t, nd("Sequence", "", nil, nd("SubTree", "", kv{"tree": "t"}), nd("SubTree", "", kv{"tree": "t"})),
		withTree("t", &NodeDef{Type: "Succeed", ID: "leaf"}))
	if tree.Node(2).ID == tree.Node(4).ID {
		t.Errorf("both occurrences have id %q", tree.Node(2).ID)
	}
}

func TestCompileSubstitute(t *testing.T) {
	s := mainSpec(nd("Sequence", "", nil,
		nd("ComputePathToPose", "", kv{"goal": "{goal}", "planner_id": "GridBased"}),
		nd("FollowPath", "follow", nil)))
	s.Substitute = map[string]string{"ComputePathToPose": "Succeed", "FollowPath": "Running"}
	tree, err := testRegistry().Compile(s)
	if err != nil {
		t.Fatalf("the parameters of substituted nodes are dropped: %v", err)
	}
	if n := tree.Node(1); n.Type.Name != "Succeed" || n.Name != "ComputePathToPose" {
		t.Errorf("node 1: type %s name %q", n.Type.Name, n.Name)
	}
	if n := tree.Node(2); n.Type.Name != "Running" || n.Name != "follow" {
		t.Errorf("node 2: type %s name %q", n.Type.Name, n.Name)
	}
	if st := NewAgent(tree, 0, 0).Tick(1); st != Running {
		t.Errorf("%v", st)
	}
	s.Substitute = map[string]string{"ComputePathToPose": "Nothing"}
	ps := compileProblems(t, s)
	wantProblems(t, ps,
		"/trees/main/children/0/type", `unknown node type "Nothing"`,
		"/trees/main/children/1/type", `unknown node type "FollowPath"`)
}

func TestCompileInitialBlackboard(t *testing.T) {
	s := mainSpec(nd("Check", "", kv{"key": "cruise", "op": ">", "value": 0.1}))
	s.Blackboard = kv{"cruise": 0.3, "name": "rover", "tags": []any{"a"}}
	s.Keys = []string{"range.front"}
	tree, err := testRegistry().Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAgent(tree, 0, 77)
	for key, want := range map[string]string{"cruise": "0.3", "name": "rover", "tags": "[a]"} {
		slot, ok := tree.Slot(key)
		if !ok {
			t.Fatalf("no slot for %s", key)
		}
		if got := a.BB.Get(slot).String(); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
		if ts, _ := a.BB.Stamp(slot); ts != 77 {
			t.Errorf("%s stamped %d, want 77", key, ts)
		}
	}
	if slot, ok := tree.Slot("range.front"); !ok || a.BB.Get(slot).Kind() != KindNone {
		t.Error("extra key range.front: want a slot, unset")
	}
	if st := a.Tick(100); st != Success {
		t.Errorf("%v", st)
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	for _, name := range []string{"Sequence", "ReactiveSequence", "Fallback", "Wait", "Sleep", "SubTree", "Script"} {
		if _, ok := r.Lookup(name); !ok {
			t.Errorf("%s not registered", name)
		}
	}
	if _, ok := r.Lookup("Nope"); ok {
		t.Error("Lookup found Nope")
	}
	types := r.Types()
	for i := 1; i < len(types); i++ {
		if types[i-1].Name >= types[i].Name {
			t.Errorf("Types not sorted: %s, %s", types[i-1].Name, types[i].Name)
		}
	}
	for _, tp := range types {
		if tp.Name == "ReactiveSequence" {
			t.Error("Types lists an alias")
		}
	}
	if n := len(NewEmptyRegistry().Types()); n != 0 {
		t.Errorf("empty registry has %d types", n)
	}

	c := r.Clone()
	c.Register(scriptedType)
	if _, ok := r.Lookup("Scripted"); ok {
		t.Error("registering into a clone changed the original")
	}

	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	leaf := func(*Builder) Behavior { return constant(Success) }
	mustPanic("empty name", func() { NewEmptyRegistry().Register(NodeType{New: leaf}) })
	mustPanic("duplicate name", func() { r.Clone().Register(NodeType{Name: "Sequence", New: leaf}) })
	mustPanic("duplicate alias", func() { r.Clone().Register(NodeType{Name: "Mine", Aliases: []string{"Fallback"}, New: leaf}) })
	mustPanic("empty alias", func() { r.Clone().Register(NodeType{Name: "Mine", Aliases: []string{""}, New: leaf}) })
	mustPanic("no constructor", func() { r.Clone().Register(NodeType{Name: "Mine"}) })
	mustPanic("duplicate parameter", func() {
		r.Clone().Register(NodeType{Name: "Mine", New: leaf, Params: []Param{{Name: "x"}, {Name: "x"}}})
	})
}

// eachType synthesizes its children from a list of node definitions in
// its "nodes" parameter and runs them as a Sequence.
var eachType = NodeType{
	Name: "Each", Kind: Composite,
	Params: []Param{{Name: "nodes", Type: TAny, Required: true}},
	Synthesize: func(b *Builder) []Synth {
		raw, _ := b.Raw("nodes")
		list, ok := raw.([]any)
		if !ok {
			b.Errorf("nodes", "want a list")
			return nil
		}
		var out []Synth
		for i, v := range list {
			p := b.Path() + "/params/nodes/" + strconv.Itoa(i)
			if d := b.NodeDefOf(v, p); d != nil {
				out = append(out, Synth{Def: d, Path: p})
			}
		}
		return out
	},
	New: func(b *Builder) Behavior { return sequence{} },
}

func TestSynthesizedChildren(t *testing.T) {
	r := testRegistry()
	r.Register(eachType)
	tree, err := r.Compile(mainSpec(nd("Each", "each", kv{"nodes": []any{
		kv{"type": "Scripted", "name": "one", "params": kv{"statuses": "S"}},
		kv{"type": "SubTree", "name": "two", "params": kv{"tree": "t"}},
	}}), withTree("t", sc("three", "RS"))))
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for i := 0; i < tree.Len(); i++ {
		n := tree.Node(i)
		table = append(table, fmt.Sprintf("%s %s parent=%d %s", n.Type.Name, n.Name, n.Parent, n.Path))
	}
	eqLines(t, "node table", table, []string{
		"Each each parent=-1 /trees/main",
		"Scripted one parent=0 /trees/main/params/nodes/0",
		"SubTree two parent=0 /trees/main/params/nodes/1",
		"Scripted three parent=2 /trees/t",
	})
	h := harnessFor(t, tree, 0)
	if got := h.run(2); got != "RS" {
		t.Errorf("root statuses %s, want RS", got)
	}

	_, err = r.Compile(mainSpec(nd("Each", "", kv{"nodes": []any{
		kv{"type": "Sequense"},
		kv{"type": "Wait", "params": kv{"ms": "soon"}},
		kv{"name": "no type", "colour": "red"},
		"Succeed",
	}}, sc("", "S"))))
	ps, _ := err.(Problems)
	wantProblems(t, ps,
		"/trees/main/children", "Each takes no children",
		"/trees/main/params/nodes/0/type", `unknown node type "Sequense"`,
		"/trees/main/params/nodes/1/params/ms", "want a number",
		"/trees/main/params/nodes/2/type", "missing node type",
		"/trees/main/params/nodes/2/colour", `unknown field "colour"`,
		"/trees/main/params/nodes/3", "want a node definition")
	for _, ti := range r.Catalog() {
		if ti.Name == "Each" && ti.Children != [2]int{0, 0} {
			t.Errorf("catalog: children %v, want [0 0] (they come from the parameters)", ti.Children)
		}
	}
}

// scriptedKids returns n Scripted children c0..c(n-1) with one script.
func scriptedKids(n int, statuses string) []*NodeDef {
	kids := make([]*NodeDef, n)
	for i := range kids {
		kids[i] = sc(fmt.Sprintf("c%d", i), statuses)
	}
	return kids
}
