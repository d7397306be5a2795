package b3

import (
	"reflect"
	"sort"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// Subtree overrides of the current Behavior3 editor (version 2's
// "overrides", formerly "$override"): a tree file changes nodes of the
// subtrees it runs, each named by its uuid,
//
//	"overrides": {uuid: {"desc", "args", "input", "output", "disabled", "debug"}}
//
// as the editor's build applies them: to a node of a subtree file, the
// overrides of the tree that runs that file first, then those of the tree
// that runs that one, and so on up to the main tree, each replacing desc,
// input, output and disabled, and adding its args to the node's
// (debug, the editor's breakpoint, carries no behaviour). A tree's own
// nodes are never overridden from the tree itself (the editor prunes such
// entries).
//
// botd keeps a subtree file as one tree of the document; a subtree that
// an including tree changes becomes a tree of its own, named after the
// file and the trees that run it, innermost first ("sub.json<main.json"),
// whose nodes have the ids of the file's nodes with that name as prefix.
// The import keeps each node's uuid in its id ("<tree>#<uuid>"), so
// ExportB3Tree writes the overrides back.

// b3Patch is one entry of a tree's overrides.
type b3Patch struct {
	desc     *string
	input    []any // nil: not given
	output   []any
	args     map[string]any
	disabled *bool
	path     string // JSON pointer, for problems
}

// b3NodeInfo is what the override pass needs of an imported node.
type b3NodeInfo struct {
	uuid string
	name string // the Behavior3 name (for the empty composites)
}

// maxB3Variants bounds the trees overrides may add to a document; the
// nodes the override pass visits are bounded by Limits.Values.
const maxB3Variants = 1024

// overrides reads a tree file's overrides (version 2's "overrides" or
// version 1's "$override").
func (imp *b3TreeImporter) overrides(key string, o *missions.Object, label string) {
	for _, member := range []string{"overrides", "$override"} {
		raw, ok := o.Get(member)
		if !ok || raw == nil {
			continue
		}
		at := label + missions.Ptr("", member)
		ov, ok := raw.(*missions.Object)
		if !ok {
			imp.ps.Invalid(at, "want an object of node overrides, got %s", missions.Describe(raw))
			continue
		}
		for _, uuid := range ov.Keys() {
			p := imp.patch(ov.Value(uuid), missions.Ptr(at, uuid))
			if p == nil {
				continue
			}
			if imp.patches[key] == nil {
				imp.patches[key] = map[string]*b3Patch{}
			}
			imp.patches[key][uuid] = p
		}
	}
}

func (imp *b3TreeImporter) patch(v any, at string) *b3Patch {
	ps := imp.ps
	o, ok := v.(*missions.Object)
	if !ok {
		ps.Invalid(at, "want the changes to a node (desc, args, input, output, disabled), got %s", missions.Describe(v))
		return nil
	}
	p := &b3Patch{path: at}
	bad := false
	for _, k := range o.Keys() {
		kp := missions.Ptr(at, k)
		switch val := o.Value(k); k {
		case "desc":
			s, isS := val.(string)
			if !isS {
				ps.Invalid(kp, "want a string, got %s", missions.Describe(val))
				bad = true
				continue
			}
			s = strings.TrimSpace(s)
			p.desc = &s
		case "input", "output":
			l, isL := missions.Normalize(val, kp, ps).([]any)
			if !isL {
				ps.Invalid(kp, "want a list of variable names, got %s", missions.Describe(val))
				bad = true
				continue
			}
			if l == nil {
				l = []any{}
			}
			if k == "input" {
				p.input = l
			} else {
				p.output = l
			}
		case "args":
			a, isO := val.(*missions.Object)
			if !isO {
				ps.Invalid(kp, "want an object, got %s", missions.Describe(val))
				bad = true
				continue
			}
			p.args = missions.NormalizeMap(a, kp, ps)
			if p.args == nil {
				p.args = map[string]any{}
			}
		case "disabled", "debug":
			b, isB := val.(bool)
			if !isB {
				ps.Invalid(kp, "want true or false, got %s", missions.Describe(val))
				bad = true
				continue
			}
			if k == "disabled" {
				p.disabled = &b
			}
		default:
			ps.Invalid(kp, "unknown member %q of a node override (known: desc, args, input, output, disabled, debug)", k)
			bad = true
		}
	}
	if bad {
		return nil
	}
	return p
}

// applyOverrides gives every tree that runs a subtree file changed by
// overrides the variant of that file it runs.
func (imp *b3TreeImporter) applyOverrides() {
	if len(imp.patches) == 0 {
		return
	}
	for _, key := range imp.order {
		for _, uuid := range sortedKeys(imp.patches[key]) {
			p := imp.patches[key][uuid]
			if at, off := imp.disabled[uuid]; off && p.disabled != nil && !*p.disabled {
				imp.ps.Invalid(p.path+"/disabled", "the override enables a node disabled in its file (%s), which botd leaves out; enable it there instead", at)
			}
		}
	}
	imp.orig = map[string]*bt.NodeDef{}
	for k, t := range imp.trees {
		imp.orig[k] = t
	}
	imp.memo = map[string]string{}
	imp.needs = map[string]bool{}
	imp.needsDone = map[string]bool{}
	for _, key := range imp.order {
		if t := imp.orig[key]; t != nil {
			imp.trees[key], _ = imp.own(t, key)
		}
	}
}

// own resolves the subtrees of a tree's own nodes (which its overrides do
// not change); it returns the node, a copy where something changed.
func (imp *b3TreeImporter) own(n *bt.NodeDef, key string) (*bt.NodeDef, bool) {
	if sub, ok := imp.subtreeFile(n); ok {
		v := imp.variant(sub, []string{key})
		if v == sub {
			return n, false
		}
		c := *n
		c.Params = map[string]any{"tree": v}
		return &c, true
	}
	var kids []*bt.NodeDef
	changed := false
	for i, ch := range n.Children {
		c2, ch2 := imp.own(ch, key)
		if ch2 && !changed {
			kids = append([]*bt.NodeDef(nil), n.Children[:i]...)
			changed = true
		}
		if changed {
			kids = append(kids, c2)
		}
	}
	if !changed {
		return n, false
	}
	c := *n
	c.Children = kids
	return &c, true
}

// subtreeFile returns the tree file a SubTree node made from a path runs.
func (imp *b3TreeImporter) subtreeFile(n *bt.NodeDef) (string, bool) {
	if n == nil || n.Type != "SubTree" || len(n.Children) > 0 {
		return "", false
	}
	k, _ := n.Params["tree"].(string)
	_, ok := imp.orig[k]
	return k, ok && imp.orig[k] != nil
}

// variant returns the name of the tree file key as run through incl (the
// trees that run it, outermost first): key itself when their overrides
// change nothing in it.
func (imp *b3TreeImporter) variant(key string, incl []string) string {
	patched := false
	for _, k := range incl {
		if k == key {
			return key // recursion: the compiler reports it
		}
		patched = patched || len(imp.patches[k]) > 0
	}
	if !patched && !imp.needsOverrides(key, 0) {
		return key // no overrides apply in it or in the subtrees it runs
	}
	name := key
	for i := len(incl) - 1; i >= 0; i-- {
		name += "<" + incl[i]
	}
	if v, done := imp.memo[name]; done {
		return v
	}
	if imp.tooLarge {
		return key
	}
	if imp.variants >= maxB3Variants {
		imp.ps.Add("", missions.CodeTooLarge, "subtree overrides make more than %d variants of subtrees", maxB3Variants)
		imp.tooLarge = true
		return key
	}
	imp.memo[name] = key // while it is made (a recursion is the compiler's to report)
	root, changed, _ := imp.patched(imp.orig[key], key, name, incl)
	if !changed || imp.tooLarge {
		return key
	}
	imp.variants++
	imp.trees[name] = root
	imp.memo[name] = name
	return name
}

// needsOverrides reports whether tree file key or a subtree file it runs
// has overrides.
func (imp *b3TreeImporter) needsOverrides(key string, depth int) bool {
	if imp.needsDone[key] || depth > maxB3Files {
		return imp.needs[key]
	}
	imp.needsDone[key] = true // a recursion counts as not needing
	need := len(imp.patches[key]) > 0
	var walk func(n *bt.NodeDef)
	walk = func(n *bt.NodeDef) {
		if n == nil || need {
			return
		}
		if sub, ok := imp.subtreeFile(n); ok {
			need = imp.needsOverrides(sub, depth+1)
			return
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(imp.orig[key])
	imp.needs[key] = need
	return need
}

// patched copies node n of tree file key into the variant name, applying
// the overrides of incl; it reports whether anything changed and whether
// the node is disabled.
func (imp *b3TreeImporter) patched(n *bt.NodeDef, key, name string, incl []string) (*bt.NodeDef, bool, bool) {
	if imp.work++; imp.work > imp.ps.Limits().Values && !imp.tooLarge {
		imp.ps.Add("", missions.CodeTooLarge, "subtree overrides expand the trees to more than %d nodes", imp.ps.Limits().Values)
		imp.tooLarge = true
	}
	if imp.tooLarge {
		return n, false, false
	}
	info := imp.info[n]
	c := *n
	changed := false
	disabled := false
	if info.uuid != "" {
		c.ID = name + "#" + info.uuid
		for i := len(incl) - 1; i >= 0; i-- {
			p := imp.patches[incl[i]][info.uuid]
			if p == nil {
				continue
			}
			changed = true
			if p.desc != nil {
				c.Name = *p.desc
			}
			params := map[string]any{}
			for k, v := range c.Params {
				params[k] = v
			}
			for k, v := range p.args {
				params[k] = v
			}
			for _, io := range []struct {
				k string
				l []any
			}{{"input", p.input}, {"output", p.output}} {
				switch {
				case io.l == nil:
				case len(io.l) == 0:
					delete(params, io.k)
				default:
					params[io.k] = io.l
				}
			}
			if len(params) == 0 {
				params = nil
			}
			c.Params = params
			if p.disabled != nil {
				disabled = *p.disabled
			}
		}
	}
	if sub, ok := imp.subtreeFile(n); ok {
		if v := imp.variant(sub, append(append([]string(nil), incl...), key)); v != sub {
			c.Params = map[string]any{"tree": v}
			changed = true
		}
		return &c, changed, disabled
	}
	c.Children = nil
	for _, ch := range n.Children {
		c2, ch2, off := imp.patched(ch, key, name, incl)
		changed = changed || ch2 || off
		if !off {
			c.Children = append(c.Children, c2)
		}
	}
	if to, ok := b3TreeEmpty[info.name]; ok && len(n.Children) > 0 && len(c.Children) == 0 && c.Params == nil {
		c.Type = to // every child disabled: the composite runs without children
	}
	return &c, changed, disabled
}

// b3Overrides computes the overrides a tree file needs so that the node
// running the tree file base runs the variant v instead: the differences
// between v and the tree that file runs without this tree's overrides,
// keyed by uuid.
func b3Overrides(d *missions.Document, v string, out map[string]any) {
	base, rest, _ := strings.Cut(v, "<")
	from := base
	if i := strings.LastIndex(rest, "<"); i >= 0 {
		if _, ok := d.Trees[base+"<"+rest[:i]]; ok {
			from = base + "<" + rest[:i]
		}
	}
	b3Diff(d, d.Trees[v], d.Trees[from], out, map[[2]string]bool{})
}

// b3Diff adds to out the override of every node of baseline b that v
// changes; nodes are matched by the uuid of their ids. seen holds the
// pairs of subtrees compared (subtree files may run each other).
func b3Diff(d *missions.Document, v, b *bt.NodeDef, out map[string]any, seen map[[2]string]bool) {
	if v == nil || b == nil {
		return
	}
	u := b3UUID(d, b.ID)
	if u != "" && b3UUID(d, v.ID) == u {
		p := map[string]any{}
		if v.Name != b.Name {
			p["desc"] = v.Name
		}
		args := map[string]any{}
		for k, x := range v.Params {
			if k == "input" || k == "output" || (b.Type == "SubTree" && k == "tree") {
				continue
			}
			if y, ok := b.Params[k]; !ok || !reflect.DeepEqual(x, y) {
				args[k] = x
			}
		}
		if len(args) > 0 {
			p["args"] = args
		}
		for _, io := range []string{"input", "output"} {
			x, y := v.Params[io], b.Params[io]
			if !reflect.DeepEqual(x, y) {
				if x == nil {
					x = []any{}
				}
				p[io] = x
			}
		}
		if len(p) > 0 {
			out[u] = p
		}
	}
	if v.Type == "SubTree" && b.Type == "SubTree" && len(v.Children) == 0 {
		vt, _ := v.Params["tree"].(string)
		bk, _ := b.Params["tree"].(string)
		if pair := [2]string{vt, bk}; vt != bk && !seen[pair] {
			seen[pair] = true
			b3Diff(d, d.Trees[vt], d.Trees[bk], out, seen)
		}
		return
	}
	// Children are matched by uuid; a baseline child the variant lacks was
	// disabled.
	byUUID := map[string]*bt.NodeDef{}
	for _, c := range v.Children {
		if c != nil {
			if cu := b3UUID(d, c.ID); cu != "" {
				byUUID[cu] = c
			}
		}
	}
	for i, c := range b.Children {
		if c == nil {
			continue
		}
		cu := b3UUID(d, c.ID)
		if vc, ok := byUUID[cu]; ok && cu != "" {
			b3Diff(d, vc, c, out, seen)
		} else if cu != "" {
			out[cu] = map[string]any{"disabled": true}
		} else if i < len(v.Children) {
			b3Diff(d, v.Children[i], c, out, seen)
		}
	}
}

// b3UUID is the uuid kept in a node id "<tree>#<uuid>" (the tree one of
// d's), or "".
func b3UUID(d *missions.Document, id string) string {
	i := strings.LastIndex(id, "#")
	if i < 0 || d.Trees[id[:i]] == nil {
		return ""
	}
	return id[i+1:]
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
