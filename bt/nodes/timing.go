package nodes

import "github.com/botd-project/botd/bt"

var maxTimeType = bt.NodeType{
	Name: "MaxTime", Kind: bt.Decorator,
	Doc:    "If `ms` has passed since it opened, returns FAILURE without ticking the child (whose halt follows from the close rule); otherwise ticks the child and returns its status.",
	Params: []bt.Param{bt.MsParam("ms", "time limit", true)},
	New:    func(b *bt.Builder) bt.Behavior { return &maxTime{bt.NewTimer(b, "ms")} },
}

var delayType = bt.NodeType{
	Name: "Delay", Kind: bt.Decorator, SkipsPass: true,
	Doc:    "RUNNING for `ms` after it opens, then ticks the child.",
	Params: []bt.Param{{Name: "ms", Aliases: []string{"delay_msec", "milliseconds"}, Type: bt.TNumber, Required: true, Min: bt.Float(0), Unit: "ms", Doc: "delay"}},
	New:    func(b *bt.Builder) bt.Behavior { return &delay{bt.NewTimer(b, "ms")} },
}

type maxTime struct{ bt.Timer }

func (d *maxTime) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	done, ok := d.Elapsed(a, n)
	switch {
	case !ok:
		return bt.Error
	case done:
		return bt.Failure
	}
	return a.Exec(n.Children[0])
}

type delay struct{ bt.Timer }

func (d *delay) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	done, ok := d.Elapsed(a, n)
	switch {
	case !ok:
		return bt.Error
	case !done:
		return bt.Running
	}
	return a.Exec(n.Children[0])
}

var (
	_ bt.Opener = (*maxTime)(nil)
	_ bt.Opener = (*delay)(nil)
)
