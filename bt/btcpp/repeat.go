package btcpp

import "github.com/botd-project/botd/bt"

var btRepeatType = bt.NodeType{
	Name: "Repeat", KeepsProgress: true, Kind: bt.Decorator, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: ticks the child again, within the same tick, each time it succeeds, until it has succeeded " +
		"`num_cycles` times (SUCCESS); stops at the first FAILURE (FAILURE). A RUNNING child makes it RUNNING and it resumes there. " +
		"-1 repeats forever. At most 1000 restarts per tick: past that it returns RUNNING and goes on at the next tick.",
	Params: []bt.Param{{Name: "num_cycles", Aliases: []string{"count"}, Type: bt.TNumber, Required: true, Min: bt.Float(-1),
		Doc: "successes to repeat; -1: forever"}},
	New: func(b *bt.Builder) bt.Behavior { return newBTLoop(b, "num_cycles", bt.Success) },
}

var btRetryType = bt.NodeType{
	Name: "RetryUntilSuccessful", KeepsProgress: true, Aliases: []string{"RetryUntilSuccesful"}, Kind: bt.Decorator, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: ticks the child again, within the same tick, each time it fails, up to `num_attempts` attempts " +
		"(then FAILURE); stops at the first SUCCESS (SUCCESS). A RUNNING child makes it RUNNING and it resumes there. " +
		"-1 retries forever. At most 1000 restarts per tick: past that it returns RUNNING and goes on at the next tick.",
	Params: []bt.Param{{Name: "num_attempts", Aliases: []string{"count"}, Type: bt.TNumber, Required: true, Min: bt.Float(-1),
		Doc: "attempts; -1: forever"}},
	New: func(b *bt.Builder) bt.Behavior { return newBTLoop(b, "num_attempts", bt.Failure) },
}

// btLoop is BT.CPP's Repeat (again on SUCCESS) and RetryUntilSuccessful
// (again on FAILURE): the child runs again within the same tick each time
// it completes with again, until count completions; the other completed
// status ends the loop with that status.
type btLoop struct {
	count bt.Num
	again bt.Status
	done  bt.Mem[int64] // completions in this activation
}

var _ bt.Opener = (*btLoop)(nil)

func newBTLoop(b *bt.Builder, param string, again bt.Status) bt.Behavior {
	l := &btLoop{count: b.Number(param), again: again, done: bt.Reserve[int64](b)}
	checkWhole(b, param, l.count)
	return l
}

func (l *btLoop) Open(a *bt.Agent, n *bt.Node) { *l.done.Of(a, n) = 0 }

func (l *btLoop) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	count, ok := countOf(a, l.count)
	if !ok {
		a.Emit(n.Index, "error", badCount(a, l.count))
		return bt.Error
	}
	done := l.done.Of(a, n)
	for i := 0; count == -1 || *done < count; i++ {
		if i == maxLoopsPerTick {
			return bt.Running
		}
		switch st := a.Exec(n.Children[0]); st {
		case l.again:
			*done++
		default: // the other completion, RUNNING or ERROR
			return st
		}
	}
	return l.again
}
