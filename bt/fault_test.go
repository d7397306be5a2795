package bt

import "testing"

// A Fault returns ERROR with its reason whenever it is ticked and never
// ticks its children (they are built, so a tree view shows them).
func TestFaultNeverTicksItsChildren(t *testing.T) {
	root := nd("Sequence", "", nil,
		nd("Fault", "it", kv{"reason": "delay_msec: want a number, got \"10,000\""},
			nd("Set", "child", kv{"key": "x", "value": 1.0})))
	tree := compileTree(t, root)
	h := harnessFor(t, tree, 0)
	sink := &errSink{}
	h.a.Sink = sink
	node, child := h.idx("it"), h.idx("child")
	for range 2 {
		if st := h.tick(); st != Error {
			t.Fatalf("the tree returned %v, want ERROR", st)
		}
	}
	if st := h.a.Status(child); st != Idle {
		t.Errorf("the Fault's child is %v, want never ticked", st)
	}
	if msgs := sink.msgs[node]; len(msgs) != 2 || msgs[0] != "delay_msec: want a number, got \"10,000\"" {
		t.Errorf("error events %q, want the reason at each tick", msgs)
	}
	if min, max := faultType.ChildRange(); min != 0 || max != -1 {
		t.Errorf("Fault takes %d to %d children, want any number", min, max)
	}
}
