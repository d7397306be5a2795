package bt

import "sync/atomic"

// Test-local stand-ins for nodes of botd's catalog (bt/nodes) that the
// engine's tests use as instruments: a status leaf, a decorator that maps
// statuses, a node that keeps progress, nodes with per-agent memory. An
// in-package test cannot import bt/nodes (it imports bt); these do only
// what the engine's tests need of them, under the catalog's names, and
// bt/nodes tests the real ones.

var standInTypes = []NodeType{
	statusLeaf("Succeed", Success), statusLeaf("Fail", Failure),
	statusLeaf("Running", Running), statusLeaf("Error", Error),
	{Name: "Inverter", Kind: Decorator, SkipsPass: true, New: func(*Builder) Behavior { return inverter{} }},
	{Name: "Repeater", Kind: Decorator, KeepsProgress: true, Params: []Param{repeatCount},
		New: func(b *Builder) Behavior { return &repeatTest{count: int64(b.Int("count")), done: Reserve[int64](b)} }},
	{Name: "RepeatUntilSuccess", Kind: Decorator, KeepsProgress: true, Params: []Param{repeatCount},
		New: func(b *Builder) Behavior {
			return &repeatTest{count: int64(b.Int("count")), untilSuccess: true, done: Reserve[int64](b)}
		}},
	{Name: "Limiter", Kind: Decorator, Params: []Param{{Name: "max", Type: TInt, Required: true, Min: Float(0)}},
		New: func(b *Builder) Behavior { return &limitTest{max: int64(b.Int("max")), done: Reserve[int64](b)} }},
	{Name: "RunOnce", Kind: Decorator, New: func(b *Builder) Behavior { return runOnceTest{Reserve[Status](b)} }},
	{Name: "Parallel", Kind: Composite, Params: []Param{
		{Name: "success", Type: TInt, Default: -1.0}, {Name: "failure", Type: TInt, Default: 1.0}},
		New: func(b *Builder) Behavior {
			n := len(b.Children())
			return &parallelTest{success: Threshold(b.Int("success"), n), failure: Threshold(b.Int("failure"), n),
				done: ReserveSlice[Status](b, n)}
		}},
	{Name: "Gate", Kind: Decorator, Params: []Param{{Name: "max", Type: TInt, Default: 1, Min: Float(1)}},
		New: func(b *Builder) Behavior {
			g := &gateTest{max: int32(b.Int("max")), held: new(atomic.Int32), holds: Reserve[bool](b)}
			b.SetShared(g.held)
			return g
		}},
}

func statusLeaf(name string, st Status) NodeType {
	return NodeType{Name: name, Kind: Leaf, Category: "action", New: func(*Builder) Behavior { return constant(st) }}
}

// inverter swaps its child's SUCCESS and FAILURE.
type inverter struct{}

func (inverter) Tick(a *Agent, n *Node) Status {
	switch st := a.Exec(n.Children[0]); st {
	case Success:
		return Failure
	case Failure:
		return Success
	default:
		return st
	}
}

var repeatCount = Param{Name: "count", Type: TInt, Default: -1.0, Min: Float(-1)}

// repeatTest runs its child count times (-1: forever), one completion
// per tick; untilSuccess stops at the first SUCCESS and counts failures.
type repeatTest struct {
	count        int64
	untilSuccess bool
	done         Mem[int64]
}

func (r *repeatTest) Open(a *Agent, n *Node) { *r.done.Of(a, n) = 0 }

func (r *repeatTest) Tick(a *Agent, n *Node) Status {
	if r.count == 0 {
		return Success
	}
	st := a.Exec(n.Children[0])
	switch {
	case st == Running || st == Error:
		return st
	case r.untilSuccess && st == Success:
		return Success
	}
	done := r.done.Of(a, n)
	if *done++; r.count > 0 && *done >= r.count {
		if r.untilSuccess {
			return Failure
		}
		return Success
	}
	return Running
}

// limitTest lets its child complete max times per agent, then fails.
type limitTest struct {
	max  int64
	done Mem[int64]
}

func (l *limitTest) Tick(a *Agent, n *Node) Status {
	done := l.done.Of(a, n)
	if *done >= l.max {
		return Failure
	}
	st := a.Exec(n.Children[0])
	if st == Success || st == Failure {
		*done++
	}
	return st
}

// runOnceTest runs its child until it completes once, then returns that
// status without ticking it.
type runOnceTest struct{ result Mem[Status] }

func (r runOnceTest) Tick(a *Agent, n *Node) Status {
	result := r.result.Of(a, n)
	if *result != Idle {
		return *result
	}
	st := a.Exec(n.Children[0])
	if st == Success || st == Failure {
		*result = st
	}
	return st
}

// gateTest is a semaphore shared by the agents of a tree (state outside
// the agents): opening takes one of max slots, or fails without ticking
// the child; closing (or a halt) gives it back.
type gateTest struct {
	max   int32
	held  *atomic.Int32
	holds Mem[bool]
}

func (g *gateTest) Open(a *Agent, n *Node) {
	holds := g.holds.Of(a, n)
	*holds = false
	for h := g.held.Load(); h < g.max; h = g.held.Load() {
		if g.held.CompareAndSwap(h, h+1) {
			*holds = true
			return
		}
	}
}

func (g *gateTest) Tick(a *Agent, n *Node) Status {
	if !*g.holds.Of(a, n) {
		return Failure
	}
	return a.Exec(n.Children[0])
}

func (g *gateTest) Close(a *Agent, n *Node) {
	if holds := g.holds.Of(a, n); *holds {
		*holds = false
		g.held.Add(-1)
	}
}

// parallelTest ticks every child not yet completed in this activation:
// SUCCESS at success successes, FAILURE at failure failures or when
// every child has completed, ERROR at once on a child's ERROR.
type parallelTest struct {
	success, failure int
	done             MemSlice[Status]
}

func (p *parallelTest) Open(a *Agent, n *Node) { clear(p.done.Of(a, n)) }

func (p *parallelTest) Tick(a *Agent, n *Node) Status {
	done := p.done.Of(a, n)
	succ, fail := 0, 0
	for i, c := range n.Children {
		if done[i] == Idle {
			switch st := a.Exec(c); st {
			case Error:
				return Error
			case Running:
				continue
			default:
				done[i] = st
			}
		}
		if done[i] == Success {
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
