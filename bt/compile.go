package bt

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Spec is everything Compile needs: the mission's trees and options.
type Spec struct {
	Trees      map[string]*NodeDef
	Main       string
	Blackboard map[string]any // initial values of global keys
	Evaluation Evaluation
	Seed       uint64
	// Keys are extra global keys that get a slot even when no node names
	// them (sensor readings, operator-writable values).
	Keys []string
	// Substitute replaces node types by name (BehaviorTree.CPP style), e.g.
	// {"ComputePathToPose": "Succeed"}; the node's parameters are dropped.
	// It is a shorthand for Substitutions whose patterns are type names,
	// applied after them.
	Substitute map[string]string
	// Substitutions replace nodes by type, name or path (see Substitution).
	Substitutions []Substitution
	// Namespace seeds the generated node ids (the mission id), so ids are
	// stable across loads of the same mission.
	Namespace string
	// MaxNodes refuses trees larger than this once expanded (0: 100,000).
	MaxNodes int
}

// botdNamespace seeds node UUIDs (uuid v5 of the mission namespace and path).
var botdNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://botd.dev/node"))

// Compile validates and compiles a tree. It reports every problem it finds
// (as Problems) and returns a tree only when there are none.
func (r *Registry) Compile(spec *Spec) (*Tree, error) {
	c := newCompiler(r, spec, nil)
	if len(spec.Trees) == 0 {
		c.problem("/trees", CodeValidation, "a mission needs at least one tree")
		return nil, c.problems.Err()
	}
	root, ok := spec.Trees[spec.Main]
	switch {
	case spec.Main == "":
		c.problem("/main", CodeValidation, "no main tree named")
	case !ok || root == nil:
		c.problem("/main", CodeValidation, fmt.Sprintf("main tree %q is not defined (trees: %s)", spec.Main, strings.Join(treeNames(spec.Trees), ", ")))
	default:
		c.node(root, "/trees/"+pathEscape(spec.Main), "", -1, -1, spec.Main, []string{spec.Main})
	}
	// Trees that main never reaches are still validated, so an author
	// hears about every problem at once.
	for _, name := range treeNames(spec.Trees) {
		if !c.reached[name] && spec.Trees[name] != nil {
			sub := newCompiler(r, spec, nil)
			sub.node(spec.Trees[name], "/trees/"+pathEscape(name), "", -1, -1, name, []string{name})
			c.problems = append(c.problems, sub.problems...)
			for _, w := range sub.t.warnings {
				c.t.warn(w)
			}
		}
	}
	for _, k := range spec.Keys {
		if msg := checkKey(k); msg != "" {
			c.problem("/keys", CodeValidation, msg)
			continue
		}
		c.slot(ScopeGlobal, k, -1)
	}
	for _, k := range sortedKeys(spec.Blackboard) {
		scope, name := splitKey(k)
		path := "/blackboard/" + pathEscape(k)
		if msg := checkKey(k); msg != "" || scope != ScopeGlobal {
			if msg == "" {
				msg = "initial values can only be given for global keys"
			}
			c.problem(path, CodeValidation, msg)
			continue
		}
		c.t.init = append(c.t.init, initValue{slot: c.slot(ScopeGlobal, name, -1), v: ValueOf(spec.Blackboard[k])})
	}
	if len(c.problems) > 0 {
		return nil, c.dedupe()
	}
	c.finish()
	return c.t, nil
}

// budgetFactor bounds the nodes compiled in the child trees of one mission
// (DynamicSubTree defaults, which may have defaults of their own: each
// parent compiles its own copy) to this many times the node limit of one
// tree.
const budgetFactor = 4

// childBudget counts the nodes compiled in the child trees of one Compile
// (shared by its child compilers).
type childBudget struct {
	nodes    int
	reported bool
}

func newCompiler(r *Registry, spec *Spec, budget *childBudget) *compiler {
	c := &compiler{
		reg:     r,
		spec:    spec,
		t:       &Tree{global: map[string]Slot{}, eval: spec.Evaluation, seed: spec.Seed},
		scoped:  map[scopedKey]Slot{},
		ids:     map[string]string{},
		maxNode: spec.MaxNodes,
		budget:  budget,
	}
	if c.maxNode <= 0 {
		c.maxNode = 100000
	}
	if c.budget == nil {
		c.budget = &childBudget{}
	}
	c.subs = spec.Substitutions
	for _, from := range sortedKeys(spec.Substitute) {
		c.subs = append(c.subs, Substitution{Pattern: from, With: NodeDef{Type: spec.Substitute[from]}})
	}
	return c
}

// finish lays out the agents' memory and connects the child trees
// compiled with this one to its blackboard.
func (c *compiler) finish() {
	for _, st := range c.assigns {
		st.entry = c.ported[st.key]
	}
	c.t.computeLayout()
	for _, ct := range c.children {
		ct.attach(c.t, "")
	}
}

type scopedKey struct {
	scope Scope
	owner int32
	name  string
}

type compiler struct {
	reg      *Registry
	spec     *Spec
	t        *Tree
	scoped   map[scopedKey]Slot
	ids      map[string]string // explicit id -> path that used it
	problems Problems
	reached  map[string]bool
	maxNode  int
	budget   *childBudget
	subs     []Substitution
	scope    *keyScope // how plain keys resolve in the subtree being compiled
	child    bool      // compiling a child tree (a DynamicSubTree default)
	tooBig   bool      // the size limit was reported
	// paramAt locates the parameters of synthesized definitions written
	// in shorthand (by node path); see Synth.ParamPath.
	paramAt map[string]func(string) string
	// children are the child trees compiled with this tree (DynamicSubTree
	// defaults), by tree name.
	children    []*Tree
	childByName map[string]*Tree
	// ported are the keys some node's port names ("{key}"): BT.CPP
	// creates their entries when it builds the tree. assigns are the
	// scripts' `=` statements, which need such an entry (finish tells
	// them which have one).
	ported  map[Slot]bool
	assigns []*scriptStmt
}

// paramPath is the JSON pointer of parameter name of the node at path.
func (c *compiler) paramPath(path, name string) string {
	if f := c.paramAt[path]; f != nil {
		return f(name)
	}
	return path + "/params/" + pathEscape(name)
}

func (c *compiler) problem(path, code, msg string) {
	c.problems = append(c.problems, Problem{Path: path, Message: msg, Code: code})
}

func (c *compiler) dedupe() Problems {
	seen := map[Problem]bool{}
	out := c.problems[:0]
	for _, p := range c.problems {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// slot resolves a key to its slot, creating it on first use.
func (c *compiler) slot(scope Scope, name string, owner int32) Slot {
	if scope == ScopeGlobal {
		owner = -1
		if s, ok := c.t.global[name]; ok {
			return s
		}
	}
	k := scopedKey{scope, owner, name}
	if s, ok := c.scoped[k]; ok {
		return s
	}
	s := Slot(len(c.t.keys))
	c.t.keys = append(c.t.keys, KeyInfo{Name: name, Scope: scope, Owner: owner})
	c.scoped[k] = s
	if scope == ScopeGlobal {
		c.t.global[name] = s
	}
	return s
}

// node compiles one definition and its descendants and returns its index.
// inst is the instance path (unique per subtree occurrence); treeOwner is
// the SubTree node whose occurrence this is (-1 for main).
func (c *compiler) node(def *NodeDef, path, inst string, parent, treeOwner int32, treeName string, stack []string) int32 {
	if c.reached == nil {
		c.reached = map[string]bool{}
	}
	c.reached[treeName] = true
	idx := int32(len(c.t.nodes))
	if c.child && c.budget.nodes >= budgetFactor*c.maxNode {
		if !c.budget.reported {
			c.budget.reported = true
			c.problem(path, CodeLimit, fmt.Sprintf("the child trees of DynamicSubTree defaults expand to more than %d nodes", budgetFactor*c.maxNode))
		}
		return idx
	}
	if int(idx) >= c.maxNode {
		if !c.tooBig {
			c.tooBig = true
			c.problem(path, CodeLimit, fmt.Sprintf("the expanded tree has more than %d nodes", c.maxNode))
		}
		return idx
	}
	if c.child {
		c.budget.nodes++
	}
	if inst == "" {
		inst = path
	}
	c.t.nodes = append(c.t.nodes, Node{Index: idx, Parent: parent, Path: path, Tree: treeName, ID: def.ID, Name: def.Name})
	c.t.shared = append(c.t.shared, nil)

	typeName := def.Type
	params := def.Params
	if len(c.subs) > 0 {
		_, known := c.reg.Lookup(typeName)
		if r := c.substitution(def, path, known); r != nil {
			if def.Name == "" {
				c.t.nodes[idx].Name = typeName
			}
			if known && !strings.HasPrefix(r.Pattern, "/") && !strings.HasPrefix(r.Pattern, "@") && wildcard(r.Pattern) {
				// Another framework's leaf of a botd name (foreignLeaf).
				c.t.standIns = append(c.t.standIns, StandIn{Path: path, Type: typeName, With: DescribeStandIn(r.With)})
			}
			typeName, params = c.substitute(r, def)
		}
	}
	nt, known := c.reg.Lookup(typeName)
	if known && nt.Name == "SubTree" && len(c.subs) > 0 {
		// A SubTree of a tree in no loaded file (a library the project
		// does not publish, a tree another program registers) is a node
		// botd does not know: a rule for the tree's name, or a wildcard,
		// stands in for it (BT.CPP substitutes a SubTree node too, and
		// then never looks for its tree).
		if tree := c.missingTree(def); tree != "" {
			if r := c.substitution(&NodeDef{Type: tree}, path, false); r != nil {
				if c.t.nodes[idx].Name == "" {
					c.t.nodes[idx].Name = tree
				}
				typeName, params = c.substitute(r, def)
				nt, known = c.reg.Lookup(typeName)
				c.t.standIns = append(c.t.standIns, StandIn{Path: path, Tree: tree, With: DescribeStandIn(r.With)})
			}
		}
	}
	switch {
	case typeName == "":
		c.problem(path+"/type", CodeValidation, "missing node type")
	case !known:
		msg := fmt.Sprintf("unknown node type %q", typeName)
		if s := c.reg.suggest(typeName); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		c.problem(path+"/type", CodeUnknownType, msg)
	}
	c.assignID(idx, def, path, inst)
	if !(known && nt.Name == "SubTree") {
		var own *NodeType
		if known && typeName == def.Type {
			own = nt
		}
		c.markPorted(def, own, idx, treeOwner)
	}

	var pmap map[string]any
	var children []int32
	switch {
	case known && nt.Name == "SubTree":
		children = c.subtree(def, path, inst, idx, stack)
	case known && nt.Synthesize != nil:
		if len(def.Children) > 0 {
			c.problem(path+"/children", CodeValidation, fmt.Sprintf("%s takes no children: they come from its parameters", nt.Name))
		}
		pmap = c.params(nt, params, path)
		b := &Builder{c: c, t: nt, idx: idx, path: path, treeOwner: treeOwner, params: pmap, stack: stack, scope: c.scope}
		for i, s := range nt.Synthesize(b) {
			if s.Def == nil {
				continue
			}
			if s.ParamPath != nil {
				if c.paramAt == nil {
					c.paramAt = map[string]func(string) string{}
				}
				c.paramAt[s.Path] = s.ParamPath
			}
			ci := inst + "/synth/" + strconv.Itoa(i)
			if strings.HasPrefix(s.Path, path+"/") {
				ci = inst + s.Path[len(path):]
			}
			children = append(children, c.node(s.Def, s.Path, ci, idx, treeOwner, treeName, stack))
		}
	default:
		for i, ch := range def.Children {
			cp := path + "/children/" + strconv.Itoa(i)
			if ch == nil {
				c.problem(cp, CodeValidation, "null node")
				continue
			}
			children = append(children, c.node(ch, cp, inst+"/children/"+strconv.Itoa(i), idx, treeOwner, treeName, stack))
		}
	}
	if int(idx) >= len(c.t.nodes) {
		return idx
	}
	n := &c.t.nodes[idx]
	n.Children = children
	n.End = int32(len(c.t.nodes))
	if !known {
		n.setBehavior(errorBehavior{})
		n.leaf = len(children) == 0
		return idx
	}
	n.Type = nt
	n.leaf = nt.Kind == Leaf
	if nt.Name != "SubTree" && nt.Synthesize == nil {
		min, max := nt.ChildRange()
		got := len(def.Children)
		switch {
		case got < min && max == min:
			c.problem(path, CodeValidation, fmt.Sprintf("%s takes exactly %d %s, got %d", nt.Name, min, plural(min, "child", "children"), got))
		case got < min:
			c.problem(path, CodeValidation, fmt.Sprintf("%s needs at least %d %s, got %d", nt.Name, min, plural(min, "child", "children"), got))
		case max >= 0 && got > max:
			if max == 0 {
				c.problem(path+"/children", CodeValidation, fmt.Sprintf("%s is a leaf and takes no children, got %d", nt.Name, got))
			} else {
				c.problem(path+"/children", CodeValidation, fmt.Sprintf("%s takes at most %d %s, got %d", nt.Name, max, plural(max, "child", "children"), got))
			}
		}
	}
	if pmap == nil {
		if nt.Name == "SubTree" {
			params = subTreeOwnParams(params)
		}
		pmap = c.params(nt, params, path)
	}
	b := &Builder{c: c, t: nt, idx: idx, path: path, treeOwner: treeOwner, params: pmap, stack: stack, scope: c.scope}
	n.mem = int32(c.t.words)
	beh := nt.New(b)
	n = &c.t.nodes[idx]
	n.memN = int32(c.t.words) - n.mem
	if beh == nil {
		beh = errorBehavior{}
	}
	n.setBehavior(beh)
	n.guard = n.leaf && !nt.Trusted
	if m, ok := beh.(monitor); ok {
		c.t.monitors = append(c.t.monitors, monitorRef{node: idx, registered: m.registered})
	}
	return idx
}

func (c *compiler) subtree(def *NodeDef, path, inst string, idx int32, stack []string) []int32 {
	if len(def.Children) > 0 {
		c.problem(path+"/children", CodeValidation, "SubTree takes no children: it runs the tree named by its tree parameter")
	}
	raw, _ := paramGiven(def.Params, subTreeType.Param("tree"))
	name, ok := raw.(string)
	if !ok || name == "" {
		// The generic parameter check reports the missing or mistyped value.
		return nil
	}
	target, msg := c.treeRef(name, stack)
	if target == nil {
		c.problem(c.paramPath(path, "tree"), CodeValidation, msg)
		return nil
	}
	st := append(append([]string(nil), stack...), name)
	outer := c.scope
	c.scope = c.subTreeScope(def, path, idx)
	defer func() { c.scope = outer }()
	return []int32{c.node(target, "/trees/"+pathEscape(name), inst+"/tree", idx, idx, name, st)}
}

// markPorted records the keys a node's parameters name: "{key}", or a
// key parameter of its type nt (nil when the node is unknown or stood in
// for). A SubTree's remapped ports are not recorded: BT.CPP creates no
// entry for them, only for the ports of the nodes inside, which resolve
// through the remapping.
func (c *compiler) markPorted(def *NodeDef, nt *NodeType, idx, treeOwner int32) {
	for _, name := range sortedKeys(def.Params) {
		s, ok := def.Params[name].(string)
		if !ok {
			continue
		}
		k, ok := RefKey(s)
		if !ok && nt != nil {
			if p := nt.Param(name); p != nil && p.Type == TKey {
				k, ok = s, true
			}
		}
		if ok && checkKey(k) == "" {
			if c.ported == nil {
				c.ported = map[Slot]bool{}
			}
			b := Builder{c: c, idx: idx, treeOwner: treeOwner, scope: c.scope}
			c.ported[b.Key(k)] = true
		}
	}
}

// missingTree returns the tree a SubTree definition names when the
// mission has no tree of that name, else "".
func (c *compiler) missingTree(def *NodeDef) string {
	raw, _ := paramGiven(def.Params, subTreeType.Param("tree"))
	name, _ := raw.(string)
	if name == "" {
		return ""
	}
	if t, ok := c.spec.Trees[name]; ok && t != nil {
		return ""
	}
	return name
}

// treeRef finds the mission tree a node at the end of stack refers to, or
// says why it cannot be used.
func (c *compiler) treeRef(name string, stack []string) (*NodeDef, string) {
	target, ok := c.spec.Trees[name]
	if !ok || target == nil {
		return nil, fmt.Sprintf("unknown tree %q (trees: %s)", name, strings.Join(treeNames(c.spec.Trees), ", "))
	}
	for _, s := range stack {
		if s == name {
			return nil, fmt.Sprintf("recursive subtree: %s -> %s", strings.Join(stack, " -> "), name)
		}
	}
	return target, ""
}

func (c *compiler) assignID(idx int32, def *NodeDef, path, inst string) {
	n := &c.t.nodes[idx]
	if def.ID == "" {
		n.ID = uuid.NewSHA1(botdNamespace, []byte(c.spec.Namespace+"\x00"+inst)).String()
		return
	}
	if prev, dup := c.ids[def.ID]; dup {
		if prev != path {
			c.problem(path+"/id", CodeValidation, fmt.Sprintf("id %q is also used at %s", def.ID, prev))
			return
		}
		// The same definition reached again through another SubTree
		// occurrence: derive a distinct, stable id.
		n.ID = uuid.NewSHA1(botdNamespace, []byte(c.spec.Namespace+"\x00"+def.ID+"\x00"+inst)).String()
		return
	}
	c.ids[def.ID] = path
}

// params checks raw parameters against the declarations and returns them
// keyed by canonical name.
func (c *compiler) params(nt *NodeType, raw map[string]any, path string) map[string]any {
	out := make(map[string]any, len(raw))
	for _, k := range sortedKeys(raw) {
		p := nt.Param(k)
		pp := c.paramPath(path, k)
		if p == nil {
			c.problem(pp, CodeValidation, fmt.Sprintf("unknown parameter %q for %s%s", k, nt.Name, knownParams(nt)))
			continue
		}
		if _, dup := out[p.Name]; dup {
			c.problem(pp, CodeValidation, fmt.Sprintf("parameter %q given twice (as %q)", p.Name, k))
			continue
		}
		v := raw[k]
		if msg := p.check(v); msg != "" {
			code := CodeValidation
			if strings.Contains(msg, "the limit") {
				code = CodeLimit
			}
			c.problem(pp, code, msg)
			continue
		}
		out[p.Name] = v
	}
	for _, p := range nt.Params {
		if _, ok := out[p.Name]; !ok && p.Required {
			if _, given := paramGiven(raw, &p); !given {
				c.problem(c.paramPath(path, p.Name), CodeValidation, fmt.Sprintf("missing required parameter %q (%s)", p.Name, p.Type))
			}
		}
	}
	return out
}

// paramGiven returns the raw value of p given under its name or one of its
// aliases.
func paramGiven(raw map[string]any, p *Param) (any, bool) {
	if v, ok := raw[p.Name]; ok {
		return v, true
	}
	for _, a := range p.Aliases {
		if v, ok := raw[a]; ok {
			return v, true
		}
	}
	return nil, false
}

func knownParams(nt *NodeType) string {
	if len(nt.Params) == 0 {
		return " (it takes none)"
	}
	names := make([]string, len(nt.Params))
	for i, p := range nt.Params {
		names[i] = p.Name
	}
	return " (known: " + strings.Join(names, ", ") + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func treeNames(m map[string]*NodeDef) []string {
	return sortedKeys(m)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Builder is handed to NodeType.New to build one node's behavior.
type Builder struct {
	c         *compiler
	t         *NodeType
	idx       int32
	path      string
	treeOwner int32
	scope     *keyScope
	params    map[string]any
	stack     []string // mission trees entered to reach this node
}

// Index returns the node's index in the compiled tree.
func (b *Builder) Index() int32 { return b.idx }

// Path returns the JSON pointer of the node definition.
func (b *Builder) Path() string { return b.path }

// Children returns the indexes of the node's children.
func (b *Builder) Children() []int32 { return b.c.t.nodes[b.idx].Children }

// Errorf reports a problem with a parameter (param "" for the node itself).
func (b *Builder) Errorf(param, format string, args ...any) {
	p := b.path
	if param != "" {
		p = b.c.paramPath(b.path, param)
	}
	b.c.problem(p, CodeValidation, fmt.Sprintf(format, args...))
}

// Warnf reports something that does not stop the mission from loading
// but that its author should hear of (botd check prints it), at the
// node or at one of its parameters.
func (b *Builder) Warnf(param, format string, args ...any) {
	p := b.path
	if param != "" {
		p = b.c.paramPath(b.path, param)
	}
	b.c.t.warn(Problem{Path: p, Code: CodeWarning, Message: fmt.Sprintf(format, args...)})
}

// ErrorAt reports a problem at a JSON pointer inside the node's
// definition (a member of a structured parameter).
func (b *Builder) ErrorAt(path, format string, args ...any) {
	b.c.problem(path, CodeValidation, fmt.Sprintf(format, args...))
}

// Has reports whether a parameter was given.
func (b *Builder) Has(name string) bool {
	_, ok := b.params[name]
	return ok
}

// Raw returns a parameter as decoded, or its default.
func (b *Builder) Raw(name string) (any, bool) {
	if v, ok := b.params[name]; ok {
		return v, true
	}
	if p := b.t.Param(name); p != nil && p.Default != nil {
		return p.Default, true
	}
	return nil, false
}

// Number returns a numeric parameter (constant or "{key}").
func (b *Builder) Number(name string) Num {
	v, _ := b.Raw(name)
	if s, ok := v.(string); ok {
		if k, ok := RefKey(s); ok {
			return Num{Slot: b.Key(k)}
		}
	}
	f, _ := AsNumber(v)
	return Num{V: f, Slot: NoSlot}
}

// Int returns a constant whole-number parameter.
func (b *Builder) Int(name string) int {
	v, _ := b.Raw(name)
	f, _ := AsNumber(v)
	if f > math.MaxInt32 {
		return math.MaxInt32
	}
	if f < math.MinInt32 {
		return math.MinInt32
	}
	return int(f)
}

// String returns a string parameter (constant or "{key}").
func (b *Builder) String(name string) Str {
	v, _ := b.Raw(name)
	s, _ := v.(string)
	if k, ok := RefKey(s); ok {
		return Str{Slot: b.Key(k)}
	}
	return Str{V: s, Slot: NoSlot}
}

// Bool returns a boolean parameter (constant or "{key}").
func (b *Builder) Bool(name string) Flag {
	v, _ := b.Raw(name)
	if s, ok := v.(string); ok {
		if k, ok := RefKey(s); ok {
			return Flag{Slot: b.Key(k)}
		}
	}
	f, _ := v.(bool)
	return Flag{V: f, Slot: NoSlot}
}

// Key resolves a blackboard key (plain, "tree:x", "node:x" or "@x") to
// its slot. A plain key inside a SubTree resolves as the SubTree's ports
// and autoremap say (see keyScope).
func (b *Builder) Key(k string) Slot {
	scope, name := splitKey(k)
	owner := int32(-1)
	switch scope {
	case ScopeTree:
		owner = b.treeOwner
	case ScopeNode:
		owner = b.idx
	default:
		return b.scope.resolve(b.c, name)
	}
	return b.c.slot(scope, name, owner)
}

// KeyParam resolves a parameter that names a blackboard key.
func (b *Builder) KeyParam(name string) Slot {
	v, _ := b.Raw(name)
	s, _ := v.(string)
	if s == "" {
		return NoSlot
	}
	return b.Key(s)
}

// Words reserves n words of per-agent memory for this node and returns the
// offset of the first within the node's block (see Agent.Mem). Reserve
// and ReserveSlice give typed memory instead, which reads better.
func (b *Builder) Words(n int) int {
	off := b.c.t.words - int(b.c.t.nodes[b.idx].mem)
	b.c.t.words += n
	return off
}

func (b *Builder) reserveWords(n int) int32 { return int32(b.Words(n)) }

// SetShared attaches tree-wide state to the node, shared by every agent.
func (b *Builder) SetShared(v any) { b.c.t.shared[b.idx] = v }

// setBehavior stores the behavior and the lifecycle methods it has.
func (n *Node) setBehavior(b Behavior) {
	n.b = b
	switch b.(type) {
	case sequence:
		n.op = opSequence
	case priority:
		n.op = opPriority
	case *check:
		n.op = opCheck
	case memSequence:
		n.op = opMemSequence
	case *set:
		n.op = opSet
	case *wait:
		n.op = opWait
	}
	n.open, _ = b.(Opener)
	n.close, _ = b.(Closer)
	if h, ok := b.(Halter); ok {
		n.halt = h
	} else if n.close != nil {
		n.halt = haltByClose{n.close}
	}
}

type haltByClose struct{ c Closer }

var _ Halter = haltByClose{}

func (h haltByClose) Halt(a *Agent, n *Node) { h.c.Close(a, n) }

// errorBehavior stands in for a node that failed to compile.
type errorBehavior struct{}

func (errorBehavior) Tick(a *Agent, n *Node) Status {
	a.Emit(n.Index, "error", nodeName(n)+": the node did not compile")
	return Error
}
