package bt

import (
	"fmt"
	"sort"
	"strings"
)

// Kind says how many children a node type takes.
type Kind uint8

const (
	// Leaf nodes take no children.
	Leaf Kind = iota
	// Decorator nodes take exactly one child.
	Decorator
	// Composite nodes take one or more children.
	Composite
)

var kindNames = [...]string{"leaf", "decorator", "composite"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// NodeType declares a node type: its name, its parameters and how to build
// its behavior for one node of a compiled tree.
type NodeType struct {
	Name    string
	Aliases []string
	Kind    Kind
	// Category groups types in the catalog: "composite", "decorator",
	// "condition", "action" (Behavior3's categories).
	Category string
	Doc      string
	Params   []Param
	// MinChildren and MaxChildren override the child count implied by Kind
	// when non-zero (MinChildren -1 means none at all, MaxChildren -1 no
	// limit).
	MinChildren, MaxChildren int
	// New builds the behavior of one node. It reads parameters, resolves
	// blackboard keys and reserves per-agent memory through b. Problems are
	// reported with b.Errorf; a non-nil behavior must be returned even then.
	New func(b *Builder) Behavior
	// Synthesize, when set, makes the node's children come from its
	// parameters instead of the document (a StateMachine's state trees
	// and transition conditions). It is called before New, with the
	// checked parameters; it may report problems (Builder.Errorf,
	// Builder.ErrorAt) but must not reserve memory. The compiler
	// compiles each returned definition as a child, in order, as if it
	// had been written at its Path, so the children are real nodes of the
	// tree (telemetry and traces show them) and New finds them in
	// Builder.Children in the same order. A node of such a type takes no
	// written children.
	Synthesize func(b *Builder) []Synth
	// SkipsPass marks the types that handle a child's SKIPPED as
	// BehaviorTree.CPP does (the child counts as not ticked) and return
	// SKIPPED themselves only when every child they ticked skipped. A child
	// that may return SKIPPED under any other type is refused (see
	// Tree.SkipProblems).
	SkipsPass bool
	// SkipsAbsorb marks the types that handle a child's SKIPPED as BT.CPP
	// does without ever returning SKIPPED because of it (a loop goes on).
	SkipsAbsorb bool
	// KeepsProgress marks the types whose per-agent memory is progress
	// through a mission (a MemSequence's current child, a Repeater's
	// count, a StateMachine's state): Agent.Pause halts such a node like
	// any other, but when the first tick after the pause reaches it
	// again, it continues where it was (its Open is not called) instead
	// of starting afresh. Leaves and the other nodes start again.
	KeepsProgress bool
	// ChildReset is how the node's home framework treats a child that
	// completed, for its children that ask Agent.HeldStatus (BT.CPP and
	// Nav2 ports): the zero value is BT.CPP's rule.
	ChildReset ChildReset
	// Trusted marks leaves whose calls need no panic guard of their own
	// (Agent.Tick still recovers as a last resort): those of botd's own
	// catalogs, which report every failure as a status. A leaf that
	// drives hardware or runs a mission's expressions leaves it false,
	// so that its panic becomes its ERROR and the tick goes on.
	Trusted bool
}

// ChildRange returns the allowed number of children (max -1: unlimited).
func (t *NodeType) ChildRange() (min, max int) {
	switch t.Kind {
	case Leaf:
		min, max = 0, 0
	case Decorator:
		min, max = 1, 1
	default:
		min, max = 1, -1
	}
	if t.MinChildren != 0 {
		min = t.MinChildren
	}
	if min < 0 {
		min = 0 // MinChildren -1: none at all
	}
	if t.MaxChildren != 0 {
		max = t.MaxChildren
	}
	return min, max
}

// Param returns the declaration of a parameter by name or alias.
func (t *NodeType) Param(name string) *Param {
	for i := range t.Params {
		p := &t.Params[i]
		if p.Name == name {
			return p
		}
		for _, a := range p.Aliases {
			if a == name {
				return p
			}
		}
	}
	return nil
}

// Registry maps node type names (and aliases) to their declarations. The
// zero value is not usable; NewRegistry returns one with the engine's
// node types (and bt/catalog's NewRegistry one with every catalog).
type Registry struct {
	types  map[string]*NodeType
	byName map[string]*NodeType // canonical names only
}

// NewRegistry returns a registry holding the engine's node types and
// botd's own catalog. The catalogs in packages of their own (bt/nav2) are
// not in it: bt/catalog's NewRegistry assembles everything botd compiles
// missions with.
func NewRegistry() *Registry {
	r := NewEmptyRegistry()
	registerBuiltins(r)
	return r
}

// NewEmptyRegistry returns a registry without the built-ins (for tests that
// want a closed set of types).
func NewEmptyRegistry() *Registry {
	return &Registry{types: map[string]*NodeType{}, byName: map[string]*NodeType{}}
}

// Register adds a node type. An empty or duplicate name or alias, a missing
// constructor or a malformed parameter declaration is a programming error
// and panics.
func (r *Registry) Register(t NodeType) {
	if t.Name == "" {
		panic("bt: Register with an empty node type name")
	}
	if t.New == nil {
		panic(fmt.Sprintf("bt: node type %q has no constructor", t.Name))
	}
	seen := map[string]bool{}
	for _, p := range t.Params {
		if p.Name == "" || seen[p.Name] {
			panic(fmt.Sprintf("bt: node type %q: empty or duplicate parameter %q", t.Name, p.Name))
		}
		seen[p.Name] = true
	}
	if t.Category == "" {
		switch t.Kind {
		case Composite:
			t.Category = "composite"
		case Decorator:
			t.Category = "decorator"
		default:
			t.Category = "action"
		}
	}
	nt := &t
	for _, n := range append([]string{t.Name}, t.Aliases...) {
		if n == "" {
			panic(fmt.Sprintf("bt: node type %q has an empty alias", t.Name))
		}
		if _, dup := r.types[n]; dup {
			panic(fmt.Sprintf("bt: node type %q registered twice", n))
		}
		r.types[n] = nt
	}
	r.byName[t.Name] = nt
}

// Lookup finds a node type by name or alias.
func (r *Registry) Lookup(name string) (*NodeType, bool) {
	t, ok := r.types[name]
	return t, ok
}

// Types returns every registered type (canonical names), sorted by name.
func (r *Registry) Types() []*NodeType {
	out := make([]*NodeType, 0, len(r.byName))
	for _, t := range r.byName {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Clone returns a registry with the same types, to which more can be added
// without changing r.
func (r *Registry) Clone() *Registry {
	c := NewEmptyRegistry()
	for k, v := range r.types {
		c.types[k] = v
	}
	for k, v := range r.byName {
		c.byName[k] = v
	}
	return c
}

// suggest returns a close type name for an unknown one, or "".
func (r *Registry) suggest(name string) string {
	ln := strings.ToLower(name)
	for n := range r.types {
		if strings.ToLower(n) == ln {
			return n
		}
	}
	return ""
}
