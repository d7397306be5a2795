package btcpp

import (
	"fmt"
	"strings"

	"github.com/botd-project/botd/bt"
)

// BehaviorTree.CPP's pre- and post-conditions, which it accepts on any node
// (_skipIf, _successIf, _failureIf, _while, _onSuccess, _onFailure,
// _onHalted, _post) and the XML importer turns into a PrePost decorator
// over the node, and SkipUnlessUpdated: the sources of SKIPPED (with
// Precondition else=SKIPPED and the loops' if_empty).

var prePostType = bt.NodeType{
	Name: "PrePost", Kind: bt.Decorator, SkipsPass: true,
	Doc: "BehaviorTree.CPP's pre- and post-conditions of its child (the XML attributes _failureIf, _successIf, _skipIf, _while, " +
		"_onSuccess, _onFailure, _onHalted, _post), with BT.CPP's semantics. When the child starts afresh (BT.CPP finds it IDLE) " +
		"the conditions are evaluated in that order: `failure_if` true returns FAILURE and `success_if` true SUCCESS without ticking " +
		"the child, `skip_if` true or `while` false returns SKIPPED (the parent counts the node as not ticked). While the child " +
		"runs only `while` is evaluated again: false halts the child and returns SKIPPED. When the node completes with SUCCESS " +
		"`on_success` runs, with FAILURE `on_failure`, then `post` in both cases; `on_halted` runs when the running child is halted. " +
		"The scripts are those of Script; one that fails is ERROR.",
	Params: []bt.Param{
		{Name: "failure_if", Type: bt.TExpr, Doc: "true: FAILURE without ticking the child"},
		{Name: "success_if", Type: bt.TExpr, Doc: "true: SUCCESS without ticking the child"},
		{Name: "skip_if", Type: bt.TExpr, Doc: "true: SKIPPED without ticking the child"},
		{Name: "while", Type: bt.TExpr, Doc: "false: SKIPPED (halting the child if it runs)"},
		{Name: "on_success", Type: bt.TExpr, Doc: "statements run when the node succeeds"},
		{Name: "on_failure", Type: bt.TExpr, Doc: "statements run when the node fails"},
		{Name: "on_halted", Type: bt.TExpr, Doc: "statements run when the running child is halted"},
		{Name: "post", Type: bt.TExpr, Doc: "statements run when the node succeeds or fails"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		p := &prePost{mem: bt.Reserve[bt.HeldMem](b)}
		for i, name := range prePostParams {
			p.scripts[i] = b.Script(name)
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
	scripts [len(prePostParams)]bt.Script
	mem     bt.Mem[bt.HeldMem]
	// skipNever: skip_if is the literal false; whileAlways: while is the
	// literal true. Neither can return SKIPPED.
	skipNever, whileAlways bool
}

var _ bt.Halter = (*prePost)(nil)

func (p *prePost) MaySkip() bool {
	return (p.scripts[ppSkipIf] != nil && !p.skipNever) || (p.scripts[ppWhile] != nil && !p.whileAlways)
}

// literal reports whether parameter name is the script made of word alone.
func literal(b *bt.Builder, name, word string) bool {
	raw, _ := b.Raw(name)
	src, _ := raw.(string)
	return strings.TrimSpace(src) == word
}

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

// truth runs a condition script: ok is false (and ERROR emitted) when it
// fails or is not a boolean.
func (p *prePost) truth(a *bt.Agent, n *bt.Node, which int) (v, ok bool) {
	r, err := p.scripts[which].Run(a)
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
func (p *prePost) exec(a *bt.Agent, n *bt.Node, which int) bool {
	if p.scripts[which] == nil {
		return true
	}
	if _, err := p.scripts[which].Run(a); err != nil {
		a.Emit(n.Index, "error", fmt.Sprintf("%s: %v", prePostParams[which], err))
		return false
	}
	return true
}

func (p *prePost) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	prev := a.Status(n.Index)
	held := a.HeldStatus(n, p.mem.Of(a, n))
	if held && prev != bt.Running && n.Parent >= 0 {
		// BT.CPP 4.6's ReactiveSequence and ReactiveFallback reset every
		// child but the running one in each tick.
		if pt := a.Tree().Node(int(n.Parent)).Type; pt != nil && (pt.Name == "Sequence" || pt.Name == "Priority") {
			held = false
		}
	}
	var st bt.Status
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
				return bt.Error
			}
			switch {
			case which == ppFailureIf && v:
				st = bt.Failure
			case which == ppSuccessIf && v:
				st = bt.Success
			case which == ppSkipIf && v, which == ppWhile && !v:
				return bt.Skipped
			}
			if st != bt.Idle {
				return p.after(a, n, st)
			}
		}
	case prev == bt.Running && p.scripts[ppWhile] != nil:
		v, ok := p.truth(a, n, ppWhile)
		if !ok {
			return bt.Error
		}
		if !v {
			// The child is halted when this node returns.
			if !p.exec(a, n, ppOnHalted) {
				return bt.Error
			}
			return bt.Skipped
		}
	}
	return p.after(a, n, a.Exec(n.Children[0]))
}

// after runs the post-conditions of a completed status.
func (p *prePost) after(a *bt.Agent, n *bt.Node, st bt.Status) bt.Status {
	ok := true
	switch st {
	case bt.Success:
		ok = p.exec(a, n, ppOnSuccess) && p.exec(a, n, ppPost)
	case bt.Failure:
		ok = p.exec(a, n, ppOnFailure) && p.exec(a, n, ppPost)
	}
	if !ok {
		return bt.Error
	}
	return st
}

// Halt runs on_halted: the node is open only while its child runs.
func (p *prePost) Halt(a *bt.Agent, n *bt.Node) { p.exec(a, n, ppOnHalted) }

var skipUnlessUpdatedType = bt.NodeType{
	Name: "SkipUnlessUpdated", Kind: bt.Decorator, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: SKIPPED unless blackboard key `entry` was written since the node last looked (as WasEntryUpdated " +
		"tells); then ticks the child until it completes and returns its status.",
	Params: []bt.Param{{Name: "entry", Type: bt.TString, Required: true, Doc: "the key to watch (\"key\" or \"{key}\")"}},
	New: func(b *bt.Builder) bt.Behavior {
		return &entryUpdated{entry: b.PortKey("entry"), seen: bt.Reserve[seenMem](b), otherwise: bt.Skipped}
	},
}
