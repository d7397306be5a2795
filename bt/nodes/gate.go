package nodes

import (
	"sync/atomic"

	"github.com/botd-project/botd/bt"
)

var gateType = bt.NodeType{
	Name: "Gate", Kind: bt.Decorator,
	Doc: "A semaphore shared by every agent running this tree: opening takes one of `max` slots, or returns FAILURE " +
		"without ticking the child when none is free. The slot is given back when the node closes or is halted, " +
		"so an agent whose branch is halted frees its slot in that same tick.",
	Params: []bt.Param{
		{Name: "max", Type: bt.TInt, Default: 1, Min: bt.Float(1), Doc: "agents allowed in the branch at once"},
	},
	New: newGate,
}

// gate's memory says whether this agent holds a slot. The count of holders
// is tree-wide state (Builder.SetShared), changed only with atomics, so
// agents may be ticked from different goroutines. An agent that is
// dropped without being halted (Agent.HaltAll or Reset) keeps its slot:
// the daemon halts an agent whenever its mission ends.
type gate struct {
	max    int32
	shared *gateState
	holds  bt.Mem[bool]
}

var (
	_ bt.Opener = (*gate)(nil)
	_ bt.Closer = (*gate)(nil) // also on halt: a halted branch gives its slot back
)

// gateState is the tree-wide semaphore of one Gate node.
type gateState struct{ held atomic.Int32 }

// Held returns how many agents hold a slot now.
func (g *gateState) Held() int { return int(g.held.Load()) }

func newGate(b *bt.Builder) bt.Behavior {
	g := &gate{max: int32(b.Int("max")), shared: &gateState{}, holds: bt.Reserve[bool](b)}
	b.SetShared(g.shared)
	return g
}

// Open takes a slot if one is free.
func (g *gate) Open(a *bt.Agent, n *bt.Node) {
	holds := g.holds.Of(a, n)
	*holds = false
	for {
		h := g.shared.held.Load()
		if h >= g.max {
			return
		}
		if g.shared.held.CompareAndSwap(h, h+1) {
			*holds = true
			return
		}
	}
}

func (g *gate) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	if !*g.holds.Of(a, n) {
		return bt.Failure
	}
	return a.Exec(n.Children[0])
}

// Close gives the slot back; a halt does the same (no Halt method).
func (g *gate) Close(a *bt.Agent, n *bt.Node) {
	if holds := g.holds.Of(a, n); *holds {
		*holds = false
		g.shared.held.Add(-1)
	}
}
