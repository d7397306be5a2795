package missions

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/botd-project/botd/bt"
)

// BehaviorTree.CPP v4 XML (Groot2, Nav2), MISSIONS.md section 6.
//
// Every <BehaviorTree ID> becomes a tree; the main tree is
// main_tree_to_execute, else the first tree. An element's name is its
// type (the v3 forms <Action ID="X"/>, <Condition ID>, <Decorator ID>,
// <Control ID> give type X), its `name` attribute its label and its other
// attributes its params, converted to numbers and booleans where they
// parse as such ("{key}" stays a blackboard reference). Attributes that
// start with '_' (_autoremap, _skipIf, _description, ...) are dropped.
// The built-ins are mapped to botd's equivalents (btcppBuiltins);
// unknown types are kept by name, so the registry reports them unless
// they are substituted. <TreeNodesModel> and <include> are ignored:
// trees from included files are not loaded.

// btcppMap maps a BT.CPP built-in to a botd type and renames its ports.
type btcppMap struct {
	to    string
	ports map[string]string
}

var btcppBuiltins = map[string]btcppMap{
	// BT.CPP 4's Sequence and Fallback resume at the running child.
	"Sequence":           {to: "MemSequence"},
	"SequenceWithMemory": {to: "MemSequence"},
	"SequenceStar":       {to: "MemSequence"}, // BT.CPP 3
	"Fallback":           {to: "MemPriority"},
	"ReactiveSequence":   {to: "Sequence"},
	"ReactiveFallback":   {to: "Priority"},
	"Parallel":           {to: "Parallel", ports: map[string]string{"success_count": "success", "failure_count": "failure"}},
	"Inverter":           {to: "Inverter"},
	"ForceSuccess":       {to: "Succeeder"},
	"ForceFailure":       {to: "Failer"},
	"Repeat":             {to: "Repeater", ports: map[string]string{"num_cycles": "count"}},
	"RetryUntilSuccessful": {to: "RepeatUntilSuccess",
		ports: map[string]string{"num_attempts": "count"}},
	"KeepRunningUntilFailure": {to: "RepeatUntilFailure"},
	"Timeout":                 {to: "MaxTime", ports: map[string]string{"msec": "ms"}},
	"Delay":                   {to: "Delay", ports: map[string]string{"delay_msec": "ms"}},
	"RunOnce":                 {to: "RunOnce"},
	"Sleep":                   {to: "Wait", ports: map[string]string{"msec": "ms"}},
	"AlwaysSuccess":           {to: "Succeed"},
	"AlwaysFailure":           {to: "Fail"},
	"SetBlackboard":           {to: "Set", ports: map[string]string{"output_key": "key"}},
	"ScriptCondition":         {to: "Expr", ports: map[string]string{"code": "expr"}},
	// Nav2's control nodes.
	"PipelineSequence": {to: "PipelineSequence"},
	"RecoveryNode":     {to: "RecoveryNode", ports: map[string]string{"number_of_retries": "retries"}},
	"RoundRobin":       {to: "RoundRobin"},
	"RateController":   {to: "Regulator"},
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
	if f := root.attr("BTCPP_format"); f != "" && f != "4" {
		ps.invalid("", "line %d: BTCPP_format %q is not supported (want 4)", root.line, f)
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
	params := map[string]any{}
	skipID := false
	switch {
	case e.name == "SubTree" || e.name == "SubTreePlus":
		n.Type, skipID = "SubTree", true
		params["tree"] = e.attr("ID")
	case btcppGeneric[e.name]:
		if n.Type = e.attr("ID"); n.Type == "" {
			c.ps.invalid(ptr(path, "type"), "line %d: <%s> without an ID", e.line, e.name)
		}
		skipID = true
	case c.trees[e.name] != nil && btcppBuiltins[e.name].to == "":
		n.Type = "SubTree"
		params["tree"] = e.name
	}
	for _, a := range e.attrs {
		k := a.Name.Local
		switch {
		case a.Name.Space != "" || k == "xmlns" || strings.HasPrefix(k, "_"):
		case k == "ID" && skipID:
		case k == "name":
			n.Name = a.Value
		default:
			params[k] = attrValue(a.Value)
		}
	}
	n.Type, params = mapBTCPP(n.Type, params)
	if len(params) > 0 {
		n.Params = params
	}
	for i, k := range e.kids {
		n.Children = append(n.Children, c.node(k, ptr(ptr(path, "children"), i)))
	}
	return n
}

// mapBTCPP turns a BT.CPP node type and its ports into botd's.
func mapBTCPP(typ string, params map[string]any) (string, map[string]any) {
	switch typ {
	case "Script":
		if code, ok := params["code"].(string); ok && len(params) == 1 {
			return scriptNode(code)
		}
		return typ, params
	case "Wait":
		return nav2Wait(params), params
	case "SubTree":
		// botd's blackboard is shared with subtrees (BT.CPP's
		// _autoremap), so identity remappings say nothing. Others are
		// kept and reported: botd cannot rename keys for a subtree.
		for k, v := range params {
			if k != "tree" && v == "{"+k+"}" {
				delete(params, k)
			}
		}
		return typ, params
	}
	m, ok := btcppBuiltins[typ]
	if !ok {
		return typ, params
	}
	for from, to := range m.ports {
		if v, ok := params[from]; ok {
			if _, taken := params[to]; !taken {
				delete(params, from)
				params[to] = v
			}
		}
	}
	if m.to == "RunOnce" && params["then_skip"] == false {
		// then_skip="false" repeats the remembered status, as botd's
		// RunOnce does; BT.CPP's default (skip) has no botd equivalent.
		delete(params, "then_skip")
	}
	if m.to == "Set" {
		// BT.CPP names the output key with or without braces.
		if k, ok := params["key"].(string); ok {
			if ref, isRef := bt.RefKey(k); isRef {
				params["key"] = ref
			}
		}
	}
	return m.to, params
}

// nav2Wait converts Nav2's Wait action (wait_duration in seconds, plus
// action-server ports botd's Wait has no use for) to botd's Wait.
func nav2Wait(params map[string]any) string {
	s, ok := params["wait_duration"].(float64)
	if !ok {
		return "Wait"
	}
	delete(params, "wait_duration")
	params["ms"] = s * 1000
	for _, k := range []string{"error_code_id", "error_msg", "server_name", "server_timeout"} {
		delete(params, k)
	}
	return "Wait"
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
