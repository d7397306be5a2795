package bt

var maxTimeType = NodeType{
	Name: "MaxTime", Kind: Decorator,
	Doc:    "If `ms` has passed since it opened, returns FAILURE without ticking the child (whose halt follows from the close rule); otherwise ticks the child and returns its status.",
	Params: []Param{msParam("ms", "time limit", true)},
	New:    func(b *Builder) Behavior { return &maxTime{newTimer(b)} },
}

var delayType = NodeType{
	Name: "Delay", Kind: Decorator, SkipsPass: true,
	Doc:    "RUNNING for `ms` after it opens, then ticks the child.",
	Params: []Param{{Name: "ms", Aliases: []string{"delay_msec", "milliseconds"}, Type: TNumber, Required: true, Min: Float(0), Unit: "ms", Doc: "delay"}},
	New:    func(b *Builder) Behavior { return &delay{newTimer(b)} },
}

var waitType = NodeType{
	Name: "Wait", Aliases: []string{"Sleep"}, Kind: Leaf, Category: "action",
	Doc:    "RUNNING until `ms` has passed since it opened, then SUCCESS.",
	Params: []Param{msParam("ms", "how long to wait", true)},
	New:    func(b *Builder) Behavior { return &wait{newTimer(b)} },
}

// timer is what MaxTime, Delay and Wait share: a duration parameter read
// when the node opens, and per-agent memory for the time it opened and
// that duration.
type timer struct {
	ms  Num
	mem Mem[timerMem]
}

// timerMem is a timer's per-agent memory.
type timerMem struct {
	start int64  // when the node opened, clock ns
	dur   uint64 // ns; badDuration when it could not be read: the node returns ERROR
}

const badDuration = ^uint64(0)

func newTimer(b *Builder) timer { return timer{ms: b.Number("ms"), mem: Reserve[timerMem](b)} }

// Open starts the timer.
func (t *timer) Open(a *Agent, n *Node) {
	m := t.mem.Of(a, n)
	m.start = a.Now()
	if d, ok := readMs(a, n.Index, t.ms); ok {
		m.dur = uint64(d)
	} else {
		m.dur = badDuration
	}
}

// elapsed reports whether the duration has passed (now - start >= d).
func (t *timer) elapsed(a *Agent, n *Node) (done, ok bool) {
	m := t.mem.Of(a, n)
	if m.dur == badDuration {
		return false, false
	}
	return a.Now()-m.start >= int64(m.dur), true
}

type maxTime struct{ timer }

func (d *maxTime) Tick(a *Agent, n *Node) Status {
	done, ok := d.elapsed(a, n)
	switch {
	case !ok:
		return Error
	case done:
		return Failure
	}
	return a.Exec(n.Children[0])
}

type delay struct{ timer }

func (d *delay) Tick(a *Agent, n *Node) Status {
	done, ok := d.elapsed(a, n)
	switch {
	case !ok:
		return Error
	case !done:
		return Running
	}
	return a.Exec(n.Children[0])
}

type wait struct{ timer }

var (
	_ Opener = (*maxTime)(nil)
	_ Opener = (*delay)(nil)
	_ Opener = (*wait)(nil)
)

func (w *wait) Tick(a *Agent, n *Node) Status {
	done, ok := w.elapsed(a, n)
	switch {
	case !ok:
		return Error
	case done:
		return Success
	}
	return Running
}
