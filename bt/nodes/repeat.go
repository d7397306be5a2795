package nodes

import "github.com/botd-project/botd/bt"

var countParam = bt.Param{Name: "count", Aliases: []string{"num_cycles", "num_attempts", "maxLoop"}, Type: bt.TInt, Default: -1.0, Min: bt.Float(-1), Doc: "-1: forever"}

var repeaterType = bt.NodeType{
	Name: "Repeater", KeepsProgress: true, Kind: bt.Decorator,
	Doc: "Each completion of the child (SUCCESS or FAILURE) counts one; after `count` completions returns SUCCESS, otherwise RUNNING. " +
		"At most one child completion per tick: the next run starts on the next tick.",
	Params: []bt.Param{countParam},
	New:    func(b *bt.Builder) bt.Behavior { return newRepeat(b, bt.Idle, bt.Idle) },
}

var repeatUntilFailureType = bt.NodeType{
	Name: "RepeatUntilFailure", KeepsProgress: true, Kind: bt.Decorator,
	Doc:    "Child FAILURE: SUCCESS. Child SUCCESS: counts; after `count` successes, SUCCESS; otherwise RUNNING. One completion per tick.",
	Params: []bt.Param{countParam},
	New:    func(b *bt.Builder) bt.Behavior { return newRepeat(b, bt.Failure, bt.Success) },
}

var repeatUntilSuccessType = bt.NodeType{
	Name: "RepeatUntilSuccess", KeepsProgress: true, Aliases: []string{"Retry"}, Kind: bt.Decorator,
	Doc:    "Child SUCCESS: SUCCESS. Child FAILURE: counts; after `count` failures, FAILURE; otherwise RUNNING. One completion per tick.",
	Params: []bt.Param{countParam},
	New:    func(b *bt.Builder) bt.Behavior { return newRepeat(b, bt.Success, bt.Failure) },
}

// repeat counts completions of its child. A child status equal to stop
// ends the node with SUCCESS; otherwise each completion counts and, after
// count of them, the node returns last (SUCCESS for a plain Repeater).
type repeat struct {
	count      int64
	stop, last bt.Status
	done       bt.Mem[int64] // completions in this activation
}

var _ bt.Opener = (*repeat)(nil)

func newRepeat(b *bt.Builder, stop, exhausted bt.Status) bt.Behavior {
	if exhausted == bt.Idle {
		exhausted = bt.Success
	}
	return &repeat{count: int64(b.Int("count")), stop: stop, last: exhausted, done: bt.Reserve[int64](b)}
}

func (r *repeat) Open(a *bt.Agent, n *bt.Node) { *r.done.Of(a, n) = 0 }

func (r *repeat) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	if r.count == 0 {
		return r.last
	}
	st := a.Exec(n.Children[0])
	switch st {
	case bt.Running, bt.Error:
		return st
	case r.stop:
		return bt.Success
	}
	done := r.done.Of(a, n)
	*done++
	if r.count > 0 && *done >= r.count {
		return r.last
	}
	return bt.Running
}
