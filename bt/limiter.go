package bt

var limiterType = NodeType{
	Name: "Limiter", Kind: Decorator,
	Doc: "Counts completions of its child over the whole run of the mission for this agent (not reset when it reopens). " +
		"Once `max` is reached, returns FAILURE without ticking the child.",
	Params: []Param{{Name: "max", Aliases: []string{"maxLoop"}, Type: TInt, Required: true, Min: Float(0), Doc: "completions allowed"}},
	New: func(b *Builder) Behavior {
		return &limiter{max: uint64(b.Int("max")), done: Reserve[uint64](b)}
	},
}

type limiter struct {
	max  uint64
	done Mem[uint64] // completions of the child so far
}

func (l *limiter) Tick(a *Agent, n *Node) Status {
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
