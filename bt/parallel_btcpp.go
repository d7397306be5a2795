package bt

var btParallelType = NodeType{
	Name: "ParallelNode", KeepsProgress: true, Kind: Composite, SkipsPass: true,
	Doc: "BehaviorTree.CPP's Parallel (imported from XML `Parallel`): each tick, ticks in order the children that have not completed " +
		"in this activation, and after each one checks: SUCCESS once `success_count` children succeeded; FAILURE once `failure_count` " +
		"failed or too few can still succeed. Children not ticked yet in that tick are not ticked. Negative counts count from the number " +
		"of children: -1 is all of them, -2 all but one.",
	Params: []Param{
		{Name: "success_count", Aliases: []string{"success_threshold"}, Type: TInt, Default: -1.0, Doc: "successes needed; -1: all children"},
		{Name: "failure_count", Aliases: []string{"failure_threshold"}, Type: TInt, Default: 1.0, Doc: "failures that fail the node; -1: all children"},
	},
	New: newBTParallel,
}

var parallelAllType = NodeType{
	Name: "ParallelAll", KeepsProgress: true, Kind: Composite, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: ticks every child that has not completed, on every tick, until all have completed; then FAILURE " +
		"if at least `max_failures` failed, else SUCCESS. A negative `max_failures` counts from the number of children (-1: all).",
	Params: []Param{{Name: "max_failures", Type: TInt, Default: 1.0, Doc: "failures that fail the node; -1: all children"}},
	New:    newParallelAll,
}

// threshold resolves BT.CPP's negative thresholds: -1 is every child, -2
// all but one, and so on (never below 0).
func threshold(t, children int) int {
	if t >= 0 {
		return t
	}
	return max(children+t+1, 0)
}

type btParallel struct {
	success, failure int
	// allSucceed: success_count was negative, so skipped children count
	// towards it (BT.CPP).
	allSucceed bool
	done       MemSlice[Status] // each child's completion in this activation
}

var _ Opener = (*btParallel)(nil)

func newBTParallel(b *Builder) Behavior {
	n := len(b.Children())
	p := &btParallel{success: threshold(b.Int("success_count"), n), failure: threshold(b.Int("failure_count"), n), allSucceed: b.Int("success_count") < 0}
	checkThresholds(b, "success_count", p.success, "failure_count", p.failure, n)
	p.done = ReserveSlice[Status](b, n)
	return p
}

func (p *btParallel) Open(a *Agent, n *Node) { clear(p.done.Of(a, n)) }

func (p *btParallel) Tick(a *Agent, n *Node) Status {
	done := p.done.Of(a, n)
	succ, fail := 0, 0
	for _, st := range done {
		switch st {
		case Success:
			succ++
		case Failure:
			fail++
		}
	}
	skipped := 0 // in this tick, as BT.CPP counts them
	for i, c := range n.Children {
		if done[i] == Idle {
			switch st := a.Exec(c); st {
			case Success:
				done[i] = st
				succ++
			case Failure:
				done[i] = st
				fail++
			case Skipped:
				skipped++
			case Error:
				return Error
			}
		}
		if succ >= p.success || (p.allSucceed && succ+skipped >= p.success) {
			return Success
		}
		if len(n.Children)-fail < p.success || fail == p.failure {
			return Failure
		}
	}
	if skipped == len(n.Children) {
		return Skipped
	}
	return Running
}

type parallelAll struct {
	failures int
	done     MemSlice[Status]
}

var _ Opener = (*parallelAll)(nil)

func newParallelAll(b *Builder) Behavior {
	n := len(b.Children())
	p := &parallelAll{failures: threshold(b.Int("max_failures"), n), done: ReserveSlice[Status](b, n)}
	if n > 0 && p.failures > n {
		b.Errorf("max_failures", "needs %d failures but has only %d children", p.failures, n)
	}
	return p
}

func (p *parallelAll) Open(a *Agent, n *Node) { clear(p.done.Of(a, n)) }

func (p *parallelAll) Tick(a *Agent, n *Node) Status {
	done := p.done.Of(a, n)
	completed, fail, skipped := 0, 0, 0
	for i, c := range n.Children {
		if done[i] == Idle {
			switch st := a.Exec(c); st {
			case Success, Failure:
				done[i] = st
			case Skipped:
				skipped++
			case Error:
				return Error
			}
		}
		if done[i] != Idle {
			completed++
			if done[i] == Failure {
				fail++
			}
		}
	}
	switch {
	case skipped == len(n.Children):
		return Skipped
	case completed+skipped < len(n.Children):
		return Running
	case fail >= p.failures:
		return Failure
	}
	return Success
}
