package btcpp

import "github.com/botd-project/botd/bt"

import "testing"

// SKIPPED where nothing would honour it is refused with the node's path:
// under a parent that does not handle it, as a mission's root, as the
// root of a DynamicSubTree's default or injected tree.
func TestSkipProblems(t *testing.T) {
	skip := func() *bt.NodeDef { return nd("PrePost", "", kv{"skip_if": "true"}, nd("Succeed", "", nil)) }
	reg := testRegistry()
	compile := func(root *bt.NodeDef, opts ...specOpt) *bt.Tree {
		t.Helper()
		tr, err := reg.Compile(mainSpec(root, opts...))
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	// Handled: a Sequence with a child that cannot skip.
	if ps := compile(nd("Sequence", "", nil, skip(), nd("Succeed", "", nil))).SkipProblems(); len(ps) != 0 {
		t.Errorf("handled: %v", ps)
	}
	// Under a parent that does not handle it.
	wantProblems(t, compile(nd("Sequence", "", nil, nd("Succeed", "", nil), nd("IfThenElse", "", nil, skip(), nd("Succeed", "", nil)))).SkipProblems(),
		"/trees/main/children/1/children/0", "which its parent IfThenElse does not handle")
	// A parent that absorbs it (KeepRunningUntilFailure goes on running).
	if ps := compile(nd("Sequence", "", nil, nd("Succeed", "", nil), nd("KeepRunningUntilFailure", "", nil, skip()))).SkipProblems(); len(ps) != 0 {
		t.Errorf("absorbed: %v", ps)
	}
	// The root.
	wantProblems(t, compile(nd("Sequence", "", nil, skip())).SkipProblems(), "/trees/main", "the root may return SKIPPED")
	// A DynamicSubTree's default tree.
	tr := compile(nd("Sequence", "", nil, dyn("dyn", "plan", "d"), nd("Succeed", "", nil)), withTree("d", nd("Sequence", "", nil, skip())))
	wantProblems(t, tr.SkipProblems(), "/trees/d", "which DynamicSubTree does not handle")
	// An injected tree.
	parent := compile(nd("Sequence", "", nil, dyn("dyn", "plan", ""), nd("Succeed", "", nil)))
	_, err := reg.CompileSlotTree(parent, "plan", mainSpec(nd("Sequence", "", nil, skip())))
	ps, _ := err.(bt.Problems)
	wantProblems(t, ps, "/trees/main", "which DynamicSubTree does not handle")
}

// A node returning SKIPPED stays idle in telemetry (BT.CPP keeps it
// IDLE), and SKIPPED is not a status a mission may name.
func TestSkippedStatus(t *testing.T) {
	if bt.Skipped.Letter() != 'I' || bt.Skipped.String() != "SKIPPED" || bt.Skipped.Done() {
		t.Errorf("SKIPPED: %c %s %v", bt.Skipped.Letter(), bt.Skipped, bt.Skipped.Done())
	}
	if _, err := bt.ParseStatus("SKIPPED"); err == nil {
		t.Error("ParseStatus read SKIPPED")
	}
	var st bt.Status
	if b, _ := bt.Skipped.MarshalText(); st.UnmarshalText(b) != nil || st != bt.Skipped {
		t.Errorf("SKIPPED does not read back: %v", st)
	}
}
