package bt

var parallelType = NodeType{
	Name: "Parallel", KeepsProgress: true, Kind: Composite,
	Doc: "Each tick, ticks in order every child that has not completed in this activation (a child that errs makes it return ERROR at once). " +
		"Then, counting completions from earlier ticks of this activation too: SUCCESS if at least `success` children succeeded; " +
		"otherwise FAILURE if at least `failure` failed or if every child has completed; otherwise RUNNING. " +
		"A negative count counts from the number of children, as in BehaviorTree.CPP: -1 is all of them, -2 all but one.",
	Params: []Param{
		{Name: "success", Aliases: []string{"success_count", "success_threshold"}, Type: TInt, Default: -1.0, Doc: "successes needed; negative counts from the number of children (-1: all, -2: all but one)"},
		{Name: "failure", Aliases: []string{"failure_count", "failure_threshold"}, Type: TInt, Default: 1.0, Doc: "failures that fail the node; negative counts from the number of children (-1: all)"},
	},
	New: newParallel,
}

type parallel struct {
	success, failure int
	// done is each child's completion in this activation (Idle: not
	// completed), a byte per child.
	done MemSlice[Status]
}

var _ Opener = (*parallel)(nil)

func newParallel(b *Builder) Behavior {
	n := len(b.Children())
	p := &parallel{success: Threshold(b.Int("success"), n), failure: Threshold(b.Int("failure"), n)}
	for _, t := range []struct {
		name string
		v    int
	}{{"success", b.Int("success")}, {"failure", b.Int("failure")}} {
		if t.v < 0 && n+t.v+1 < 1 {
			b.Errorf(t.name, "%d counts back past the first of its %d children", t.v, n)
		}
	}
	CheckThresholds(b, "success", p.success, "failure", p.failure, n)
	p.done = ReserveSlice[Status](b, n)
	return p
}

// CheckThresholds refuses a success or failure count larger than the
// number of children (both Parallel flavours).
func CheckThresholds(b *Builder, succName string, succ int, failName string, fail int, n int) {
	if n > 0 && succ > n {
		b.Errorf(succName, "needs %d successes but has only %d children", succ, n)
	}
	if n > 0 && fail > n {
		b.Errorf(failName, "needs %d failures but has only %d children", fail, n)
	}
}

func (p *parallel) Open(a *Agent, n *Node) { clear(p.done.Of(a, n)) }

func (p *parallel) Tick(a *Agent, n *Node) Status {
	done := p.done.Of(a, n)
	succ, fail := 0, 0
	for i, c := range n.Children {
		st := done[i]
		if st == Idle {
			st = a.Exec(c)
			switch st {
			case Error:
				return Error
			case Running:
				continue
			}
			done[i] = st
		}
		if st == Success {
			succ++
		} else {
			fail++
		}
	}
	switch {
	case succ >= p.success:
		return Success
	case fail >= p.failure || succ+fail == len(n.Children):
		return Failure
	}
	return Running
}
