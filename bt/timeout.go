package bt

var timeoutType = NodeType{
	Name: "Timeout", Kind: Decorator, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: ticks the child; if the child is still running once `msec` have passed since the node opened, " +
		"returns FAILURE without ticking it (the child is halted). `msec` 0 sets no limit.",
	Params: []Param{{Name: "msec", Aliases: []string{"ms"}, Type: TNumber, Required: true, Min: Float(0), Unit: "ms", Doc: "time limit; 0: none"}},
	New:    func(b *Builder) Behavior { return &btTimeout{timer{ms: b.Number("msec"), mem: Reserve[timerMem](b)}} },
}

type btTimeout struct{ timer }

var _ Opener = (*btTimeout)(nil)

func (t *btTimeout) Tick(a *Agent, n *Node) Status {
	done, ok := t.elapsed(a, n)
	switch {
	case !ok:
		return Error
	case done && t.mem.Of(a, n).dur > 0 && a.IsOpen(n.Children[0]):
		return Failure
	}
	return a.Exec(n.Children[0])
}
