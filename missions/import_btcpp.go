package missions

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
)

// BehaviorTree.CPP v4 XML (Groot2, Nav2), MISSIONS.md section 6, and
// format 3 files.
//
// Every <BehaviorTree ID> becomes a tree; the main tree is
// main_tree_to_execute, else the first tree. An element's name is its
// type (the v3 forms <Action ID="X"/>, <Condition ID>, <Decorator ID>,
// <Control ID> give type X), its `name` attribute its label and its other
// attributes its params. A BT.CPP built-in whose meaning botd has under
// another name is renamed (btcppBuiltins); those botd has with BT.CPP's
// own semantics keep their names (Repeat, RetryUntilSuccessful,
// SequenceWithMemory, IfThenElse, RateController, ...). An attribute is
// converted to a number or a boolean where the botd parameter takes one
// (or, for a type botd does not know, where it reads as one); "{key}"
// stays a blackboard reference. Attributes that start with '_' (_autoremap,
// _skipIf, _description, ...) are dropped. Unknown types are kept by name
// with their ports, so the registry reports them unless they are
// substituted. <TreeNodesModel> and <include> are ignored: trees from
// included files are not loaded.

// btcppMap maps a BT.CPP built-in to a botd type and renames its ports.
type btcppMap struct {
	to    string
	ports map[string]string
}

// btcppBuiltins are the BT.CPP and Nav2 built-ins botd knows under another
// name. ExportBTCPP maps them back (btcppExportNames).
var btcppBuiltins = map[string]btcppMap{
	// BT.CPP 4's Sequence and Fallback resume at the running child.
	"Sequence":            {to: "MemSequence"},
	"Fallback":            {to: "MemPriority"},
	"ReactiveSequence":    {to: "Sequence"},
	"ReactiveFallback":    {to: "Priority"},
	"SequenceStar":        {to: "SequenceWithMemory"}, // BT.CPP 3
	"Parallel":            {to: "ParallelNode"},
	"ParallelNode":        {to: "ParallelNode"}, // BT.CPP 3 (Groot 1 palettes)
	"RetryUntilSuccesful": {to: "RetryUntilSuccessful"},
	"ForceSuccess":        {to: "Succeeder"},
	"ForceFailure":        {to: "Failer"},
	"Delay":               {to: "Delay", ports: map[string]string{"delay_msec": "ms"}},
	"RunOnce":             {to: "RunOnce"},
	"Sleep":               {to: "Wait", ports: map[string]string{"msec": "ms"}},
	"AlwaysSuccess":       {to: "Succeed"},
	"AlwaysFailure":       {to: "Fail"},
	"BotdParallel":        {to: "Parallel"}, // botd's own Parallel, as ExportBTCPP writes it
	"SetBlackboard":       {to: "Set", ports: map[string]string{"output_key": "key"}},
}

// v3-style elements whose ID attribute is the node type.
var btcppGeneric = map[string]bool{"Action": true, "Condition": true, "Decorator": true, "Control": true}

func decodeBTCPP(data []byte, ps *problems) *Document {
	root, ok := parseXML(data, ps)
	if !ok {
		return nil
	}
	if root.name != "root" {
		ps.invalid("", "line %d: want a BehaviorTree.CPP <root> element, got <%s>", root.line, root.name)
		return nil
	}
	if f := root.attr("BTCPP_format"); f != "" && f != "4" && f != "3" {
		ps.invalid("", "line %d: BTCPP_format %q is not supported (want 4 or 3)", root.line, f)
		return nil
	}
	c := &btcppConv{ps: ps, trees: map[string]*xmlElem{}}
	var order []string
	for _, e := range root.kids {
		switch e.name {
		case "BehaviorTree":
			id := e.attr("ID")
			switch {
			case id == "":
				ps.invalid("", "line %d: <BehaviorTree> without an ID", e.line)
			case c.trees[id] != nil:
				ps.invalid(ptr("/trees", id), "line %d: a second <BehaviorTree> with ID %q", e.line, id)
			default:
				c.trees[id] = e
				order = append(order, id)
			}
		case "TreeNodesModel", "include":
		default:
			ps.invalid("", "line %d: unexpected <%s> in <root>", e.line, e.name)
		}
	}
	d := &Document{Format: Format, Main: root.attr("main_tree_to_execute")}
	if d.Main == "" && len(order) > 0 {
		d.Main = order[0]
	}
	d.Name = d.Main
	if len(order) > 0 {
		d.Trees = make(map[string]*bt.NodeDef, len(order))
	}
	for _, id := range order {
		e, path := c.trees[id], ptr("/trees", id)
		if len(e.kids) != 1 {
			ps.invalid(path, "line %d: a <BehaviorTree> holds exactly one root node, got %d", e.line, len(e.kids))
			d.Trees[id] = nil
			continue
		}
		d.Trees[id] = c.node(e.kids[0], path)
	}
	return d
}

type btcppConv struct {
	ps    *problems
	trees map[string]*xmlElem
}

func (c *btcppConv) node(e *xmlElem, path string) *bt.NodeDef {
	n := &bt.NodeDef{Type: e.name}
	raw := map[string]string{}
	skipID := false
	switch {
	case e.name == "SubTree" || e.name == "SubTreePlus":
		n.Type, skipID = "SubTree", true
		raw["tree"] = e.attr("ID")
	case btcppGeneric[e.name]:
		if n.Type = e.attr("ID"); n.Type == "" {
			c.ps.invalid(ptr(path, "type"), "line %d: <%s> without an ID", e.line, e.name)
		}
		skipID = true
	case c.trees[e.name] != nil && btcppBuiltins[e.name].to == "":
		n.Type = "SubTree"
		raw["tree"] = e.name
	}
	for _, a := range e.attrs {
		k := a.Name.Local
		switch {
		case a.Name.Space != "" || k == "xmlns" || strings.HasPrefix(k, "_"):
		case k == "ID" && skipID:
		case k == "name":
			n.Name = a.Value
		default:
			raw[k] = a.Value
		}
	}
	var params map[string]any
	n.Type, params = c.mapBTCPP(n.Type, raw, path, e.line)
	if len(params) > 0 {
		n.Params = params
	}
	for i, k := range e.kids {
		n.Children = append(n.Children, c.node(k, ptr(ptr(path, "children"), i)))
	}
	return n
}

// mapBTCPP turns a BT.CPP node type and its ports into botd's, typing the
// attribute values by the botd parameters they become.
func (c *btcppConv) mapBTCPP(typ string, raw map[string]string, path string, line int) (string, map[string]any) {
	switch typ {
	case "Wait":
		if _, nav2 := raw["wait_duration"]; nav2 {
			return "Wait", nav2Wait(raw)
		}
	case "SubTree":
		// botd's blackboard is shared with subtrees (BT.CPP's
		// _autoremap), so identity remappings say nothing. Others are
		// kept and reported: botd cannot rename keys for a subtree.
		for k, v := range raw {
			if k != "tree" && v == "{"+k+"}" {
				delete(raw, k)
			}
		}
		return typ, typedParams(typ, raw)
	}
	if m, ok := btcppBuiltins[typ]; ok {
		for from, to := range m.ports {
			if v, ok := raw[from]; ok {
				if _, taken := raw[to]; !taken {
					delete(raw, from)
					raw[to] = v
				}
			}
		}
		typ = m.to
	}
	switch typ {
	case "RunOnce":
		if v, ok := raw["then_skip"]; !ok || attrValue(v) == true {
			c.ps.invalid(ptr(path, "params"), "line %d: RunOnce skips (returns SKIPPED, which botd has no status for) "+
				"unless then_skip=\"false\"; write then_skip=\"false\" to repeat the child's status instead", line)
		}
		delete(raw, "then_skip")
	case "Set":
		// BT.CPP names the output key with or without braces.
		if k, ok := bt.RefKey(raw["key"]); ok {
			raw["key"] = k
		}
	}
	return typ, typedParams(typ, raw)
}

// typedParams converts attribute values by the declared types of the
// botd parameters they become: numbers and booleans where the parameter
// takes one (or any value), strings elsewhere. A type the default
// registry does not know gets numbers and booleans wherever they read as
// such.
func typedParams(typ string, raw map[string]string) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	nt, known := defaultRegistry().Lookup(typ)
	out := make(map[string]any, len(raw))
	for k, v := range raw {
		var p *bt.Param
		if known {
			p = nt.Param(k)
		}
		switch {
		case p == nil, p.Type == bt.TNumber, p.Type == bt.TInt, p.Type == bt.TBool, p.Type == bt.TAny, p.Type == bt.TNumberList:
			out[k] = attrValue(v)
		default:
			out[k] = v
		}
	}
	return out
}

// nav2Wait converts Nav2's Wait action (wait_duration in seconds, plus
// action-server ports botd's Wait has no use for) to botd's Wait.
func nav2Wait(raw map[string]string) map[string]any {
	s, ok := attrValue(raw["wait_duration"]).(float64)
	if !ok {
		return typedParams("Wait", raw)
	}
	return map[string]any{"ms": s * 1000}
}

var decimal = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// attrValue converts an attribute to a boolean (spelled as BT.CPP reads
// one) or a number when it reads as one; anything else, "{key}" included,
// stays a string.
func attrValue(s string) any {
	switch s {
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	if decimal.MatchString(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return s
}
