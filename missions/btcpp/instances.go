package btcpp

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// MaxUID is the largest node uid BehaviorTree.CPP's tools read (a
// uint16; BT.CPP numbers nodes from 1).
const MaxUID = 65535

// ExportInstances writes the compiled tree t of mission d as
// BehaviorTree.CPP 4's WriteTreeToXML(tree, true, true) writes a created
// tree: one <BehaviorTree> per tree instance (the main tree, then every
// SubTree instance in the order its SubTree node comes, each with its
// _fullpath), every node with name (its type when it has none) and _uid,
// and a <TreeNodesModel> with every node type of reg, BT.CPP's built-ins
// included. Groot2 reads this from a FULLTREE reply and from a .btlog.
//
// The uid of compiled node i is i+1, so a node's status and transitions
// are sent under that uid. Element names and ports are Export's.
// Unlike Export nothing is folded: a PrePost is written as the node
// it is (it has a status of its own), and the children a node synthesizes
// from its parameters are written as its children.
func ExportInstances(d *missions.Document, t *bt.Tree, reg *bt.Registry) ([]byte, error) {
	if reg == nil {
		reg = missions.DefaultRegistry()
	}
	if t.Len() == 0 {
		return nil, fmt.Errorf("an empty tree")
	}
	if t.Len() > MaxUID {
		return nil, fmt.Errorf("the tree has %d nodes: BT.CPP's uids stop at %d", t.Len(), MaxUID)
	}
	w := &instanceWriter{e: &btcppExporter{reg: reg, model: map[string]*btcppModel{}, builtinModels: true}, d: d, t: t}
	main := d.Main
	if main == "" {
		main = t.Node(0).Tree
	}
	w.queue = []instance{{tree: main, root: 0}}
	for len(w.queue) > 0 {
		in := w.queue[0]
		w.queue = w.queue[1:]
		fmt.Fprintf(&w.b, "    <BehaviorTree ID=%s _fullpath=%s>\n", attr(in.tree), attr(in.path))
		if err := w.node(in.root, in.path, 2); err != nil {
			return nil, err
		}
		w.b.WriteString("    </BehaviorTree>\n")
	}
	for _, nt := range reg.Types() {
		if nt.Name == "SubTree" {
			continue
		}
		out, renamed := btcppExportNames[nt.Name]
		if !renamed {
			out = btcppOut{name: nt.Name}
		}
		w.e.declare(out, nt, true, &bt.NodeDef{Type: nt.Name})
	}
	var b bytes.Buffer
	b.WriteString(`<root BTCPP_format="4">` + "\n")
	b.Write(w.b.Bytes())
	w.e.writeModel4(&b)
	b.WriteString("</root>\n")
	return b.Bytes(), nil
}

// instance is a tree instance waiting to be written: the main tree, or
// the tree under a SubTree node.
type instance struct {
	tree string
	path string // _fullpath
	root int32
}

type instanceWriter struct {
	e     *btcppExporter
	d     *missions.Document
	t     *bt.Tree
	b     bytes.Buffer
	queue []instance
}

func (w *instanceWriter) node(i int32, fullpath string, depth int) error {
	n := w.t.Node(int(i))
	def := missions.DefAt(w.d, n.Path)
	if def == nil || (n.Type != nil && n.Type.Name == "SubTree") != isSubTreeDef(w.e.reg, def) {
		// A node the document does not spell out (synthesized from its
		// parent's parameters, or stood in for): its compiled type.
		def = &bt.NodeDef{Name: n.Name}
		if n.Type != nil {
			def.Type = n.Type.Name
		}
	}
	name, attrs, err := w.e.head(def, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", n.Path, err)
	}
	uid := [2]string{"_uid", strconv.Itoa(int(i) + 1)}
	var head [][2]string
	var rest [][2]string
	display := def.Name
	for _, a := range attrs {
		switch a[0] {
		case "name":
			display = a[1]
		case "ID":
			if name == "SubTree" {
				head = append(head, a)
				continue
			}
			rest = append(rest, a)
		default:
			rest = append(rest, a)
		}
	}
	if name == "SubTree" {
		tree := ""
		if len(head) > 0 {
			tree = head[0][1]
		}
		inst := display
		if inst == "" {
			inst = tree + "::" + uid[1]
		}
		if fullpath != "" {
			inst = fullpath + "/" + inst
		}
		head = append(head, [2]string{"_fullpath", inst}, uid)
		if len(n.Children) == 1 {
			w.queue = append(w.queue, instance{tree: tree, path: inst, root: n.Children[0]})
		}
		w.open(name, append(head, rest...), depth, true)
		return nil
	}
	if display == "" {
		display = name
	}
	head = append(head, [2]string{"name", display}, uid)
	w.open(name, append(head, rest...), depth, len(n.Children) == 0)
	if len(n.Children) == 0 {
		return nil
	}
	for _, c := range n.Children {
		if err := w.node(c, fullpath, depth+1); err != nil {
			return err
		}
	}
	w.b.WriteString(strings.Repeat("    ", depth) + "</" + name + ">\n")
	return nil
}

func (w *instanceWriter) open(name string, attrs [][2]string, depth int, empty bool) {
	w.b.WriteString(strings.Repeat("    ", depth) + "<" + name)
	for _, a := range attrs {
		w.b.WriteString(" " + a[0] + "=" + attr(a[1]))
	}
	if empty {
		w.b.WriteString("/>\n")
	} else {
		w.b.WriteString(">\n")
	}
}

func isSubTreeDef(reg *bt.Registry, def *bt.NodeDef) bool {
	nt, ok := reg.Lookup(def.Type)
	return ok && nt.Name == "SubTree"
}

// writeModel4 writes the model as WriteTreeToXML indents it.
func (e *btcppExporter) writeModel4(b *bytes.Buffer) {
	var m bytes.Buffer
	e.writeModel(&m, 1)
	// writeModel indents by two spaces a level; BT.CPP by four.
	for _, line := range strings.SplitAfter(m.String(), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		b.WriteString(strings.Repeat(" ", 2*(len(line)-len(trimmed))))
		b.WriteString(trimmed)
	}
}
