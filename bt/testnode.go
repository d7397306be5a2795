package bt

var testNodeType = NodeType{
	Name: "TestNode", Kind: Leaf, Category: "action",
	Doc: "As BehaviorTree.CPP's TestNode (its stand-in for substituted nodes): RUNNING for `async_delay` ms after it opens " +
		"(0: not at all), then returns `return_status`, running `success_script` or `failure_script` (by that status) and then " +
		"`post_script` (see Script) as it completes.",
	Params: []Param{
		{Name: "return_status", Type: TEnum, Enum: statusEnum, Default: "SUCCESS", Doc: "the status it completes with"},
		{Name: "async_delay", Type: TNumber, Default: 0.0, Min: Float(0), Unit: "ms", Doc: "how long it runs first"},
		{Name: "success_script", Type: TExpr, Doc: "statements run when it succeeds"},
		{Name: "failure_script", Type: TExpr, Doc: "statements run when it fails"},
		{Name: "post_script", Type: TExpr, Doc: "statements run whenever it completes"},
	},
	New: func(b *Builder) Behavior {
		return &testNode{
			timer: timer{ms: b.Number("async_delay"), mem: Reserve[timerMem](b)}, status: enumStatus(b, "return_status"),
			onSuccess: b.scriptParam("success_script"), onFailure: b.scriptParam("failure_script"), post: b.scriptParam("post_script"),
		}
	},
}

type testNode struct {
	timer
	status                     Status
	onSuccess, onFailure, post script
}

var _ Opener = (*testNode)(nil)

func (t *testNode) Tick(a *Agent, n *Node) Status {
	done, ok := t.elapsed(a, n)
	switch {
	case !ok:
		return Error
	case !done:
		return Running
	}
	run := func(s script) bool {
		if s == nil {
			return true
		}
		if _, err := s.run(a); err != nil {
			a.Emit(n.Index, "error", "TestNode script: "+err.Error())
			return false
		}
		return true
	}
	ok = true
	switch t.status {
	case Success:
		ok = run(t.onSuccess)
	case Failure:
		ok = run(t.onFailure)
	}
	if !ok || !run(t.post) {
		return Error
	}
	if t.status == Error {
		a.Emit(n.Index, "error", "TestNode: return_status is ERROR")
	}
	return t.status
}
