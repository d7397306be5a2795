package b3

import (
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// Behavior3 Editor JSON (MISSIONS.md section 6). A tree export is
//
//	{"version", "scope": "tree", "id", "title", "root": nodeID,
//	 "properties", "nodes": {nodeID: {"id", "name", "category", "title",
//	 "properties", "children": [ids] | "child": id, "display"}}}
//
// a project export is {"scope": "project", "selectedTree", "trees": [tree
// exports], "custom_nodes"}, and the desktop app saves a project as
// {"name", "description", "data": project export, "path"}.
//
// A node's name is its type, its title its label, its properties its
// params. A node whose name is another tree's id (the editor's category
// "tree") becomes a SubTree. Trees are named by their title when titles
// are unique, else by their id. The main tree is the one no other tree
// uses (the selected tree when several qualify); its properties become
// the initial blackboard. The editor's random node ids are not kept: botd
// derives stable ids from the mission and the node's path.

// isB3 reports whether a JSON object has the shape of a Behavior3 export.
func isB3(o *missions.Object) bool {
	_, format := o.Get("format")
	_, main := o.Get("main")
	if format || main {
		return false // botd fields: a botd document, however broken
	}
	switch o.Str("scope") {
	case "tree", "project":
		return true
	}
	if data, ok := o.Get("data"); ok {
		_, hasTrees := o.Get("trees")
		return !hasTrees && (isObject(data) || isList(data))
	}
	if _, ok := o.Value("trees").([]any); ok {
		return true
	}
	_, root := o.Get("root")
	return root && isObject(o.Value("nodes"))
}

func isObject(v any) bool { _, ok := v.(*missions.Object); return ok }
func isList(v any) bool   { _, ok := v.([]any); return ok }

// Behavior3 names that differ from botd's. B3's Succeeder, Failer and
// Runner are leaves (botd's Succeeder and Failer are decorators, which
// ExportB3 writes as ForceSuccess and ForceFailure).
var (
	b3Leaves     = map[string]string{"Succeeder": "Succeed", "Failer": "Fail", "Runner": "Running"}
	b3Decorators = map[string]string{"ForceSuccess": "Succeeder", "ForceFailure": "Failer"}
)

// b3Empty are behavior3js's composites, which run without children (the
// editor saves one before its children are linked): what they return then,
// a leaf of that status. Its decorators without a child return ERROR when
// ticked; botd refuses them when the mission is loaded.
var b3Empty = map[string]string{
	"Sequence": "Succeed", "MemSequence": "Succeed", // every child (none) succeeded
	"Priority": "Fail", "MemPriority": "Fail", // no child succeeded
}

// b3NodeKeys are the members of a Behavior3 0.3 node: read, or the
// editor's layout and documentation (display, description).
var b3NodeKeys = map[string]bool{
	"id": true, "name": true, "category": true, "title": true, "description": true, "display": true,
	"properties": true, "parameters": true, "children": true, "child": true,
}

type b3Tree struct {
	o    *missions.Object
	path string // JSON pointer in the input
	id   string
	key  string // name in the botd document
}

type b3Importer struct {
	ps    *missions.Problems
	trees []*b3Tree
	byID  map[string]*b3Tree
	used  map[string]bool // tree ids used as subtrees by another tree
}

func decodeB3(o *missions.Object, ps *missions.Problems) *missions.Document {
	d := &missions.Document{Format: missions.Format}
	base := ""
	if o.Str("scope") == "" {
		if data, ok := o.Get("data"); ok {
			d.Name = o.Str("name")
			base = "/data"
			if o, ok = data.(*missions.Object); !ok {
				ps.Invalid(base, "want a Behavior3 project, got %s", missions.Describe(data))
				return nil
			}
		}
	}
	imp := &b3Importer{ps: ps, byID: map[string]*b3Tree{}, used: map[string]bool{}}
	if !imp.collect(o, base) {
		return nil
	}
	imp.name()
	d.Trees = map[string]*bt.NodeDef{}
	for _, t := range imp.trees {
		if t.empty() {
			// The editor saves a new tree without nodes, and behavior3js
			// and behavior3go load the project all the same: there is
			// nothing of it to run, so it is left out.
			continue
		}
		d.Trees[t.key] = imp.tree(t)
	}
	if len(d.Trees) == 0 {
		ps.Invalid(missions.Ptr(base, "trees"), "every tree of the project is empty: there is nothing to run")
		return nil
	}
	main := imp.main(o.Str("selectedTree"))
	d.Main = main.key
	if d.Name == "" {
		d.Name = main.o.Str("title")
	}
	if props, ok := main.o.Value("properties").(*missions.Object); ok {
		d.Blackboard = missions.NormalizeMap(props, missions.Ptr(main.path, "properties"), ps)
	}
	return d
}

// collect finds the trees of a tree or project export.
func (imp *b3Importer) collect(o *missions.Object, base string) bool {
	if _, isTree := o.Get("root"); o.Str("scope") == "tree" || isTree {
		imp.add(o, base)
		return len(imp.trees) > 0
	}
	raw, ok := o.Get("trees")
	list, isL := raw.([]any)
	if !ok || !isL {
		imp.ps.Invalid(missions.Ptr(base, "trees"), "want the project's list of trees, got %s", missions.Describe(raw))
		return false
	}
	for i, t := range list {
		p := missions.Ptr(missions.Ptr(base, "trees"), i)
		to, ok := t.(*missions.Object)
		if !ok {
			imp.ps.Invalid(p, "want a tree object, got %s", missions.Describe(t))
			continue
		}
		imp.add(to, p)
	}
	if len(imp.trees) == 0 {
		imp.ps.Invalid(missions.Ptr(base, "trees"), "the project has no trees")
	}
	return len(imp.trees) > 0
}

func (imp *b3Importer) add(o *missions.Object, path string) {
	t := &b3Tree{o: o, path: path, id: o.Str("id")}
	if t.id == "" {
		t.id = "tree" + strconv.Itoa(len(imp.trees)+1)
	}
	if _, dup := imp.byID[t.id]; dup {
		imp.ps.Invalid(missions.Ptr(path, "id"), "tree id %q is used twice", t.id)
		return
	}
	imp.byID[t.id] = t
	imp.trees = append(imp.trees, t)
}

// name gives each tree its key: its title when no other tree has the same
// title or has it as id, else its id.
func (imp *b3Importer) name() {
	titles := map[string]int{}
	for _, t := range imp.trees {
		titles[strings.TrimSpace(t.o.Str("title"))]++
	}
	for _, t := range imp.trees {
		title := strings.TrimSpace(t.o.Str("title"))
		_, clash := imp.byID[title]
		if title != "" && titles[title] == 1 && (!clash || imp.byID[title] == t) {
			t.key = title
		} else {
			t.key = t.id
		}
	}
}

// main picks the entry tree: the only tree no other tree uses, else the
// selected one, else the first unused one, else the first.
func (imp *b3Importer) main(selected string) *b3Tree {
	var free []*b3Tree
	for _, t := range imp.trees {
		if !imp.used[t.id] && !t.empty() {
			free = append(free, t)
		}
	}
	if len(free) == 1 {
		return free[0]
	}
	if t, ok := imp.byID[selected]; ok && !t.empty() {
		return t
	}
	if len(free) > 0 {
		return free[0]
	}
	for _, t := range imp.trees {
		if !t.empty() {
			return t
		}
	}
	return imp.trees[0]
}

// empty reports whether a tree has no nodes at all (its root null or
// missing): a new tree as the editor saves it.
func (t *b3Tree) empty() bool {
	if root, _ := t.o.Get("root"); root != nil && root != "" {
		return false
	}
	nodes, _ := t.o.Get("nodes")
	switch n := nodes.(type) {
	case nil:
		return true
	case *missions.Object:
		return len(n.Keys()) == 0
	}
	return false
}

// tree converts one tree, following the links from its root node.
func (imp *b3Importer) tree(t *b3Tree) *bt.NodeDef {
	nodes, ok := t.o.Value("nodes").(*missions.Object)
	if !ok {
		imp.ps.Invalid(missions.Ptr(t.path, "nodes"), "want the tree's nodes object, got %s", missions.Describe(t.o.Value("nodes")))
		return nil
	}
	root, ok := t.o.Value("root").(string)
	if !ok || root == "" {
		imp.ps.Invalid(missions.Ptr(t.path, "root"), "the tree has no root node")
		return nil
	}
	w := &b3Walk{imp: imp, t: t, nodes: nodes, seen: map[string]bool{}}
	return w.node(root, missions.Ptr(t.path, "root"), 0)
}

type b3Walk struct {
	imp   *b3Importer
	t     *b3Tree
	nodes *missions.Object
	seen  map[string]bool
}

func (w *b3Walk) node(id, link string, depth int) *bt.NodeDef {
	ps := w.imp.ps
	raw, ok := w.nodes.Get(id)
	if !ok {
		ps.Invalid(link, "no node with id %q in the tree", id)
		return nil
	}
	if w.seen[id] {
		ps.Invalid(link, "node %q is linked twice (a node has one parent)", id)
		return nil
	}
	w.seen[id] = true
	path := missions.Ptr(missions.Ptr(w.t.path, "nodes"), id)
	o, ok := raw.(*missions.Object)
	if !ok {
		ps.Invalid(path, "want a node object, got %s", missions.Describe(raw))
		return nil
	}
	if depth >= ps.Limits().Depth {
		ps.Add(path, missions.CodeTooLarge, "nesting deeper than %d levels", ps.Limits().Depth)
		return nil
	}
	for _, k := range o.Keys() {
		if !b3NodeKeys[k] {
			ps.Invalid(missions.Ptr(path, k), "unknown member %q of a Behavior3 node", k)
		}
	}
	name, ok := o.Value("name").(string)
	if !ok || name == "" {
		ps.Invalid(missions.Ptr(path, "name"), "want the node's type name, got %s", missions.Describe(o.Value("name")))
	}
	n := &bt.NodeDef{Type: name}
	if props, ok := o.Value("properties").(*missions.Object); ok {
		n.Params = b3Params(missions.NormalizeMap(props, missions.Ptr(path, "properties"), ps), name)
	}
	// Editors before 0.3 kept the built-in nodes' settings (milliseconds,
	// maxLoop, ...) in "parameters".
	if params, ok := o.Value("parameters").(*missions.Object); ok {
		for k, v := range b3Params(missions.NormalizeMap(params, missions.Ptr(path, "parameters"), ps), name) {
			if _, dup := n.Params[k]; dup {
				ps.Invalid(missions.Ptr(missions.Ptr(path, "parameters"), k), "%q is both a parameter and a property", k)
				continue
			}
			if n.Params == nil {
				n.Params = map[string]any{}
			}
			n.Params[k] = v
		}
	}
	n.Children = w.children(o, path, depth)
	sub, subTitle := w.subtree(name, o.Str("category"))
	if sub != "" {
		n.Type, n.Params = "SubTree", map[string]any{"tree": sub}
	} else if to, ok := b3Leaves[name]; ok && len(n.Children) == 0 {
		n.Type = to
	} else if to, ok := b3Decorators[name]; ok && len(n.Children) > 0 {
		n.Type = to
	} else if to, ok := b3Empty[name]; ok && len(n.Children) == 0 && n.Params == nil {
		n.Type = to
	}
	// Default titles ("Repeat <maxLoop>x", a subtree's own title) say
	// nothing a person wrote.
	title := strings.TrimSpace(o.Str("title"))
	if title != "" && title != b3Title(name) && !(sub != "" && (title == sub || title == subTitle)) {
		n.Name = title
	}
	return n
}

func (w *b3Walk) children(o *missions.Object, path string, depth int) []*bt.NodeDef {
	var ids []string
	var links []string
	switch c := o.Value("children").(type) {
	case []any:
		for i, v := range c {
			p := missions.Ptr(missions.Ptr(path, "children"), i)
			id, ok := v.(string)
			if !ok {
				w.imp.ps.Invalid(p, "want a node id, got %s", missions.Describe(v))
				continue
			}
			ids, links = append(ids, id), append(links, p)
		}
	case nil:
	default:
		w.imp.ps.Invalid(missions.Ptr(path, "children"), "want a list of node ids, got %s", missions.Describe(c))
	}
	switch c := o.Value("child").(type) {
	case string:
		ids, links = append(ids, c), append(links, missions.Ptr(path, "child"))
	case nil:
	default:
		w.imp.ps.Invalid(missions.Ptr(path, "child"), "want a node id, got %s", missions.Describe(c))
	}
	var out []*bt.NodeDef
	for i, id := range ids {
		if c := w.node(id, links[i], depth+1); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// subtree returns the key and title of the tree a node refers to, or "".
func (w *b3Walk) subtree(name, category string) (string, string) {
	if t, ok := w.imp.byID[name]; ok {
		if t != w.t {
			w.imp.used[t.id] = true
		}
		return t.key, t.o.Str("title")
	}
	if category != "tree" {
		return "", ""
	}
	for _, t := range w.imp.trees {
		if t.o.Str("title") == name {
			w.imp.used[t.id] = true
			return t.key, name
		}
	}
	return name, "" // an unknown tree: the compiler reports it
}

// b3Params renames Behavior3's standard properties to botd's parameters.
func b3Params(p map[string]any, name string) map[string]any {
	rename := func(from, to string) {
		if v, ok := p[from]; ok {
			if _, taken := p[to]; !taken {
				delete(p, from)
				p[to] = v
			}
		}
	}
	if name == "Limiter" {
		rename("maxLoop", "max")
	} else {
		rename("maxLoop", "count")
	}
	rename("maxTime", "ms")
	rename("milliseconds", "ms")
	if len(p) == 0 {
		return nil
	}
	return p
}
