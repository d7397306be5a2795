package bt

import (
	"fmt"
	"sync/atomic"
)

// Evaluation is how a tree is evaluated on every tick.
type Evaluation uint8

const (
	// Reactive evaluation starts every tick at the root.
	Reactive Evaluation = iota
	// StoredState evaluation skips nodes that completed until the root
	// completes, and evaluates registered Monitor nodes first.
	StoredState
)

func (e Evaluation) String() string {
	if e == StoredState {
		return "stored-state"
	}
	return "reactive"
}

// ParseEvaluation reads "reactive" (or "") and "stored-state".
func ParseEvaluation(s string) (Evaluation, error) {
	switch s {
	case "", "reactive":
		return Reactive, nil
	case "stored-state":
		return StoredState, nil
	}
	return Reactive, fmt.Errorf("unknown evaluation %q (want reactive or stored-state)", s)
}

// Node is one node of a compiled tree. Nodes are numbered in depth-first
// pre-order; a node's descendants are exactly the indexes in (Index, End).
type Node struct {
	Index    int32
	Parent   int32 // -1 for the root
	End      int32 // one past the last descendant
	Children []int32
	Type     *NodeType
	ID       string
	Name     string
	Path     string // JSON pointer of the definition in the mission
	Tree     string // the mission tree the definition belongs to

	b     Behavior
	op    op     // built-ins the engine calls directly
	open  Opener // nil when the behavior has no Open
	close Closer
	halt  Halter // Halt, or Close when the behavior has no Halt
	mem   int32
	memN  int32
	leaf  bool
	guard bool // recover panics around this leaf's calls
}

// Behavior is the run-time logic of one node. It is shared by every agent
// ticking the tree, so all per-agent state lives in the agent (node memory
// reserved with Reserve, or the blackboard).
//
// Tick is called on every tick the node is reached. A behavior may also
// implement Opener (called before the first tick of an activation), Closer
// (called when Tick returned a status other than RUNNING) and Halter
// (called when the engine stops an open node that did not complete; a
// behavior without Halt gets Close instead). Which of them a behavior has
// is decided once, when the tree is compiled. A node never halts anything
// itself: composites call Agent.Exec on children and the engine applies
// the halt rules.
type Behavior interface {
	Tick(a *Agent, n *Node) Status
}

// Opener is implemented by behaviors that set up state when they open.
type Opener interface{ Open(a *Agent, n *Node) }

// Closer is implemented by behaviors that clean up when they complete
// (and, unless they are also Halters, when they are halted).
type Closer interface{ Close(a *Agent, n *Node) }

// Halter is implemented by behaviors that stop something they started
// when the engine halts them (an action stops the motors it owns).
type Halter interface{ Halt(a *Agent, n *Node) }

// op marks behaviors the engine dispatches without an interface call.
type op uint8

const (
	opGeneric op = iota
	opSequence
	opPriority
	opCheck
	opMemSequence
	opSet
	opWait
	opCheckNum // in hotNode only: a Check with a numeric constant
)

// Tree is a compiled, immutable behavior tree shared by any number of
// agents.
type Tree struct {
	nodes  []Node
	keys   []KeyInfo
	global map[string]Slot
	init   []initValue
	words  int
	eval   Evaluation
	seed   uint64
	shared []any // per-node state shared by all agents (Gate, global Cooldown)
	// monitors lists the Monitor nodes (evaluated first in stored-state).
	monitors []monitorRef
	layout   layout

	// The fast path's arrays (fast.go), built with the layout.
	hot    []hotNode
	kids   []int32
	checks []fastCheck
	sets   []set
	waits  []fastWait

	// DynamicSubTree support (childtree.go); empty for other trees.
	slots     []*slotState // injection slots, by first appearance
	ptrN      int          // per-agent pointer-table entries
	injectSeq atomic.Uint64
	parent    *Tree      // for a child tree: the tree it runs inside
	slotName  string     // for an injected tree: the slot it was compiled for
	bridge    []slotPair // global keys shared with parent

	standIns []StandIn // SubTrees of missing trees, stood in for
	warnings []Problem // what the mission's author should hear of (Warnings)
}

// Warnings lists what the compiler found that does not stop the mission
// from loading but that its author should hear of: an expression whose
// constants put it over its budget, so that it will return ERROR every
// time it runs (budget_static.go). Each has Code CodeWarning.
func (t *Tree) Warnings() []Problem { return t.warnings }

func (t *Tree) warn(p Problem) {
	for _, w := range t.warnings {
		if w == p {
			return
		}
	}
	t.warnings = append(t.warnings, p)
}

// StandIn records a node a wildcard rule stood in for although botd knows
// its name: a SubTree whose tree is in no loaded file, or a leaf of a
// botd name whose parameters are not botd's (another framework's node).
type StandIn struct {
	Path string // the node's JSON pointer
	Tree string // the missing tree a SubTree names, or ""
	Type string // the leaf's type, or ""
	With string // the stand-in: a node type or a Stub's status script
}

// StandIns lists the SubTrees of missing trees and the foreign leaves
// that substitution rules stood in for, in the order they were compiled.
func (t *Tree) StandIns() []StandIn { return t.standIns }

type initValue struct {
	slot Slot
	v    Value
}

// layout places an agent's arrays inside its single memory block.
type layout struct {
	bitWords  int // words per bit set
	wordsOff  int
	numOff    int
	tsOff     int
	bytesOff  int // node state bytes, then value kinds
	total     int
	nodeCount int
	keyCount  int
}

func (t *Tree) computeLayout() {
	n, k := len(t.nodes), len(t.keys)
	l := layout{nodeCount: n, keyCount: k, bitWords: (n + 63) / 64}
	l.wordsOff = l.bitWords
	l.numOff = l.wordsOff + t.words
	l.tsOff = l.numOff + k
	l.bytesOff = l.tsOff + k
	l.total = l.bytesOff + (n+k+7)/8
	t.layout = l
	t.buildHot()
}

// Len returns the number of nodes.
func (t *Tree) Len() int { return len(t.nodes) }

// Node returns node i.
func (t *Tree) Node(i int) *Node { return &t.nodes[i] }

// Root returns the root node.
func (t *Tree) Root() *Node { return &t.nodes[0] }

// Keys returns the blackboard slots of the tree (index = Slot).
func (t *Tree) Keys() []KeyInfo { return t.keys }

// Slot returns the slot of a global blackboard key.
func (t *Tree) Slot(key string) (Slot, bool) {
	s, ok := t.global[key]
	return s, ok
}

// Evaluation returns the tree's evaluation mode.
func (t *Tree) Evaluation() Evaluation { return t.eval }

// Seed returns the seed random composites derive each agent's stream from.
func (t *Tree) Seed() uint64 { return t.seed }

// MemoryBytes returns the size of one agent's memory block in bytes (the
// agent struct itself and string values are extra).
func (t *Tree) MemoryBytes() int { return t.layout.total * 8 }

// Shared returns the tree-wide state of node i (nil for most nodes).
func (t *Tree) Shared(i int32) any { return t.shared[i] }
