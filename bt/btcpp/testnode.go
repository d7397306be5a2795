package btcpp

import "github.com/botd-project/botd/bt"

var testNodeType = bt.NodeType{
	Name: "TestNode", Kind: bt.Leaf, Category: "action",
	Doc: "As BehaviorTree.CPP's TestNode (its stand-in for substituted nodes): RUNNING for `async_delay` ms after it opens " +
		"(0: not at all), then returns `return_status`, running `success_script` or `failure_script` (by that status) and then " +
		"`post_script` (see Script) as it completes.",
	Params: []bt.Param{
		{Name: "return_status", Type: bt.TEnum, Enum: bt.StatusEnum, Default: "SUCCESS", Doc: "the status it completes with"},
		{Name: "async_delay", Type: bt.TNumber, Default: 0.0, Min: bt.Float(0), Unit: "ms", Doc: "how long it runs first"},
		{Name: "success_script", Type: bt.TExpr, Doc: "statements run when it succeeds"},
		{Name: "failure_script", Type: bt.TExpr, Doc: "statements run when it fails"},
		{Name: "post_script", Type: bt.TExpr, Doc: "statements run whenever it completes"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		return &testNode{
			Timer: bt.NewTimer(b, "async_delay"), status: b.Status("return_status"),
			onSuccess: b.Script("success_script"), onFailure: b.Script("failure_script"), post: b.Script("post_script"),
		}
	},
}

type testNode struct {
	bt.Timer
	status                     bt.Status
	onSuccess, onFailure, post bt.Script
}

var _ bt.Opener = (*testNode)(nil)

func (t *testNode) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	done, ok := t.Elapsed(a, n)
	switch {
	case !ok:
		return bt.Error
	case !done:
		return bt.Running
	}
	run := func(s bt.Script) bool {
		if s == nil {
			return true
		}
		if _, err := s.Run(a); err != nil {
			a.Emit(n.Index, "error", "TestNode script: "+err.Error())
			return false
		}
		return true
	}
	ok = true
	switch t.status {
	case bt.Success:
		ok = run(t.onSuccess)
	case bt.Failure:
		ok = run(t.onFailure)
	}
	if !ok || !run(t.post) {
		return bt.Error
	}
	if t.status == bt.Error {
		a.Emit(n.Index, "error", "TestNode: return_status is ERROR")
	}
	return t.status
}
