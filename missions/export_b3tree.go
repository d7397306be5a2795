package missions

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
)

// b3TreeVersion is the editor format version ExportB3Tree writes.
const b3TreeVersion = "1.9.0"

type b3TreeFileOut struct {
	Version string           `json:"version"`
	Name    string           `json:"name"`
	Root    *b3TreeNodeOut   `json:"root"`
	Group   []string         `json:"group"`
	Import  []string         `json:"import"`
	Vars    []map[string]any `json:"vars"`
}

type b3TreeNodeOut struct {
	ID       string           `json:"id"`
	Name     string           `json:"name"`
	Desc     string           `json:"desc,omitempty"`
	Args     map[string]any   `json:"args,omitempty"`
	Input    []any            `json:"input,omitempty"`
	Output   []any            `json:"output,omitempty"`
	Children []*b3TreeNodeOut `json:"children,omitempty"`
	Path     string           `json:"path,omitempty"`
}

// ExportB3Tree writes the mission's main tree as a tree file of the
// current Behavior3 editor (behavior3editor 1.x, behavior3-ts,
// behavior3lua). botd's types get the behavior3-ts names of the same
// meaning (MemSequence is Sequence, MemPriority Selector, ...; botd's
// reactive Sequence is written ReactiveSequence), the others keep their
// botd names. A SubTree of a tree imported from another tree file is
// written as a node with that file's path; the other subtrees are
// inlined. The initial blackboard and the mission settings have no place
// in the format and are not written.
func ExportB3Tree(d *Document) ([]byte, error) {
	root := d.Trees[d.Main]
	if root == nil {
		return nil, fmt.Errorf("no main tree %q", d.Main)
	}
	e := &b3TreeExporter{d: d, reg: defaultRegistry()}
	n, err := e.node(root, []string{d.Main})
	if err != nil {
		return nil, err
	}
	name := d.Name
	if name == "" {
		name = d.Main
	}
	return marshalJSON(&b3TreeFileOut{Version: b3TreeVersion, Name: name, Root: n, Group: []string{}, Import: []string{}, Vars: []map[string]any{}}, "  ")
}

type b3TreeExporter struct {
	d   *Document
	reg *bt.Registry
	ids int
}

func (e *b3TreeExporter) node(n *bt.NodeDef, stack []string) (*b3TreeNodeOut, error) {
	if n == nil {
		return nil, fmt.Errorf("a null node")
	}
	e.ids++
	out := &b3TreeNodeOut{ID: strconv.Itoa(e.ids), Name: n.Type, Desc: n.Name}
	typeName := n.Type
	if nt, ok := e.reg.Lookup(n.Type); ok {
		typeName = nt.Name
	}
	if typeName == "SubTree" {
		tree, _ := n.Params["tree"].(string)
		if tree == "" {
			tree, _ = n.Params["ID"].(string)
		}
		t := e.d.Trees[tree]
		if t == nil {
			return nil, fmt.Errorf("SubTree of the unknown tree %q", tree)
		}
		for _, s := range stack {
			if s == tree {
				return nil, fmt.Errorf("recursive subtree: %s -> %s", strings.Join(stack, " -> "), tree)
			}
		}
		if strings.HasSuffix(tree, ".json") {
			out.Path = tree
			out.Name = e.b3Name(t.Type)
			return out, nil
		}
		// Inline the tree, keeping the SubTree's label.
		in, err := e.node(t, append(stack, tree))
		if err != nil {
			return nil, err
		}
		if out.Desc != "" && in.Desc == "" {
			in.Desc = out.Desc
		}
		return in, nil
	}
	out.Name = e.b3Name(n.Type)
	for k, v := range n.Params {
		if l, ok := v.([]any); ok && (k == "input" || k == "output") {
			if k == "input" {
				out.Input = l
			} else {
				out.Output = l
			}
			continue
		}
		if out.Args == nil {
			out.Args = map[string]any{}
		}
		out.Args[k] = v
	}
	for _, c := range n.Children {
		co, err := e.node(c, stack)
		if err != nil {
			return nil, err
		}
		out.Children = append(out.Children, co)
	}
	return out, nil
}

// b3Name is the name a botd type is written under.
func (e *b3TreeExporter) b3Name(typ string) string {
	if t, ok := strings.CutPrefix(typ, "Behavior3."); ok && b3TreeBuiltins[t] {
		return t
	}
	if nt, ok := e.reg.Lookup(typ); ok {
		typ = nt.Name
	}
	if typ == "Sequence" {
		return "ReactiveSequence" // botd's reactive Sequence; the editor's Sequence is MemSequence
	}
	if to, ok := b3TreeExportNames[typ]; ok {
		return to
	}
	if b3TreeBuiltins[typ] {
		return "botd." + typ
	}
	return typ
}
