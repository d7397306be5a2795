package nav2

import "github.com/botd-project/botd/bt"

var timeExpiredType = bt.NodeType{
	Name: "TimeExpired", Kind: bt.Leaf, Category: "condition",
	Doc: "As in Nav2: when it starts afresh notes the time and returns FAILURE; afterwards SUCCESS once `seconds` have passed " +
		"(and it starts counting again), else FAILURE.",
	Params: []bt.Param{{Name: "seconds", Type: bt.TNumber, Default: 1.0, Min: bt.Float(0), Unit: "s", Doc: "period"}},
	New: func(b *bt.Builder) bt.Behavior {
		return &timeExpired{seconds: b.Number("seconds"), path: bt.NoSlot, mem: bt.Reserve[expiryMem](b)}
	},
}

var pathExpiringTimerType = bt.NodeType{
	Name: "PathExpiringTimer", Kind: bt.Leaf, Category: "condition",
	Doc: "As in Nav2: the first time it runs in the mission notes the time and returns FAILURE; afterwards SUCCESS once `seconds` " +
		"have passed (and it starts counting again), else FAILURE. A new path (a write of the `path` key) restarts the count.",
	Params: []bt.Param{
		{Name: "seconds", Type: bt.TNumber, Default: 1.0, Min: bt.Float(0), Unit: "s", Doc: "period"},
		{Name: "path", Type: bt.TString, Doc: "the path's key (\"{key}\")"},
	},
	New: func(b *bt.Builder) bt.Behavior {
		return &timeExpired{seconds: b.Number("seconds"), path: b.PortKey("path"), perMission: true, mem: bt.Reserve[expiryMem](b)}
	},
}

type timeExpired struct {
	seconds    bt.Num
	path       bt.Slot // PathExpiringTimer
	perMission bool    // starts only once per mission (PathExpiringTimer)
	mem        bt.Mem[expiryMem]
}

type expiryMem struct {
	held      bt.HeldMem
	start     int64
	pathStamp int64
	started   bool
}

func (t *timeExpired) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := t.mem.Of(a, n)
	fresh := !a.HeldStatus(n, &m.held)
	if t.perMission {
		fresh = !m.started
	}
	var stamp int64
	if t.path != bt.NoSlot {
		stamp, _ = a.BB.Stamp(t.path)
	}
	if fresh {
		m.start, m.pathStamp, m.started = a.Now(), stamp, true
		return bt.Failure
	}
	if stamp != m.pathStamp {
		m.start, m.pathStamp = a.Now(), stamp
	}
	d, ok := bt.ReadDuration(a, n.Index, t.seconds, "s")
	if !ok {
		return bt.Error
	}
	if a.Now()-m.start < d {
		return bt.Failure
	}
	m.start = a.Now()
	return bt.Success
}
