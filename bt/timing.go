package bt

var maxTimeType = NodeType{
	Name: "MaxTime", Aliases: []string{"Timeout"}, Kind: Decorator,
	Doc:    "If `ms` has passed since it opened, returns FAILURE without ticking the child (whose halt follows from the close rule); otherwise ticks the child and returns its status.",
	Params: []Param{msParam("ms", "time limit", true)},
	New:    func(b *Builder) Behavior { b.Words(2); return &maxTime{ms: b.Number("ms")} },
}

var delayType = NodeType{
	Name: "Delay", Kind: Decorator,
	Doc:    "RUNNING for `ms` after it opens, then ticks the child.",
	Params: []Param{{Name: "ms", Aliases: []string{"delay_msec", "milliseconds"}, Type: TNumber, Required: true, Min: Float(0), Unit: "ms", Doc: "delay"}},
	New:    func(b *Builder) Behavior { b.Words(2); return &delay{ms: b.Number("ms")} },
}

var waitType = NodeType{
	Name: "Wait", Aliases: []string{"Sleep"}, Kind: Leaf, Category: "action",
	Doc:    "RUNNING until `ms` has passed since it opened, then SUCCESS.",
	Params: []Param{msParam("ms", "how long to wait", true)},
	New:    func(b *Builder) Behavior { b.Words(2); return &wait{ms: b.Number("ms")} },
}

// timer keeps the opening time in word 0 and the duration (ns, read when
// the node opens) in word 1; a duration that could not be read is stored as
// all ones and makes the node return ERROR.
func openTimer(a *Agent, n *Node, ms Num) {
	m := a.Mem(n)
	m[0] = uint64(a.Now())
	if d, ok := readMs(a, ms); ok {
		m[1] = uint64(d)
	} else {
		m[1] = badDuration
	}
}

const badDuration = ^uint64(0)

// elapsed reports whether the node's duration has passed (now - start >= d).
func elapsed(a *Agent, n *Node) (done, ok bool) {
	m := a.Mem(n)
	if m[1] == badDuration {
		return false, false
	}
	return a.Now()-int64(m[0]) >= int64(m[1]), true
}

type maxTime struct {
	ms Num
}

func (d *maxTime) Open(a *Agent, n *Node) { openTimer(a, n, d.ms) }

func (*maxTime) Tick(a *Agent, n *Node) Status {
	done, ok := elapsed(a, n)
	switch {
	case !ok:
		return Error
	case done:
		return Failure
	}
	return a.Exec(n.Children[0])
}

type delay struct {
	ms Num
}

func (d *delay) Open(a *Agent, n *Node) { openTimer(a, n, d.ms) }

func (*delay) Tick(a *Agent, n *Node) Status {
	done, ok := elapsed(a, n)
	switch {
	case !ok:
		return Error
	case !done:
		return Running
	}
	return a.Exec(n.Children[0])
}

type wait struct {
	ms Num
}

func (w *wait) Open(a *Agent, n *Node) { openTimer(a, n, w.ms) }

func (*wait) Tick(a *Agent, n *Node) Status {
	done, ok := elapsed(a, n)
	switch {
	case !ok:
		return Error
	case done:
		return Success
	}
	return Running
}
