package nodes

import "github.com/botd-project/botd/bt"

var limiterType = bt.NodeType{
	Name: "Limiter", Kind: bt.Decorator,
	Doc: "Counts completions of its child over the whole run of the mission for this agent (not reset when it reopens). " +
		"Once `max` is reached, returns FAILURE without ticking the child.",
	Params: []bt.Param{{Name: "max", Aliases: []string{"maxLoop"}, Type: bt.TInt, Required: true, Min: bt.Float(0), Doc: "completions allowed"}},
	New: func(b *bt.Builder) bt.Behavior {
		return &limiter{max: uint64(b.Int("max")), done: bt.Reserve[uint64](b)}
	},
}

type limiter struct {
	max  uint64
	done bt.Mem[uint64] // completions of the child so far
}

func (l *limiter) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	done := l.done.Of(a, n)
	if *done >= l.max {
		return bt.Failure
	}
	st := a.Exec(n.Children[0])
	if st == bt.Success || st == bt.Failure {
		*done++
	}
	return st
}
