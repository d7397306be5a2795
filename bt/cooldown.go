package bt

import "sync/atomic"

var cooldownType = NodeType{
	Name: "Cooldown", Kind: Decorator,
	Doc: "After the child succeeds, returns FAILURE without ticking it for `ms`. " +
		"`scope: global`: one cooldown shared by every agent running this tree.",
	Params: []Param{
		msParam("ms", "cooldown after a success", true),
		{Name: "scope", Type: TEnum, Enum: []string{"agent", "global"}, Default: "agent", Doc: "agent: per agent; global: shared by every agent of the tree"},
	},
	New: newCooldown,
}

type cooldown struct {
	ms     Num
	global *globalCooldown
	mem    Mem[cooldownMem]
}

var _ Opener = (*cooldown)(nil)

// cooldownMem is a Cooldown's per-agent memory.
type cooldownMem struct {
	dur     uint64 // ns, read when the node opens; badDuration when it could not be
	until   int64  // end of the agent's cooldown (agent scope), clock ns
	started bool   // whether a cooldown was ever started (agent scope)
}

// globalCooldown is the tree-wide end of the cooldown (clock ns, 0: none).
type globalCooldown struct{ until atomic.Int64 }

func newCooldown(b *Builder) Behavior {
	c := &cooldown{ms: b.Number("ms"), mem: Reserve[cooldownMem](b)}
	if s, _ := b.Raw("scope"); s == "global" {
		c.global = &globalCooldown{}
		b.SetShared(c.global)
	}
	return c
}

func (c *cooldown) Open(a *Agent, n *Node) {
	m := c.mem.Of(a, n)
	if d, ok := readMs(a, n.Index, c.ms); ok {
		m.dur = uint64(d)
	} else {
		m.dur = badDuration
	}
}

func (c *cooldown) Tick(a *Agent, n *Node) Status {
	m := c.mem.Of(a, n)
	if m.dur == badDuration {
		return Error
	}
	now := a.Now()
	if c.global != nil {
		if u := c.global.until.Load(); u != 0 && now < u {
			return Failure
		}
	} else if m.started && now < m.until {
		return Failure
	}
	st := a.Exec(n.Children[0])
	if st == Success {
		until := now + int64(m.dur)
		if c.global != nil {
			// Agents ticked concurrently may race; the latest end wins.
			for {
				old := c.global.until.Load()
				if old >= until || c.global.until.CompareAndSwap(old, until) {
					break
				}
			}
		} else {
			m.until, m.started = until, true
		}
	}
	return st
}
