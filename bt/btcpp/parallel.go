package btcpp

import "github.com/botd-project/botd/bt"

var btParallelType = bt.NodeType{
	Name: "ParallelNode", KeepsProgress: true, Kind: bt.Composite, SkipsPass: true,
	Doc: "BehaviorTree.CPP's Parallel (imported from XML `Parallel`): each tick, ticks in order the children that have not completed " +
		"in this activation, and after each one checks: SUCCESS once `success_count` children succeeded; FAILURE once `failure_count` " +
		"failed or too few can still succeed. Children not ticked yet in that tick are not ticked. Negative counts count from the number " +
		"of children: -1 is all of them, -2 all but one.",
	Params: []bt.Param{
		{Name: "success_count", Aliases: []string{"success_threshold"}, Type: bt.TInt, Default: -1.0, Doc: "successes needed; -1: all children"},
		{Name: "failure_count", Aliases: []string{"failure_threshold"}, Type: bt.TInt, Default: 1.0, Doc: "failures that fail the node; -1: all children"},
	},
	New: newBTParallel,
}

var parallelAllType = bt.NodeType{
	Name: "ParallelAll", KeepsProgress: true, Kind: bt.Composite, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: ticks every child that has not completed, on every tick, until all have completed; then FAILURE " +
		"if at least `max_failures` failed, else SUCCESS. A negative `max_failures` counts from the number of children (-1: all).",
	Params: []bt.Param{{Name: "max_failures", Type: bt.TInt, Default: 1.0, Doc: "failures that fail the node; -1: all children"}},
	New:    newParallelAll,
}

type btParallel struct {
	success, failure int
	// allSucceed: success_count was negative, so skipped children count
	// towards it (BT.CPP).
	allSucceed bool
	done       bt.MemSlice[bt.Status] // each child's completion in this activation
}

var _ bt.Opener = (*btParallel)(nil)

func newBTParallel(b *bt.Builder) bt.Behavior {
	n := len(b.Children())
	p := &btParallel{success: bt.Threshold(b.Int("success_count"), n), failure: bt.Threshold(b.Int("failure_count"), n), allSucceed: b.Int("success_count") < 0}
	bt.CheckThresholds(b, "success_count", p.success, "failure_count", p.failure, n)
	p.done = bt.ReserveSlice[bt.Status](b, n)
	return p
}

func (p *btParallel) Open(a *bt.Agent, n *bt.Node) { clear(p.done.Of(a, n)) }

func (p *btParallel) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	done := p.done.Of(a, n)
	succ, fail := 0, 0
	for _, st := range done {
		switch st {
		case bt.Success:
			succ++
		case bt.Failure:
			fail++
		}
	}
	skipped := 0 // in this tick, as BT.CPP counts them
	for i, c := range n.Children {
		if done[i] == bt.Idle {
			switch st := a.Exec(c); st {
			case bt.Success:
				done[i] = st
				succ++
			case bt.Failure:
				done[i] = st
				fail++
			case bt.Skipped:
				skipped++
			case bt.Error:
				return bt.Error
			}
		}
		if succ >= p.success || (p.allSucceed && succ+skipped >= p.success) {
			return bt.Success
		}
		if len(n.Children)-fail < p.success || fail == p.failure {
			return bt.Failure
		}
	}
	if skipped == len(n.Children) {
		return bt.Skipped
	}
	return bt.Running
}

type parallelAll struct {
	failures int
	done     bt.MemSlice[bt.Status]
}

var _ bt.Opener = (*parallelAll)(nil)

func newParallelAll(b *bt.Builder) bt.Behavior {
	n := len(b.Children())
	p := &parallelAll{failures: bt.Threshold(b.Int("max_failures"), n), done: bt.ReserveSlice[bt.Status](b, n)}
	if n > 0 && p.failures > n {
		b.Errorf("max_failures", "needs %d failures but has only %d children", p.failures, n)
	}
	return p
}

func (p *parallelAll) Open(a *bt.Agent, n *bt.Node) { clear(p.done.Of(a, n)) }

func (p *parallelAll) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	done := p.done.Of(a, n)
	completed, fail, skipped := 0, 0, 0
	for i, c := range n.Children {
		if done[i] == bt.Idle {
			switch st := a.Exec(c); st {
			case bt.Success, bt.Failure:
				done[i] = st
			case bt.Skipped:
				skipped++
			case bt.Error:
				return bt.Error
			}
		}
		if done[i] != bt.Idle {
			completed++
			if done[i] == bt.Failure {
				fail++
			}
		}
	}
	switch {
	case skipped == len(n.Children):
		return bt.Skipped
	case completed+skipped < len(n.Children):
		return bt.Running
	case fail >= p.failures:
		return bt.Failure
	}
	return bt.Success
}
