package bt

import (
	"sort"
	"sync/atomic"
	"unsafe"
)

// This file holds what DynamicSubTree needs from the engine: child trees
// compiled with (or for) a parent tree, per-slot injections, the per-agent
// pointer table, and the blackboard bridge between a parent agent and the
// child agent running a child tree. Trees without DynamicSubTree nodes pay
// nothing: their agents never allocate the extension.

// slotState is the tree-wide injection of one slot.
type slotState struct {
	name string
	all  atomic.Pointer[injection]
}

// injection is a tree injected into a slot; seq orders injections of one
// tree (the latest that applies to an agent wins).
type injection struct {
	tree *Tree
	seq  uint64
}

// agentExt is what an agent keeps outside its noscan memory block,
// allocated the first time a node needs it.
type agentExt struct {
	ptrs []any       // per node entry (Builder.pointer): DynamicSubTree's child agent
	inj  []injection // per slot: the agent's own injection
}

func (a *Agent) extension() *agentExt {
	if a.ext == nil {
		a.ext = &agentExt{ptrs: make([]any, a.tree.ptrN), inj: make([]injection, len(a.tree.slots))}
	}
	return a.ext
}

// slotPair maps a global key of a child tree to the parent's key of the
// same name.
type slotPair struct{ child, parent Slot }

// attach makes t a child tree of parent (for slot; "" for a default tree)
// and computes the keys they share.
func (t *Tree) attach(parent *Tree, slot string) {
	t.parent, t.slotName = parent, slot
	t.bridge = t.bridge[:0]
	for name, cs := range t.global {
		if ps, ok := parent.global[name]; ok {
			t.bridge = append(t.bridge, slotPair{child: cs, parent: ps})
		}
	}
	sort.Slice(t.bridge, func(i, j int) bool { return t.bridge[i].child < t.bridge[j].child })
}

// bridgeIn copies the shared keys from the parent agent to the child
// before the child's tick.
func bridgeIn(child, parent *Agent) {
	for _, p := range child.tree.bridge {
		copySlot(&child.BB, p.child, &parent.BB, p.parent)
	}
}

// bridgeOut copies back the shared keys the child's tick changed. The
// parent's values did not change meanwhile, so a difference is a write by
// the child (even one stamped with the same time as the parent's value).
func bridgeOut(child, parent *Agent) {
	for _, p := range child.tree.bridge {
		if !sameSlot(&child.BB, p.child, &parent.BB, p.parent) {
			copySlot(&parent.BB, p.parent, &child.BB, p.child)
		}
	}
}

func copySlot(dst *Blackboard, ds Slot, src *Blackboard, ss Slot) {
	dst.num[ds], dst.ts[ds], dst.kind[ds] = src.num[ss], src.ts[ss], src.kind[ss]
	var r any
	if src.ref != nil {
		r = src.ref[ss]
	}
	if r != nil && dst.ref == nil {
		dst.ref = make([]any, len(dst.kind))
	}
	if dst.ref != nil {
		dst.ref[ds] = r
	}
}

func sameSlot(a *Blackboard, as Slot, b *Blackboard, bs Slot) bool {
	if a.kind[as] != b.kind[bs] || a.ts[as] != b.ts[bs] || a.num[as] != b.num[bs] {
		return false
	}
	var ra, rb any
	if a.ref != nil {
		ra = a.ref[as]
	}
	if b.ref != nil {
		rb = b.ref[bs]
	}
	if sa, ok := ra.(string); ok {
		sb, ok := rb.(string)
		return ok && sa == sb
	}
	// Structured values may not be comparable (maps, slices): compare
	// the interface words, i.e. whether it is the same value.
	return *(*[2]unsafe.Pointer)(unsafe.Pointer(&ra)) == *(*[2]unsafe.Pointer)(unsafe.Pointer(&rb))
}

// pointer reserves a per-agent pointer-table entry for this node.
func (b *Builder) pointer() int {
	b.c.t.ptrN++
	return b.c.t.ptrN - 1
}

// slotIndex returns the index of a slot name, adding it on first use.
func (b *Builder) slotIndex(name string) int {
	if i := b.c.t.slotIndex(name); i >= 0 {
		return i
	}
	b.c.t.slots = append(b.c.t.slots, &slotState{name: name})
	return len(b.c.t.slots) - 1
}

// childTree compiles the mission tree name as a child tree of the tree
// being compiled (a DynamicSubTree default), once per name. It returns
// nil and a message when the name cannot be used; nil and "" when the
// tree has problems (already reported).
func (c *compiler) childTree(name string, stack []string) (*Tree, string) {
	if t, ok := c.childByName[name]; ok {
		return t, ""
	}
	def, msg := c.treeRef(name, stack)
	if def == nil {
		return nil, msg
	}
	spec := *c.spec
	spec.Main, spec.Blackboard, spec.Keys = name, nil, nil
	cc := newCompiler(c.reg, &spec, c.budget)
	cc.reached, cc.child = c.reached, true
	cc.node(def, "/trees/"+pathEscape(name), "", -1, -1, name, append(stack[:len(stack):len(stack)], name))
	if c.childByName == nil {
		c.childByName = map[string]*Tree{}
	}
	if len(cc.problems) > 0 {
		c.problems = append(c.problems, cc.problems...)
		c.childByName[name] = nil
		return nil, ""
	}
	cc.finish()
	for _, w := range cc.t.warnings {
		c.t.warn(w)
	}
	c.children = append(c.children, cc.t)
	c.childByName[name] = cc.t
	return cc.t, ""
}
