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

// cooldown words: the cooldown length read at open, the end of the
// current cooldown (agent scope) and whether one was ever started.
type cooldown struct {
	ms     Num
	global *globalCooldown
}

// globalCooldown is the tree-wide end of the cooldown (clock ns, 0: none).
type globalCooldown struct{ until atomic.Int64 }

func newCooldown(b *Builder) Behavior {
	b.Words(3)
	c := &cooldown{ms: b.Number("ms")}
	if s, _ := b.Raw("scope"); s == "global" {
		c.global = &globalCooldown{}
		b.SetShared(c.global)
	}
	return c
}

func (c *cooldown) Open(a *Agent, n *Node) {
	m := a.Mem(n)
	if d, ok := readMs(a, c.ms); ok {
		m[0] = uint64(d)
	} else {
		m[0] = badDuration
	}
}

func (c *cooldown) Tick(a *Agent, n *Node) Status {
	m := a.Mem(n)
	if m[0] == badDuration {
		return Error
	}
	now := a.Now()
	if c.global != nil {
		if u := c.global.until.Load(); u != 0 && now < u {
			return Failure
		}
	} else if m[2] != 0 && now < int64(m[1]) {
		return Failure
	}
	st := a.Exec(n.Children[0])
	if st == Success {
		until := now + int64(m[0])
		if c.global != nil {
			// Agents ticked concurrently may race; the latest end wins.
			for {
				old := c.global.until.Load()
				if old >= until || c.global.until.CompareAndSwap(old, until) {
					break
				}
			}
		} else {
			m[1], m[2] = uint64(until), 1
		}
	}
	return st
}
