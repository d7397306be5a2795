package btcpp

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// Export writes the mission as BehaviorTree.CPP v4 XML that Groot2
// opens: <root BTCPP_format="4" main_tree_to_execute>, one <BehaviorTree
// ID> per tree (the main tree first) and a <TreeNodesModel> that declares
// every node type that is not a BT.CPP built-in, with its ports.
//
// botd types BT.CPP has under another name get that name and its port
// names back (MemSequence is Sequence, Wait is Sleep with msec, ...);
// the BT.CPP and Nav2 types botd has under their own names keep them, and
// so do their ports; the rest (botd's own nodes, and node types botd does
// not know) are written as they are and declared in the model, with the
// parameters the registry declares or, for unknown types, the ports the
// document gives them. So a file imported from XML comes back with its
// BT.CPP names and port names, except Nav2's Wait (imported as botd's
// Wait, written as Sleep) and what the import drops: attributes starting
// with '_' (but _autoremap) and comments. An imported file's own
// <TreeNodesModel> entries are written back as declared (a Condition, its
// output ports, their C++ types, its SubTree models), over botd's guess
// of a model from the ports a node is given.
// Mission settings (tick_hz, evaluation, the initial blackboard, node
// ids) have no place in the format and are not written. reg (nil: the
// built-ins) says which types botd knows.
func Export(d *missions.Document, reg *bt.Registry) ([]byte, error) {
	if reg == nil {
		reg = missions.DefaultRegistry()
	}
	e := &btcppExporter{reg: reg, model: map[string]*btcppModel{}, src: origin(d)}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<root BTCPP_format="4" main_tree_to_execute=%s>`+"\n", attr(d.Main))
	for _, name := range treeOrder(d) {
		fmt.Fprintf(&b, "  <BehaviorTree ID=%s>\n", attr(name))
		if err := e.node(&b, d.Trees[name], 2); err != nil {
			return nil, fmt.Errorf("tree %q: %w", name, err)
		}
		b.WriteString("  </BehaviorTree>\n")
	}
	e.writeModel(&b, 1)
	b.WriteString("</root>\n")
	return b.Bytes(), nil
}

// treeOrder is the main tree, then the others by name.
func treeOrder(d *missions.Document) []string {
	var names []string
	for name, t := range d.Trees {
		if t != nil && name != d.Main {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if d.Trees[d.Main] != nil {
		names = append([]string{d.Main}, names...)
	}
	return names
}

// btcppOut is how a botd type is written in BT.CPP XML.
type btcppOut struct {
	name  string
	ports map[string]string // botd parameter -> BT.CPP port
	extra [][2]string       // attributes BT.CPP needs that botd implies
}

// btcppExportNames are the botd types written under another name: the
// inverse of btcppBuiltins, and botd's own Parallel, which BT.CPP's
// Parallel is not (ParallelNode is).
var btcppExportNames = map[string]btcppOut{
	"MemSequence":  {name: "Sequence"},
	"MemPriority":  {name: "Fallback"},
	"Sequence":     {name: "ReactiveSequence"},
	"Priority":     {name: "ReactiveFallback"},
	"ParallelNode": {name: "Parallel"},
	"Parallel":     {name: "BotdParallel"},
	"Succeeder":    {name: "ForceSuccess"},
	"Failer":       {name: "ForceFailure"},
	"Succeed":      {name: "AlwaysSuccess"},
	"Fail":         {name: "AlwaysFailure"},
	"Delay":        {name: "Delay", ports: map[string]string{"ms": "delay_msec"}},
	"RunOnce":      {name: "RunOnce", extra: [][2]string{{"then_skip", "false"}}},
	"Wait":         {name: "Sleep", ports: map[string]string{"ms": "msec"}},
	"Set":          {name: "SetBlackboard", ports: map[string]string{"key": "output_key"}},
	"RecoveryNode": {name: "RecoveryNode", ports: map[string]string{"retries": "number_of_retries"}},
}

// btcppBuiltinNames are BT.CPP 4's own node types, which Groot2 knows
// without a model.
var btcppBuiltinNames = map[string]bool{
	"Sequence": true, "Fallback": true, "ReactiveSequence": true, "ReactiveFallback": true, "SequenceWithMemory": true,
	"Parallel": true, "ParallelAll": true, "IfThenElse": true, "WhileDoElse": true, "TryCatch": true,
	"Switch2": true, "Switch3": true, "Switch4": true, "Switch5": true, "Switch6": true,
	"Inverter": true, "RetryUntilSuccessful": true, "KeepRunningUntilFailure": true, "Repeat": true, "Timeout": true,
	"Delay": true, "RunOnce": true, "ForceSuccess": true, "ForceFailure": true, "Precondition": true,
	"LoopInt": true, "LoopBool": true, "LoopDouble": true, "LoopString": true,
	"SkipUnlessUpdated": true, "WaitValueUpdate": true,
	"AlwaysSuccess": true, "AlwaysFailure": true, "Script": true, "ScriptCondition": true, "SetBlackboard": true,
	"Sleep": true, "UnsetBlackboard": true, "WasEntryUpdated": true, "SubTree": true,
	"AsyncSequence": true, "AsyncFallback": true,
}

type btcppExporter struct {
	reg   *bt.Registry
	model map[string]*btcppModel // declared node types by XML name
	// builtinModels declares BT.CPP's built-in types too (Groot2's
	// FULLTREE carries every model).
	builtinModels bool
	// conds are the attributes of a PrePost being folded into the node
	// written next (BT.CPP's _skipIf, _while, ...).
	conds [][2]string
	// src is the imported file's own <TreeNodesModel>, written back as
	// declared (nil for a document from elsewhere).
	src *btcppSource
}

// btcppCondAttr is the attribute each PrePost parameter is written as.
var btcppCondAttr = func() map[string]string {
	m := map[string]string{}
	for a, p := range btcppConditions {
		m[p] = a
	}
	return m
}()

// foldable reports whether a PrePost node can be written as attributes
// of its child: one child that is not a PrePost itself, string scripts
// for known conditions only.
func foldable(n *bt.NodeDef) bool {
	if n.Type != "PrePost" || len(n.Children) != 1 || n.Children[0] == nil || n.Children[0].Type == "PrePost" || n.Name != "" || n.ID != "" {
		return false
	}
	for k, v := range n.Params {
		if _, ok := v.(string); !ok || btcppCondAttr[k] == "" {
			return false
		}
	}
	return true
}

// btcppModel is one entry of the TreeNodesModel.
type btcppModel struct {
	kind  string // Action, Condition, Decorator, Control
	ports []bt.Param
	seen  map[string]bool
}

func (e *btcppExporter) node(b *bytes.Buffer, n *bt.NodeDef, depth int) error {
	if n == nil {
		return fmt.Errorf("a null node")
	}
	if foldable(n) {
		for _, k := range sortedParamKeys(n.Params) {
			e.conds = append(e.conds, [2]string{btcppCondAttr[k], n.Params[k].(string)})
		}
		return e.node(b, n.Children[0], depth)
	}
	conds := e.conds
	e.conds = nil
	indent := strings.Repeat("  ", depth)
	name, attrs, err := e.head(n, conds)
	if err != nil {
		return err
	}
	b.WriteString(indent + "<" + name)
	for _, a := range attrs {
		b.WriteString(" " + a[0] + "=" + attr(a[1]))
	}
	if len(n.Children) == 0 {
		b.WriteString("/>\n")
		return nil
	}
	b.WriteString(">\n")
	for _, c := range n.Children {
		if err := e.node(b, c, depth+1); err != nil {
			return err
		}
	}
	b.WriteString(indent + "</" + name + ">\n")
	return nil
}

// head returns the XML element name and attributes of n (conds are the
// folded PrePost attributes), and declares its type in the model.
func (e *btcppExporter) head(n *bt.NodeDef, conds [][2]string) (string, [][2]string, error) {
	nt, known := e.reg.Lookup(n.Type)
	typeName := n.Type
	if known {
		typeName = nt.Name
	}
	out, renamed := btcppExportNames[typeName]
	if !renamed {
		out = btcppOut{name: typeName}
	}
	var attrs [][2]string
	if typeName == "SubTree" {
		tree, _ := n.Params["tree"].(string)
		if tree == "" {
			tree, _ = n.Params["ID"].(string)
		}
		attrs = append(attrs, [2]string{"ID", tree})
		// botd's SubTree shares the blackboard unless told otherwise;
		// BT.CPP's does not unless _autoremap is set.
		if auto, ok := n.Params["autoremap"].(bool); !ok || auto {
			attrs = append(attrs, [2]string{"_autoremap", "true"})
		}
	}
	if n.Name != "" {
		attrs = append(attrs, [2]string{"name", n.Name})
	}
	for _, k := range sortedParamKeys(n.Params) {
		if typeName == "SubTree" && (k == "tree" || k == "ID" || k == "autoremap") {
			continue
		}
		port := k
		if p := paramOf(nt, known, k); p != nil && typeName != "SubTree" {
			// The canonical name, in BT.CPP's spelling where it differs.
			port = p.Name
			if to := out.ports[p.Name]; to != "" {
				port = to
			}
		}
		v, err := portValue(n.Params[k])
		if err != nil {
			return "", nil, fmt.Errorf("%s parameter %q: %w", n.Type, k, err)
		}
		attrs = append(attrs, [2]string{port, v})
	}
	for _, x := range out.extra {
		if _, given := n.Params[x[0]]; !given {
			attrs = append(attrs, x)
		}
	}
	attrs = append(attrs, conds...)
	if e.builtinModels || !btcppBuiltinNames[out.name] {
		e.declare(out, nt, known, n)
	}
	return out.name, attrs, nil
}

// paramOf returns the declaration of parameter k of a known type.
func paramOf(nt *bt.NodeType, known bool, k string) *bt.Param {
	if !known {
		return nil
	}
	return nt.Param(k)
}

// declare adds a node type to the model: with the registry's parameters
// when botd knows it, else with the ports the document gives it.
func (e *btcppExporter) declare(out btcppOut, nt *bt.NodeType, known bool, n *bt.NodeDef) {
	m := e.model[out.name]
	if m == nil {
		m = &btcppModel{seen: map[string]bool{}}
		e.model[out.name] = m
		switch {
		case known:
			m.kind = modelKind(nt)
			for _, p := range nt.Params {
				if port := out.ports[p.Name]; port != "" {
					p.Name = port
				}
				m.ports = append(m.ports, p)
				m.seen[p.Name] = true
			}
		case len(n.Children) == 1:
			m.kind = "Decorator"
		case len(n.Children) > 1:
			m.kind = "Control"
		default:
			m.kind = "Action"
		}
	}
	if known {
		return
	}
	for _, k := range sortedParamKeys(n.Params) {
		if !m.seen[k] {
			m.seen[k] = true
			p := bt.Param{Name: k, Type: bt.TAny}
			if _, num := n.Params[k].(float64); num {
				p.Type = bt.TNumber
			}
			m.ports = append(m.ports, p)
		}
	}
}

// modelKind is the TreeNodesModel element of a botd node type.
func modelKind(nt *bt.NodeType) string {
	switch {
	case nt.Kind == bt.Composite:
		return "Control"
	case nt.Kind == bt.Decorator:
		return "Decorator"
	case nt.Category == "condition":
		return "Condition"
	}
	return "Action"
}

// btcppOutputs are the ports BT.CPP's and Nav2's nodes write.
var btcppOutputs = map[string]bool{"output_goal": true, "output_goals": true}

func (e *btcppExporter) writeModel(b *bytes.Buffer, depth int) {
	var own []btcppDeclared // the imported file's entries botd did not write
	if e.src != nil {
		for _, m := range e.src.models {
			if m.kind == "SubTree" || e.model[m.id] == nil {
				own = append(own, m)
			}
		}
	}
	if len(e.model) == 0 && len(own) == 0 {
		return
	}
	indent := strings.Repeat("  ", depth)
	b.WriteString(indent + "<TreeNodesModel>\n")
	names := make([]string, 0, len(e.model))
	for name := range e.model {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		// The file's own declaration of a type, as written (a Condition,
		// its output ports, their C++ types), else botd's.
		if m, ok := e.src.declared(name, false); ok && isModelKind(m.kind) {
			m.write(b, indent+"  ")
			continue
		}
		writeModelEntry(b, indent+"  ", name, e.model[name])
	}
	for _, m := range own {
		m.write(b, indent+"  ")
	}
	b.WriteString(indent + "</TreeNodesModel>\n")
}

func writeModelEntry(b *bytes.Buffer, indent, name string, m *btcppModel) {
	if len(m.ports) == 0 {
		fmt.Fprintf(b, "%s<%s ID=%s/>\n", indent, m.kind, attr(name))
		return
	}
	fmt.Fprintf(b, "%s<%s ID=%s>\n", indent, m.kind, attr(name))
	for _, p := range m.ports {
		dir := "input_port"
		if btcppOutputs[p.Name] {
			dir = "output_port"
		}
		fmt.Fprintf(b, "%s  <%s name=%s", indent, dir, attr(p.Name))
		if t := portType(p); t != "" {
			fmt.Fprintf(b, " type=%s", attr(t))
		}
		if p.Default != nil {
			if v, err := portValue(p.Default); err == nil {
				fmt.Fprintf(b, " default=%s", attr(v))
			}
		}
		doc := p.Doc
		if p.Unit != "" {
			doc = strings.TrimSpace(doc + " (" + p.Unit + ")")
		}
		if doc == "" {
			b.WriteString("/>\n")
			continue
		}
		b.WriteString(">")
		xml.EscapeText(b, []byte(doc))
		fmt.Fprintf(b, "</%s>\n", dir)
	}
	fmt.Fprintf(b, "%s</%s>\n", indent, m.kind)
}

// portType is the C++ type BT.CPP and Groot2 show for a parameter.
func portType(p bt.Param) string {
	switch p.Type {
	case bt.TNumber:
		return "double"
	case bt.TInt:
		return "int"
	case bt.TBool:
		return "bool"
	case bt.TAny:
		return ""
	}
	return "std::string"
}

// portValue writes a parameter value as an attribute: numbers as short
// as they read back exactly, lists of plain values joined with ';' (as
// BT.CPP writes a queue or a vector), other structured values as JSON.
func portValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case nil:
		return "", nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := portValue(e)
			if err != nil {
				return "", err
			}
			if _, nested := e.([]any); nested || strings.Contains(s, ";") {
				return jsonValue(v)
			}
			parts[i] = s
		}
		return strings.Join(parts, ";"), nil
	case map[string]any:
		return jsonValue(v)
	}
	if f, ok := bt.AsNumber(v); ok {
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("cannot write a %T as an attribute", v)
}

func jsonValue(v any) (string, error) {
	out, err := json.Marshal(v)
	return string(out), err
}

// attr quotes an attribute value.
func attr(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	xml.EscapeText(&b, []byte(s))
	b.WriteByte('"')
	return b.String()
}

func sortedParamKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// NodesModel writes the TreeNodesModel of every node type of reg
// that is not a BT.CPP built-in (under the names Export writes), for
// Groot2's palette.
func NodesModel(reg *bt.Registry) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<root BTCPP_format="4">` + "\n")
	e := &btcppExporter{reg: reg, model: map[string]*btcppModel{}}
	for _, nt := range reg.Types() {
		out, renamed := btcppExportNames[nt.Name]
		if !renamed {
			out = btcppOut{name: nt.Name}
		}
		if btcppBuiltinNames[out.name] || nt.Name == "SubTree" {
			continue
		}
		e.declare(out, nt, true, &bt.NodeDef{Type: nt.Name})
	}
	e.writeModel(&b, 1)
	b.WriteString("</root>\n")
	return b.Bytes()
}
