package b3

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// b3TreeVersion is the editor format version ExportB3Tree writes;
// b3TreeVersion2 the one it writes for a tree whose nodes have uuids.
const (
	b3TreeVersion  = "1.9.0"
	b3TreeVersion2 = "2.1.0"
)

// b3TreeFileOut2 is a tree file of version 2 of the format.
type b3TreeFileOut2 struct {
	Version   string         `json:"version"`
	Name      string         `json:"name"`
	Root      *b3TreeNodeOut `json:"root"`
	Group     []string       `json:"group"`
	Variables b3Variables    `json:"variables"`
	Overrides map[string]any `json:"overrides"`
}

type b3Variables struct {
	Imports []string         `json:"imports"`
	Locals  []map[string]any `json:"locals"`
}

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
	UUID     string           `json:"uuid,omitempty"`
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
// inlined. A tree imported from a file of version 2 is written in that
// version, with its nodes' uuids and the overrides that make the variants
// of subtree files it runs (import_b3override.go). The initial blackboard
// and the mission settings have no place in the format and are not
// written.
func ExportB3Tree(d *missions.Document) ([]byte, error) {
	root := d.Trees[d.Main]
	if root == nil {
		return nil, fmt.Errorf("no main tree %q", d.Main)
	}
	e := &b3TreeExporter{d: d, reg: missions.DefaultRegistry(), overrides: map[string]any{}}
	n, err := e.node(root, []string{d.Main})
	if err != nil {
		return nil, err
	}
	name := d.Name
	if name == "" {
		name = d.Main
	}
	if e.uuids || len(e.overrides) > 0 {
		return missions.MarshalJSON(&b3TreeFileOut2{Version: b3TreeVersion2, Name: name, Root: n, Group: []string{},
			Variables: b3Variables{Imports: []string{}, Locals: []map[string]any{}}, Overrides: e.overrides}, "  ")
	}
	return missions.MarshalJSON(&b3TreeFileOut{Version: b3TreeVersion, Name: name, Root: n, Group: []string{}, Import: []string{}, Vars: []map[string]any{}}, "  ")
}

type b3TreeExporter struct {
	d         *missions.Document
	reg       *bt.Registry
	ids       int
	uuids     bool           // a node has a uuid
	overrides map[string]any // uuid -> changes, for the subtree variants run
}

func (e *b3TreeExporter) node(n *bt.NodeDef, stack []string) (*b3TreeNodeOut, error) {
	if n == nil {
		return nil, fmt.Errorf("a null node")
	}
	e.ids++
	out := &b3TreeNodeOut{ID: strconv.Itoa(e.ids), Name: n.Type, Desc: n.Name, UUID: b3UUID(e.d, n.ID)}
	e.uuids = e.uuids || out.UUID != ""
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
		if base, _, variant := strings.Cut(tree, "<"); strings.HasSuffix(base, ".json") && e.d.Trees[base] != nil {
			out.Path = base
			out.Name = e.b3Name(e.d.Trees[base].Type)
			if variant {
				b3Overrides(e.d, tree, e.overrides)
			}
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
