package bt

import "sync/atomic"

var gateType = NodeType{
	Name: "Gate", Kind: Decorator,
	Doc: "A semaphore shared by every agent running this tree: opening takes one of `max` slots, or returns FAILURE " +
		"without ticking the child when none is free. The slot is given back when the node closes or is halted, " +
		"so an agent whose branch is halted frees its slot in that same tick.",
	Params: []Param{
		{Name: "max", Type: TInt, Default: 1, Min: Float(1), Doc: "agents allowed in the branch at once"},
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
	holds  Mem[bool]
}

var (
	_ Opener = (*gate)(nil)
	_ Closer = (*gate)(nil) // also on halt: a halted branch gives its slot back
)

// gateState is the tree-wide semaphore of one Gate node.
type gateState struct{ held atomic.Int32 }

// Held returns how many agents hold a slot now.
func (g *gateState) Held() int { return int(g.held.Load()) }

func newGate(b *Builder) Behavior {
	g := &gate{max: int32(b.Int("max")), shared: &gateState{}, holds: Reserve[bool](b)}
	b.SetShared(g.shared)
	return g
}

// Open takes a slot if one is free.
func (g *gate) Open(a *Agent, n *Node) {
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

func (g *gate) Tick(a *Agent, n *Node) Status {
	if !*g.holds.Of(a, n) {
		return Failure
	}
	return a.Exec(n.Children[0])
}

// Close gives the slot back; a halt does the same (no Halt method).
func (g *gate) Close(a *Agent, n *Node) {
	if holds := g.holds.Of(a, n); *holds {
		*holds = false
		g.shared.held.Add(-1)
	}
}
