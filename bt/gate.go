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

// gate's word says whether this agent holds a slot. The count of holders
// is tree-wide state (Builder.SetShared), changed only with atomics, so
// agents may be ticked from different goroutines. An agent that is
// dropped without being halted (Agent.HaltAll or Reset) keeps its slot:
// the daemon halts an agent whenever its mission ends.
type gate struct {
	max    int32
	shared *gateState
}

// gateState is the tree-wide semaphore of one Gate node.
type gateState struct{ held atomic.Int32 }

// Held returns how many agents hold a slot now.
func (g *gateState) Held() int { return int(g.held.Load()) }

func newGate(b *Builder) Behavior {
	b.Words(1)
	g := &gate{max: int32(b.Int("max")), shared: &gateState{}}
	b.SetShared(g.shared)
	return g
}

// Open takes a slot if one is free.
func (g *gate) Open(a *Agent, n *Node) {
	m := a.Mem(n)
	m[0] = 0
	for {
		h := g.shared.held.Load()
		if h >= g.max {
			return
		}
		if g.shared.held.CompareAndSwap(h, h+1) {
			m[0] = 1
			return
		}
	}
}

func (g *gate) Tick(a *Agent, n *Node) Status {
	if a.Mem(n)[0] == 0 {
		return Failure
	}
	return a.Exec(n.Children[0])
}

// Close gives the slot back; a halt does the same (no Halt method).
func (g *gate) Close(a *Agent, n *Node) {
	m := a.Mem(n)
	if m[0] != 0 {
		m[0] = 0
		g.shared.held.Add(-1)
	}
}
