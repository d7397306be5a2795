package bt

import (
	"errors"
	"fmt"
	"strings"
)

var dynamicSubTreeType = NodeType{
	Name: "DynamicSubTree", KeepsProgress: true, Kind: Leaf, Category: "action",
	Doc: "Runs the tree currently injected into `slot` for this agent (or for every agent of the tree), else the " +
		"mission tree `default`, else returns FAILURE. The tree is chosen when the node opens: an injection never " +
		"changes a run in progress. Global blackboard keys known to both trees are shared (copied in before and " +
		"out after every tick of the child tree); its other keys are private to it. Telemetry and traces show " +
		"this node only, with the child tree's status.",
	Params: []Param{
		{Name: "slot", Type: TString, Required: true, Doc: "name under which trees are injected (a constant)"},
		{Name: "default", Type: TTree, Doc: "tree of the mission to run while nothing is injected"},
	},
	New: newDynamic,
}

// Errors of the injection API.
var (
	// ErrUnknownSlot: the tree has no DynamicSubTree with that slot.
	ErrUnknownSlot = errors.New("unknown slot")
	// ErrSlotMismatch: the injected tree was not compiled for this tree
	// and slot (Registry.CompileSlotTree).
	ErrSlotMismatch = errors.New("tree compiled for another tree or slot")
)

// dynamic runs a child tree in a child agent kept in the agent's pointer
// table (the memory block holds no pointers). The child's node statuses
// are not in the parent's node table.
type dynamic struct {
	slot int   // index in Tree.slots
	ptr  int   // pointer-table entry holding the child *Agent
	def  *Tree // compiled default tree; nil: none
}

var (
	_ Opener = (*dynamic)(nil)
	_ Halter = (*dynamic)(nil)
)

func newDynamic(b *Builder) Behavior {
	d := &dynamic{ptr: b.pointer()}
	raw, _ := b.Raw("slot")
	name, _ := raw.(string)
	if _, ref := RefKey(name); ref || strings.TrimSpace(name) == "" {
		b.Errorf("slot", "want a constant, non-empty slot name, got %q", name)
	}
	d.slot = b.slotIndex(name)
	if raw, ok := b.Raw("default"); ok {
		if tn, _ := raw.(string); tn != "" {
			var msg string
			d.def, msg = b.c.childTree(tn, b.stack)
			if msg != "" {
				b.Errorf("default", "%s", msg)
			}
		}
	}
	return d
}

// Open picks the tree to run for this activation.
func (d *dynamic) Open(a *Agent, n *Node) {
	x := a.extension()
	eff := d.effective(a)
	if eff == nil {
		x.ptrs[d.ptr] = nil
		return
	}
	child, _ := x.ptrs[d.ptr].(*Agent)
	if child == nil || child.tree != eff {
		// A new tree starts with a fresh child agent; the same tree keeps
		// its agent (and private keys) across activations, as a SubTree.
		child = NewAgent(eff, a.ID, a.now)
		child.rng ^= uint64(n.Index+1) * 0xD1B54A32D192ED03
		child.Sink = &childSink{parent: a, node: n.Index}
		// The child's expressions count against the parent's budget.
		child.exprs = a.exprMachine()
		x.ptrs[d.ptr] = child
	} else if child.resuming {
		// A new activation (not a resume after a Pause): the child tree
		// starts afresh too.
		child.dropResume()
	}
	child.Env = a.Env
}

func (d *dynamic) Tick(a *Agent, n *Node) Status {
	child, _ := a.ext.ptrs[d.ptr].(*Agent)
	if child == nil {
		return Failure // nothing injected, no default
	}
	bridgeIn(child, a)
	st := child.Tick(a.now)
	bridgeOut(child, a)
	return st
}

// Halt stops the child tree, deepest first; a Pause of the parent pauses
// it, so that its memory composites keep their progress too. (A close
// needs nothing: the child's root completed, so nothing in it is open.)
func (d *dynamic) Halt(a *Agent, n *Node) {
	if a.ext == nil {
		return
	}
	if child, _ := a.ext.ptrs[d.ptr].(*Agent); child != nil {
		if a.Pausing() {
			child.Pause()
		} else {
			child.HaltAll()
		}
	}
}

// effective is the tree the next activation runs: the latest injection
// that applies to the agent (its own or the tree-wide one), else the
// default.
func (d *dynamic) effective(a *Agent) *Tree {
	var own injection
	if a.ext != nil && a.ext.inj != nil {
		own = a.ext.inj[d.slot]
	}
	all := a.tree.slots[d.slot].all.Load()
	switch {
	case own.tree != nil && (all == nil || own.seq > all.seq):
		return own.tree
	case all != nil:
		return all.tree
	}
	return d.def
}

// childSink forwards what the child tree emits as coming from the
// DynamicSubTree node of the parent agent.
type childSink struct {
	parent *Agent
	node   int32
}

func (s *childSink) Emit(_ *Agent, _ int32, level, msg string) { s.parent.Emit(s.node, level, msg) }

// Slots returns the slot names of the tree's DynamicSubTree nodes, in
// order of first appearance.
func (t *Tree) Slots() []string {
	out := make([]string, len(t.slots))
	for i, s := range t.slots {
		out[i] = s.name
	}
	return out
}

func (t *Tree) slotIndex(name string) int {
	for i, s := range t.slots {
		if s.name == name {
			return i
		}
	}
	return -1
}

func (t *Tree) checkInjection(slot string, ct *Tree) (int, error) {
	i := t.slotIndex(slot)
	if i < 0 {
		return -1, fmt.Errorf("%w %q (slots: %s)", ErrUnknownSlot, slot, strings.Join(t.Slots(), ", "))
	}
	if ct != nil && (ct.parent != t || ct.slotName != slot) {
		return -1, fmt.Errorf("slot %q: %w", slot, ErrSlotMismatch)
	}
	return i, nil
}

// InjectAll makes every agent of the tree run ct in the slot from the next
// time its DynamicSubTree node opens (unless the agent has a later
// injection of its own). nil clears it. ct must come from
// Registry.CompileSlotTree for this tree and slot. Safe to call from any
// goroutine while agents run.
func (t *Tree) InjectAll(slot string, ct *Tree) error {
	i, err := t.checkInjection(slot, ct)
	if err != nil {
		return err
	}
	if ct == nil {
		t.slots[i].all.Store(nil)
		return nil
	}
	t.slots[i].all.Store(&injection{tree: ct, seq: t.injectSeq.Add(1)})
	return nil
}

// Injected returns the tree injected into the slot for every agent (nil:
// none).
func (t *Tree) Injected(slot string) *Tree {
	if i := t.slotIndex(slot); i >= 0 {
		if inj := t.slots[i].all.Load(); inj != nil {
			return inj.tree
		}
	}
	return nil
}

// Inject makes this agent run ct in the slot from the next time its
// DynamicSubTree node opens; it overrides earlier tree-wide injections
// (InjectAll) and is overridden by later ones. nil clears the agent's own
// injection. ct must come from Registry.CompileSlotTree for this agent's
// tree and slot. Like every Agent method, call it from the goroutine that
// ticks the agent.
func (a *Agent) Inject(slot string, ct *Tree) error {
	i, err := a.tree.checkInjection(slot, ct)
	if err != nil {
		return err
	}
	x := a.extension()
	if ct == nil {
		x.inj[i] = injection{}
		return nil
	}
	x.inj[i] = injection{tree: ct, seq: a.tree.injectSeq.Add(1)}
	return nil
}

// SlotTree returns the tree the agent's DynamicSubTree nodes of the slot
// run now, or would run when they next open when none is open (nil: the
// slot is empty and has no default). With several nodes of one slot, the
// first one decides.
func (a *Agent) SlotTree(slot string) *Tree {
	i := a.tree.slotIndex(slot)
	if i < 0 {
		return nil
	}
	for j := range a.nodes {
		n := &a.nodes[j]
		d, ok := n.b.(*dynamic)
		if !ok || d.slot != i {
			continue
		}
		if a.IsOpen(n.Index) && a.ext != nil {
			if child, _ := a.ext.ptrs[d.ptr].(*Agent); child != nil {
				return child.tree
			}
			return nil
		}
		return d.effective(a)
	}
	return nil
}

// CompileSlotTree validates and compiles spec as a tree to inject into
// the slot of parent (Tree.InjectAll, Agent.Inject). Problems are
// reported as for Compile, with the paths of spec's own document. The tree
// runs in parent's evaluation mode and with its seed; its global keys that
// parent also has are shared with the parent agent's blackboard.
func (r *Registry) CompileSlotTree(parent *Tree, slot string, spec *Spec) (*Tree, error) {
	if parent.slotIndex(slot) < 0 {
		return nil, fmt.Errorf("%w %q (slots: %s)", ErrUnknownSlot, slot, strings.Join(parent.Slots(), ", "))
	}
	s := *spec
	s.Evaluation, s.Seed = parent.eval, parent.seed
	t, err := r.Compile(&s)
	if err != nil {
		return nil, err
	}
	t.attach(parent, slot)
	if ps := t.SkipProblems(); len(ps) > 0 {
		return nil, ps
	}
	return t, nil
}
