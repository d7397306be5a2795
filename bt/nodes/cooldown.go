package nodes

import (
	"sync/atomic"

	"github.com/botd-project/botd/bt"
)

var cooldownType = bt.NodeType{
	Name: "Cooldown", Kind: bt.Decorator,
	Doc: "After the child succeeds, returns FAILURE without ticking it for `ms`. " +
		"`scope: global`: one cooldown shared by every agent running this tree.",
	Params: []bt.Param{
		bt.MsParam("ms", "cooldown after a success", true),
		{Name: "scope", Type: bt.TEnum, Enum: []string{"agent", "global"}, Default: "agent", Doc: "agent: per agent; global: shared by every agent of the tree"},
	},
	New: newCooldown,
}

type cooldown struct {
	ms     bt.Num
	global *globalCooldown
	mem    bt.Mem[cooldownMem]
}

var _ bt.Opener = (*cooldown)(nil)

// cooldownMem is a Cooldown's per-agent memory.
type cooldownMem struct {
	dur     uint64 // ns, read when the node opens; badDuration when it could not be
	until   int64  // end of the agent's cooldown (agent scope), clock ns
	started bool   // whether a cooldown was ever started (agent scope)
}

// globalCooldown is the tree-wide end of the cooldown (clock ns, 0: none).
type globalCooldown struct{ until atomic.Int64 }

func newCooldown(b *bt.Builder) bt.Behavior {
	c := &cooldown{ms: b.Number("ms"), mem: bt.Reserve[cooldownMem](b)}
	if s, _ := b.Raw("scope"); s == "global" {
		c.global = &globalCooldown{}
		b.SetShared(c.global)
	}
	return c
}

func (c *cooldown) Open(a *bt.Agent, n *bt.Node) {
	m := c.mem.Of(a, n)
	if d, ok := bt.ReadDuration(a, n.Index, c.ms, "ms"); ok {
		m.dur = uint64(d)
	} else {
		m.dur = badDuration
	}
}

func (c *cooldown) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	m := c.mem.Of(a, n)
	if m.dur == badDuration {
		return bt.Error
	}
	now := a.Now()
	if c.global != nil {
		if u := c.global.until.Load(); u != 0 && now < u {
			return bt.Failure
		}
	} else if m.started && now < m.until {
		return bt.Failure
	}
	st := a.Exec(n.Children[0])
	if st == bt.Success {
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

// badDuration is a duration that could not be read: the node returns
// ERROR.
const badDuration = ^uint64(0)
