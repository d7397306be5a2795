package nodes

import "github.com/botd-project/botd/bt"

var parallelType = bt.NodeType{
	Name: "Parallel", KeepsProgress: true, Kind: bt.Composite,
	Doc: "Each tick, ticks in order every child that has not completed in this activation (a child that errs makes it return ERROR at once). " +
		"Then, counting completions from earlier ticks of this activation too: SUCCESS if at least `success` children succeeded; " +
		"otherwise FAILURE if at least `failure` failed or if every child has completed; otherwise RUNNING. " +
		"A negative count counts from the number of children, as in BehaviorTree.CPP: -1 is all of them, -2 all but one.",
	Params: []bt.Param{
		{Name: "success", Aliases: []string{"success_count", "success_threshold"}, Type: bt.TInt, Default: -1.0, Doc: "successes needed; negative counts from the number of children (-1: all, -2: all but one)"},
		{Name: "failure", Aliases: []string{"failure_count", "failure_threshold"}, Type: bt.TInt, Default: 1.0, Doc: "failures that fail the node; negative counts from the number of children (-1: all)"},
	},
	New: newParallel,
}

type parallel struct {
	success, failure int
	// done is each child's completion in this activation (Idle: not
	// completed), a byte per child.
	done bt.MemSlice[bt.Status]
}

var _ bt.Opener = (*parallel)(nil)

func newParallel(b *bt.Builder) bt.Behavior {
	n := len(b.Children())
	p := &parallel{success: bt.Threshold(b.Int("success"), n), failure: bt.Threshold(b.Int("failure"), n)}
	for _, t := range []struct {
		name string
		v    int
	}{{"success", b.Int("success")}, {"failure", b.Int("failure")}} {
		if t.v < 0 && n+t.v+1 < 1 {
			b.Errorf(t.name, "%d counts back past the first of its %d children", t.v, n)
		}
	}
	bt.CheckThresholds(b, "success", p.success, "failure", p.failure, n)
	p.done = bt.ReserveSlice[bt.Status](b, n)
	return p
}

func (p *parallel) Open(a *bt.Agent, n *bt.Node) { clear(p.done.Of(a, n)) }

func (p *parallel) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	done := p.done.Of(a, n)
	succ, fail := 0, 0
	for i, c := range n.Children {
		st := done[i]
		if st == bt.Idle {
			st = a.Exec(c)
			switch st {
			case bt.Error:
				return bt.Error
			case bt.Running:
				continue
			}
			done[i] = st
		}
		if st == bt.Success {
			succ++
		} else {
			fail++
		}
	}
	switch {
	case succ >= p.success:
		return bt.Success
	case fail >= p.failure || succ+fail == len(n.Children):
		return bt.Failure
	}
	return bt.Running
}
