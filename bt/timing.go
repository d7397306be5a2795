package bt

var waitType = NodeType{
	Name: "Wait", Aliases: []string{"Sleep"}, Kind: Leaf, Category: "action",
	Doc:    "RUNNING until `ms` has passed since it opened, then SUCCESS.",
	Params: []Param{msParam("ms", "how long to wait", true)},
	New:    func(b *Builder) Behavior { return &wait{newTimer(b)} },
}

// Timer is what MaxTime, Delay and Wait (and BT.CPP's Timeout and
// TestNode) share: a duration parameter read when the node opens, and
// per-agent memory for the time it opened and that duration. A behavior
// embeds it (NewTimer) and gets its Open.
type Timer struct {
	ms  Num
	mem Mem[timerMem]
}

// timerMem is a timer's per-agent memory.
type timerMem struct {
	start int64  // when the node opened, clock ns
	dur   uint64 // ns; badDuration when it could not be read: the node returns ERROR
}

const badDuration = ^uint64(0)

func newTimer(b *Builder) Timer { return NewTimer(b, "ms") }

// NewTimer reserves a timer on the duration parameter param (ms).
func NewTimer(b *Builder, param string) Timer {
	return Timer{ms: b.Number(param), mem: Reserve[timerMem](b)}
}

// Open starts the timer.
func (t *Timer) Open(a *Agent, n *Node) {
	m := t.mem.Of(a, n)
	m.start = a.Now()
	if d, ok := readMs(a, n.Index, t.ms); ok {
		m.dur = uint64(d)
	} else {
		m.dur = badDuration
	}
}

// Elapsed reports whether the duration has passed since the node opened
// (now - start >= d); ok is false when the duration could not be read.
func (t *Timer) Elapsed(a *Agent, n *Node) (done, ok bool) {
	m := t.mem.Of(a, n)
	if m.dur == badDuration {
		return false, false
	}
	return a.Now()-m.start >= int64(m.dur), true
}

type wait struct{ Timer }

var _ Opener = (*wait)(nil)

func (w *wait) Tick(a *Agent, n *Node) Status {
	done, ok := w.Elapsed(a, n)
	switch {
	case !ok:
		return Error
	case done:
		return Success
	}
	return Running
}

// Duration is the duration the timer read when the node opened, in clock
// ns (0 when it could not be read).
func (t *Timer) Duration(a *Agent, n *Node) int64 {
	if d := t.mem.Of(a, n).dur; d != badDuration {
		return int64(d)
	}
	return 0
}
