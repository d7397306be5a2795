package btcpp

import "github.com/botd-project/botd/bt"

var timeoutType = bt.NodeType{
	Name: "Timeout", Kind: bt.Decorator, SkipsPass: true,
	Doc: "As in BehaviorTree.CPP: ticks the child; if the child is still running once `msec` have passed since the node opened, " +
		"returns FAILURE without ticking it (the child is halted). `msec` 0 sets no limit.",
	Params: []bt.Param{{Name: "msec", Aliases: []string{"ms"}, Type: bt.TNumber, Required: true, Min: bt.Float(0), Unit: "ms", Doc: "time limit; 0: none"}},
	New: func(b *bt.Builder) bt.Behavior {
		return &btTimeout{bt.NewTimer(b, "msec")}
	},
}

type btTimeout struct{ bt.Timer }

var _ bt.Opener = (*btTimeout)(nil)

func (t *btTimeout) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	done, ok := t.Elapsed(a, n)
	switch {
	case !ok:
		return bt.Error
	case done && t.Duration(a, n) > 0 && a.IsOpen(n.Children[0]):
		return bt.Failure
	}
	return a.Exec(n.Children[0])
}
