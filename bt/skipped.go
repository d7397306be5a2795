package bt

import (
	"fmt"
	"strings"
)

// BehaviorTree.CPP's SKIPPED status and what produces it: the pre- and
// post-conditions BT.CPP accepts on any node (_skipIf, _successIf,
// _failureIf, _while, _onSuccess, _onFailure, _onHalted, _post), which the
// XML importer turns into a PrePost decorator over the node, and
// SkipUnlessUpdated. RunOnce then_skip and Precondition else=SKIPPED skip
// too (runonce.go, precondition.go).

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

var prePostType = NodeType{
	Name: "PrePost", Kind: Decorator, SkipsPass: true,
	Doc: "BehaviorTree.CPP's pre- and post-conditions of its child (the XML attributes _failureIf, _successIf, _skipIf, _while, " +
		"_onSuccess, _onFailure, _onHalted, _post), with BT.CPP's semantics. When the child starts afresh (BT.CPP finds it IDLE) " +
		"the conditions are evaluated in that order: `failure_if` true returns FAILURE and `success_if` true SUCCESS without ticking " +
		"the child, `skip_if` true or `while` false returns SKIPPED (the parent counts the node as not ticked). While the child " +
		"runs only `while` is evaluated again: false halts the child and returns SKIPPED. When the node completes with SUCCESS " +
		"`on_success` runs, with FAILURE `on_failure`, then `post` in both cases; `on_halted` runs when the running child is halted. " +
		"The scripts are those of Script; one that fails is ERROR.",
	Params: []Param{
		{Name: "failure_if", Type: TExpr, Doc: "true: FAILURE without ticking the child"},
		{Name: "success_if", Type: TExpr, Doc: "true: SUCCESS without ticking the child"},
		{Name: "skip_if", Type: TExpr, Doc: "true: SKIPPED without ticking the child"},
		{Name: "while", Type: TExpr, Doc: "false: SKIPPED (halting the child if it runs)"},
		{Name: "on_success", Type: TExpr, Doc: "statements run when the node succeeds"},
		{Name: "on_failure", Type: TExpr, Doc: "statements run when the node fails"},
		{Name: "on_halted", Type: TExpr, Doc: "statements run when the running child is halted"},
		{Name: "post", Type: TExpr, Doc: "statements run when the node succeeds or fails"},
	},
	New: func(b *Builder) Behavior {
		p := &prePost{mem: Reserve[HeldMem](b)}
		for i, name := range prePostParams {
			p.scripts[i] = b.scriptParam(name)
			if b.Has(name) && p.scripts[i] == nil {
				b.Errorf(name, "empty script")
			}
		}
		// Groot2 and MoveIt Pro write _skipIf="false" on every node: a
		// literal that can never skip.
		p.skipNever = literal(b, "skip_if", "false")
		p.whileAlways = literal(b, "while", "true")
		return p
	},
}

// prePostParams are PrePost's parameters in the order of prePost.scripts.
var prePostParams = [...]string{"failure_if", "success_if", "skip_if", "while", "on_success", "on_failure", "on_halted", "post"}

const (
	ppFailureIf = iota
	ppSuccessIf
	ppSkipIf
	ppWhile
	ppOnSuccess
	ppOnFailure
	ppOnHalted
	ppPost
)

type prePost struct {
	scripts [len(prePostParams)]script
	mem     Mem[HeldMem]
	// skipNever: skip_if is the literal false; whileAlways: while is the
	// literal true. Neither can return SKIPPED.
	skipNever, whileAlways bool
}

var _ Halter = (*prePost)(nil)

func (p *prePost) MaySkip() bool {
	return (p.scripts[ppSkipIf] != nil && !p.skipNever) || (p.scripts[ppWhile] != nil && !p.whileAlways)
}

// literal reports whether parameter name is the script made of word alone.
func literal(b *Builder, name, word string) bool {
	raw, _ := b.Raw(name)
	src, _ := raw.(string)
	return strings.TrimSpace(src) == word
}

// truth runs a condition script: ok is false (and ERROR emitted) when it
// fails or is not a boolean.
// SkipCause names the scripts that may make it skip.
func (p *prePost) SkipCause() string {
	var which []string
	for _, w := range []int{ppSkipIf, ppWhile} {
		if p.scripts[w] != nil {
			which = append(which, prePostParams[w])
		}
	}
	return "its " + strings.Join(which, " and ")
}

func (p *prePost) truth(a *Agent, n *Node, which int) (v, ok bool) {
	r, err := p.scripts[which].run(a)
	if err != nil {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: %v", prePostParams[which], err))
		return false, false
	}
	b, isBool := r.(bool)
	if !isBool {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: the condition is %v, not a boolean", prePostParams[which], r))
		return false, false
	}
	return b, true
}

// exec runs a statement script when there is one; false when it failed.
func (p *prePost) exec(a *Agent, n *Node, which int) bool {
	if p.scripts[which] == nil {
		return true
	}
	if _, err := p.scripts[which].run(a); err != nil {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: %v", prePostParams[which], err))
		return false
	}
	return true
}

func (p *prePost) Tick(a *Agent, n *Node) Status {
	prev := a.Status(n.Index)
	held := a.HeldStatus(n, p.mem.Of(a, n))
	if held && prev != Running && n.Parent >= 0 {
		// BT.CPP 4.6's ReactiveSequence and ReactiveFallback reset every
		// child but the running one in each tick.
		if pt := a.nodes[n.Parent].Type; pt != nil && (pt.Name == "Sequence" || pt.Name == "Priority") {
			held = false
		}
	}
	var st Status
	switch {
	case !held:
		// BT.CPP finds the node IDLE (or SKIPPED): every precondition in
		// order.
		for which := ppFailureIf; which <= ppWhile; which++ {
			if p.scripts[which] == nil {
				continue
			}
			v, ok := p.truth(a, n, which)
			if !ok {
				return Error
			}
			switch {
			case which == ppFailureIf && v:
				st = Failure
			case which == ppSuccessIf && v:
				st = Success
			case which == ppSkipIf && v, which == ppWhile && !v:
				return Skipped
			}
			if st != Idle {
				return p.after(a, n, st)
			}
		}
	case prev == Running && p.scripts[ppWhile] != nil:
		v, ok := p.truth(a, n, ppWhile)
		if !ok {
			return Error
		}
		if !v {
			// The child is halted when this node returns.
			if !p.exec(a, n, ppOnHalted) {
				return Error
			}
			return Skipped
		}
	}
	return p.after(a, n, a.Exec(n.Children[0]))
}

// after runs the post-conditions of a completed status.
func (p *prePost) after(a *Agent, n *Node, st Status) Status {
	ok := true
	switch st {
	case Success:
		ok = p.exec(a, n, ppOnSuccess) && p.exec(a, n, ppPost)
	case Failure:
		ok = p.exec(a, n, ppOnFailure) && p.exec(a, n, ppPost)
	}
	if !ok {
		return Error
	}
	return st
}

// Halt runs on_halted: the node is open only while its child runs.
func (p *prePost) Halt(a *Agent, n *Node) { p.exec(a, n, ppOnHalted) }

var skipUnlessUpdatedType = NodeType{
	Name: "SkipUnlessUpdated", Kind: Decorator, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: SKIPPED unless blackboard key `entry` was written since the node last looked (as WasEntryUpdated " +
		"tells); then ticks the child until it completes and returns its status.",
	Params: []Param{{Name: "entry", Type: TString, Required: true, Doc: "the key to watch (\"key\" or \"{key}\")"}},
	New: func(b *Builder) Behavior {
		return &entryUpdated{entry: b.PortKey("entry"), seen: Reserve[seenMem](b), otherwise: Skipped}
	},
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
