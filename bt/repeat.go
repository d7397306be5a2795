package bt

var countParam = Param{Name: "count", Aliases: []string{"num_cycles", "num_attempts", "maxLoop"}, Type: TInt, Default: -1.0, Min: Float(-1), Doc: "-1: forever"}

var repeaterType = NodeType{
	Name: "Repeater", KeepsProgress: true, Kind: Decorator,
	Doc: "Each completion of the child (SUCCESS or FAILURE) counts one; after `count` completions returns SUCCESS, otherwise RUNNING. " +
		"At most one child completion per tick: the next run starts on the next tick.",
	Params: []Param{countParam},
	New:    func(b *Builder) Behavior { return newRepeat(b, Idle, Idle) },
}

var repeatUntilFailureType = NodeType{
	Name: "RepeatUntilFailure", KeepsProgress: true, Kind: Decorator,
	Doc:    "Child FAILURE: SUCCESS. Child SUCCESS: counts; after `count` successes, SUCCESS; otherwise RUNNING. One completion per tick.",
	Params: []Param{countParam},
	New:    func(b *Builder) Behavior { return newRepeat(b, Failure, Success) },
}

var repeatUntilSuccessType = NodeType{
	Name: "RepeatUntilSuccess", KeepsProgress: true, Aliases: []string{"Retry"}, Kind: Decorator,
	Doc:    "Child SUCCESS: SUCCESS. Child FAILURE: counts; after `count` failures, FAILURE; otherwise RUNNING. One completion per tick.",
	Params: []Param{countParam},
	New:    func(b *Builder) Behavior { return newRepeat(b, Success, Failure) },
}

// repeat counts completions of its child. A child status equal to stop
// ends the node with SUCCESS; otherwise each completion counts and, after
// count of them, the node returns last (SUCCESS for a plain Repeater).
type repeat struct {
	count      int64
	stop, last Status
	done       Mem[int64] // completions in this activation
}

var _ Opener = (*repeat)(nil)

func newRepeat(b *Builder, stop, exhausted Status) Behavior {
	if exhausted == Idle {
		exhausted = Success
	}
	return &repeat{count: int64(b.Int("count")), stop: stop, last: exhausted, done: Reserve[int64](b)}
}

func (r *repeat) Open(a *Agent, n *Node) { *r.done.Of(a, n) = 0 }

func (r *repeat) Tick(a *Agent, n *Node) Status {
	if r.count == 0 {
		return r.last
	}
	st := a.Exec(n.Children[0])
	switch st {
	case Running, Error:
		return st
	case r.stop:
		return Success
	}
	done := r.done.Of(a, n)
	*done++
	if r.count > 0 && *done >= r.count {
		return r.last
	}
	return Running
}
