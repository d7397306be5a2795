package b3

import (
	"sort"
	"strconv"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
	"github.com/google/uuid"
)

// b3Version is the Behavior3 Editor format version written on export.
const b3Version = "0.3.0"

type b3ProjectOut struct {
	Version      string         `json:"version"`
	Scope        string         `json:"scope"`
	SelectedTree string         `json:"selectedTree"`
	Trees        []*b3TreeOut   `json:"trees"`
	CustomNodes  []b3CustomNode `json:"custom_nodes"`
}

type b3TreeOut struct {
	Version     string                `json:"version"`
	Scope       string                `json:"scope"`
	ID          string                `json:"id"`
	Title       string                `json:"title"`
	Description string                `json:"description"`
	Root        string                `json:"root"`
	Properties  map[string]any        `json:"properties"`
	Nodes       map[string]*b3NodeOut `json:"nodes"`
}

type b3NodeOut struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Category    string         `json:"category"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Properties  map[string]any `json:"properties"`
	Display     b3Display      `json:"display"`
	Children    []string       `json:"children,omitempty"`
	Child       string         `json:"child,omitempty"`
}

type b3Display struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

type b3CustomNode struct {
	Version     string         `json:"version"`
	Scope       string         `json:"scope"`
	Name        string         `json:"name"`
	Category    string         `json:"category"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Properties  map[string]any `json:"properties"`
}

// b3Defaults are the Behavior3 Editor's built-in nodes: name -> category.
var b3Defaults = map[string]string{
	"Sequence": "composite", "Priority": "composite", "MemSequence": "composite", "MemPriority": "composite",
	"Repeater": "decorator", "RepeatUntilFailure": "decorator", "RepeatUntilSuccess": "decorator",
	"MaxTime": "decorator", "Inverter": "decorator", "Limiter": "decorator",
	"Failer": "action", "Succeeder": "action", "Runner": "action", "Error": "action", "Wait": "action",
}

// ExportB3 writes the mission as a Behavior3 Editor project (scope
// "project"), which the editor imports with Project > Import. Each botd
// tree becomes a tree titled with its name, SubTree nodes become the
// editor's tree nodes, node types the editor does not know are declared
// as custom nodes, and the main tree's properties hold the initial
// blackboard. Mission settings (tick_hz, evaluation, ...) have no place in
// the format and are not written. The editor lays the nodes out when it
// opens the file.
func ExportB3(d *missions.Document) ([]byte, error) {
	ns := uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://botd.dev/b3/"+d.Namespace()))
	names := make([]string, 0, len(d.Trees))
	for name, t := range d.Trees {
		if t != nil && name != d.Main {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if t := d.Trees[d.Main]; t != nil {
		names = append([]string{d.Main}, names...)
	}
	e := &b3Exporter{reg: missions.DefaultRegistry(), ids: map[string]string{}, custom: map[string]b3CustomNode{}}
	for _, name := range names {
		e.ids[name] = uuid.NewSHA1(ns, []byte(name)).String()
	}
	p := &b3ProjectOut{Version: b3Version, Scope: "project", Trees: []*b3TreeOut{}}
	for _, name := range names {
		t := &b3TreeOut{Version: b3Version, Scope: "tree", ID: e.ids[name], Title: name,
			Properties: map[string]any{}, Nodes: map[string]*b3NodeOut{}}
		if name == d.Main {
			p.SelectedTree = t.ID
			for k, v := range d.Blackboard {
				t.Properties[k] = v
			}
		}
		e.tree = t
		t.Root = e.node(d.Trees[name], "")
		p.Trees = append(p.Trees, t)
	}
	p.CustomNodes = e.customNodes()
	return missions.MarshalJSON(p, "  ")
}

type b3Exporter struct {
	reg    *bt.Registry
	ids    map[string]string // botd tree name -> B3 tree id
	custom map[string]b3CustomNode
	tree   *b3TreeOut
}

// node adds a node and its descendants to the current tree; it returns
// the node's id.
func (e *b3Exporter) node(n *bt.NodeDef, path string) string {
	id := n.ID
	if _, taken := e.tree.Nodes[id]; id == "" || taken {
		id = uuid.NewSHA1(uuid.MustParse(e.tree.ID), []byte(path)).String()
	}
	out := &b3NodeOut{ID: id, Title: n.Name, Properties: map[string]any{}}
	e.tree.Nodes[id] = out
	nt, known := e.reg.Lookup(n.Type)
	typeName := n.Type
	if known {
		typeName = nt.Name
	}
	for k, v := range n.Params {
		if known {
			if p := nt.Param(k); p != nil {
				k = p.Name
			}
		}
		out.Properties[k] = v
	}
	out.Name, out.Category = e.b3Type(typeName, nt, len(n.Children))
	if typeName == "SubTree" {
		tree, _ := n.Params["tree"].(string)
		out.Name, out.Category, out.Properties = tree, "tree", map[string]any{}
		if id, ok := e.ids[tree]; ok {
			out.Name = id
		}
		if out.Title == "" {
			out.Title = tree
		}
	}
	renameB3Props(out)
	if out.Title == "" {
		out.Title = b3Title(out.Name)
	}
	var kids []string
	for i, c := range n.Children {
		if c != nil {
			kids = append(kids, e.node(c, path+"/children/"+strconv.Itoa(i)))
		}
	}
	switch {
	case out.Category == "decorator" && len(kids) == 1:
		out.Child = kids[0]
	case len(kids) > 0:
		out.Children = kids
	}
	return id
}

// b3Type returns the B3 name and category of a botd type.
func (e *b3Exporter) b3Type(typeName string, nt *bt.NodeType, children int) (string, string) {
	name := typeName
	switch typeName {
	case "Succeed":
		name = "Succeeder"
	case "Fail":
		name = "Failer"
	case "Running":
		name = "Runner"
	case "Succeeder":
		name = "ForceSuccess"
	case "Failer":
		name = "ForceFailure"
	}
	if cat, ok := b3Defaults[name]; ok {
		return name, cat
	}
	cat := "action"
	switch {
	case nt != nil:
		cat = nt.Category
	case children == 1:
		cat = "decorator"
	case children > 1:
		cat = "composite"
	}
	if _, seen := e.custom[name]; !seen && typeName != "SubTree" {
		doc := ""
		if nt != nil {
			doc = nt.Doc
		}
		// No property templates: the editor merges a template's
		// properties into every node of that type, which would add
		// parameters the author did not give.
		e.custom[name] = b3CustomNode{Version: b3Version, Scope: "node", Name: name, Category: cat,
			Title: name, Description: doc, Properties: map[string]any{}}
	}
	return name, cat
}

func (e *b3Exporter) customNodes() []b3CustomNode {
	out := make([]b3CustomNode, 0, len(e.custom))
	for _, c := range e.custom {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// renameB3Props gives the editor's built-in nodes their B3 property names.
func renameB3Props(n *b3NodeOut) {
	from, to := "", ""
	switch n.Name {
	case "Repeater", "RepeatUntilFailure", "RepeatUntilSuccess":
		from, to = "count", "maxLoop"
	case "Limiter":
		from, to = "max", "maxLoop"
	case "MaxTime":
		from, to = "ms", "maxTime"
	case "Wait":
		from, to = "ms", "milliseconds"
	default:
		return
	}
	if v, ok := n.Properties[from]; ok {
		delete(n.Properties, from)
		n.Properties[to] = v
	}
}

// b3Title is the editor's default title for a node name.
func b3Title(name string) string {
	switch name {
	case "Repeater":
		return "Repeat <maxLoop>x"
	case "RepeatUntilFailure":
		return "Repeat Until Failure"
	case "RepeatUntilSuccess":
		return "Repeat Until Success"
	case "MaxTime":
		return "Max <maxTime>ms"
	case "Limiter":
		return "Limit <maxLoop> Activations"
	case "Wait":
		return "Wait <milliseconds>ms"
	}
	return name
}
