package bt

var timeExpiredType = NodeType{
	Name: "TimeExpired", Kind: Leaf, Category: "condition",
	Doc: "As in Nav2: when it starts afresh notes the time and returns FAILURE; afterwards SUCCESS once `seconds` have passed " +
		"(and it starts counting again), else FAILURE.",
	Params: []Param{{Name: "seconds", Type: TNumber, Default: 1.0, Min: Float(0), Unit: "s", Doc: "period"}},
	New: func(b *Builder) Behavior {
		return &timeExpired{seconds: b.Number("seconds"), path: NoSlot, mem: Reserve[expiryMem](b)}
	},
}

var pathExpiringTimerType = NodeType{
	Name: "PathExpiringTimer", Kind: Leaf, Category: "condition",
	Doc: "As in Nav2: the first time it runs in the mission notes the time and returns FAILURE; afterwards SUCCESS once `seconds` " +
		"have passed (and it starts counting again), else FAILURE. A new path (a write of the `path` key) restarts the count.",
	Params: []Param{
		{Name: "seconds", Type: TNumber, Default: 1.0, Min: Float(0), Unit: "s", Doc: "period"},
		{Name: "path", Type: TString, Doc: "the path's key (\"{key}\")"},
	},
	New: func(b *Builder) Behavior {
		return &timeExpired{seconds: b.Number("seconds"), path: b.portKey("path"), perMission: true, mem: Reserve[expiryMem](b)}
	},
}

type timeExpired struct {
	seconds    Num
	path       Slot // PathExpiringTimer
	perMission bool // starts only once per mission (PathExpiringTimer)
	mem        Mem[expiryMem]
}

type expiryMem struct {
	held      HeldMem
	start     int64
	pathStamp int64
	started   bool
}

func (t *timeExpired) Tick(a *Agent, n *Node) Status {
	m := t.mem.Of(a, n)
	fresh := !a.HeldStatus(n, &m.held)
	if t.perMission {
		fresh = !m.started
	}
	var stamp int64
	if t.path != NoSlot {
		stamp, _ = a.BB.Stamp(t.path)
	}
	if fresh {
		m.start, m.pathStamp, m.started = a.Now(), stamp, true
		return Failure
	}
	if stamp != m.pathStamp {
		m.start, m.pathStamp = a.Now(), stamp
	}
	d, ok := ReadDuration(a, n.Index, t.seconds, "s")
	if !ok {
		return Error
	}
	if a.Now()-m.start < d {
		return Failure
	}
	m.start = a.Now()
	return Success
}
