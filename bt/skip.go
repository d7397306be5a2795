package bt

import (
	"fmt"
)

// BehaviorTree.CPP's SKIPPED status: which nodes may return it (sources:
// the node types of bt/btcpp, PrePost and SkipUnlessUpdated among them,
// and RunOnce then_skip), and the check that their parents honour it.

// SkipSource is implemented by behaviors that may return SKIPPED
// themselves (not only pass on a child's): MaySkip says whether this
// node, as compiled, may. The compiler uses it to refuse a SKIPPED where
// the parent would not honour it (Tree.SkipProblems), and the fast path
// to leave such a node's parent to its own Tick.
type SkipSource interface {
	MaySkip() bool
}

// SkipCauser is a SkipSource that says what makes it skip, for the
// problem SkipProblems reports ("its skip_if and while"); without it the
// problem names the node's type and path.
type SkipCauser interface {
	SkipSource
	SkipCause() string
}

// SkipProblems reports the nodes that may return SKIPPED where it would
// not be honoured: under a parent whose type does not handle it as
// BehaviorTree.CPP does, or as the root (a mission ends with SUCCESS,
// FAILURE or ERROR). Each problem is located at the node's path.
func (t *Tree) SkipProblems() Problems {
	may := t.maySkip()
	var ps Problems
	for i := len(t.nodes) - 1; i >= 0; i-- {
		n := &t.nodes[i]
		if n.Type == nil {
			continue
		}
		for _, c := range n.Children {
			if may[c] && !n.Type.SkipsPass && !n.Type.SkipsAbsorb {
				ps = append(ps, Problem{Path: t.nodes[c].Path, Code: CodeValidation, Message: fmt.Sprintf(
					"%s may return SKIPPED (%s), which its parent %s does not handle; put it under a Sequence, Fallback or another "+
						"node that does (see MISSIONS.md)", t.nodes[c].Type.Name, t.skipCause(c, may), n.Type.Name)})
			}
		}
	}
	if len(t.nodes) > 0 && may[0] {
		what := "the root may return SKIPPED (%s), but a mission ends with SUCCESS, FAILURE or ERROR"
		if t.parent != nil {
			what = "the root may return SKIPPED (%s), which DynamicSubTree does not handle"
		}
		ps = append(ps, Problem{Path: t.nodes[0].Path, Code: CodeValidation, Message: fmt.Sprintf(what, t.skipCause(0, may))})
	}
	// The default trees of DynamicSubTree nodes, compiled with this one.
	for i := range t.nodes {
		if d, ok := t.nodes[i].b.(*dynamic); ok && d.def != nil {
			ps = append(ps, d.def.SkipProblems()...)
		}
	}
	return ps
}

// maySkip tells, per node, whether it may return SKIPPED: a source of it,
// or a node passing SKIPPED on whose every child may.
func (t *Tree) maySkip() []bool {
	may := make([]bool, len(t.nodes))
	for i := len(t.nodes) - 1; i >= 0; i-- {
		n := &t.nodes[i]
		if s, ok := n.b.(SkipSource); ok && s.MaySkip() {
			may[i] = true
		}
		if n.Type == nil || !n.Type.SkipsPass || len(n.Children) == 0 {
			continue
		}
		all := true
		for _, c := range n.Children {
			all = all && may[c]
		}
		if all {
			may[i] = true
		}
	}
	return may
}

// skipCause names what makes node i skip: the first source found below it.
func (t *Tree) skipCause(i int32, may []bool) string {
	n := &t.nodes[i]
	if s, ok := n.b.(SkipSource); ok && s.MaySkip() {
		if c, ok := s.(SkipCauser); ok {
			return c.SkipCause()
		}
		return "as " + n.Type.Name + " at " + n.Path
	}
	for _, c := range n.Children {
		if may[c] {
			return "every child may: " + t.skipCause(c, may)
		}
	}
	return "a child may"
}
