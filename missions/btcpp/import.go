package btcpp

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
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
// stays a blackboard reference. A <SubTree ID> (or an element named after
// a tree) becomes a SubTree whose other attributes are its ports, with
// its own blackboard unless _autoremap is set (format 3: __shared_blackboard,
// and ports that name keys without braces). Other attributes that start
// with '_' (_skipIf, _description, ...) are dropped. Unknown types are
// kept by name with their ports, so the registry reports them unless they
// are substituted. <include path> reads another file, relative to the
// including one (only for a file read from disk, see DecodeFile), and adds
// its trees; an include that cannot be read, an include cycle or a tree
// ID defined twice fails the whole import. Of <TreeNodesModel>, the
// SubTree declarations are read (their ports' defaults, see
// subtreeModel); every declaration, SubTree or node, is kept as written
// for Export (btcppDeclared), which gives it back.

// btcppMap maps a BT.CPP built-in to a botd type and renames its ports.
type btcppMap struct {
	to    string
	ports map[string]string
}

// btcppBuiltins are the BT.CPP and Nav2 built-ins botd knows under another
// name. Export maps them back (btcppExportNames).
var btcppBuiltins = map[string]btcppMap{
	// BT.CPP 4's Sequence and Fallback resume at the running child.
	"Sequence":            {to: "MemSequence"},
	"Fallback":            {to: "MemPriority"},
	"ReactiveSequence":    {to: "Sequence"},
	"ReactiveFallback":    {to: "Priority"},
	"SequenceStar":        {to: "SequenceWithMemory"}, // BT.CPP 3
	"Parallel":            {to: "ParallelNode", ports: btcpp3Parallel},
	"ParallelNode":        {to: "ParallelNode", ports: btcpp3Parallel}, // BT.CPP 3 (Groot 1 palettes)
	"RetryUntilSuccesful": {to: "RetryUntilSuccessful"},
	"ForceSuccess":        {to: "Succeeder"},
	"ForceFailure":        {to: "Failer"},
	"Delay":               {to: "Delay", ports: map[string]string{"delay_msec": "ms"}},
	"RunOnce":             {to: "RunOnce"},
	"Sleep":               {to: "Wait", ports: map[string]string{"msec": "ms"}},
	"AlwaysSuccess":       {to: "Succeed"},
	"AlwaysFailure":       {to: "Fail"},
	"BotdParallel":        {to: "Parallel"}, // botd's own Parallel, as Export writes it
	"SetBlackboard":       {to: "Set", ports: map[string]string{"output_key": "key"}},
}

// btcpp3Parallel renames BT.CPP 3's Parallel thresholds to BT.CPP 4's
// ports, which Export writes.
var btcpp3Parallel = map[string]string{"success_threshold": "success_count", "failure_threshold": "failure_count"}

// v3-style elements whose ID attribute is the node type.
var btcppGeneric = map[string]bool{"Action": true, "Condition": true, "Decorator": true, "Control": true}

func decodeBTCPP(data []byte, ps *missions.Problems) *missions.Document {
	return decodeBTCPPFile(data, "", nil, nil, ps)
}

// libraryModels merges the SubTree models of a library's BT.CPP files,
// a later file's over an earlier one's.
func libraryModels(lib *missions.Library) map[string]subtreeModel {
	var out map[string]subtreeModel
	for _, o := range lib.Origins() {
		s, ok := o.(*btcppSource)
		if !ok {
			continue
		}
		for id, m := range s.subtreeModels {
			if out == nil {
				out = map[string]subtreeModel{}
			}
			out[id] = m
		}
	}
	return out
}

// libraryNames are the trees of a library.
func libraryNames(lib *missions.Library) map[string]bool {
	names := lib.Names()
	if names == nil {
		return nil
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// decodeBTCPPFile reads a BT.CPP file and the files it includes. file is
// its path ("" for bytes from elsewhere, which may include nothing); read
// reads an included file (nil: includes are refused); lib names the trees
// of a library, which elements may call by name too.
func decodeBTCPPFile(data []byte, file string, read func(string) ([]byte, error), lib *missions.Library, ps *missions.Problems) *missions.Document {
	l := &btcppLoader{ps: ps, read: read, trees: map[string]*btcppTree{}, loaded: map[string]bool{}, models: map[string]subtreeModel{}}
	root := l.load(data, file, "", 0)
	if root == nil || l.fatal {
		return nil // never half-loaded
	}
	models := l.models
	if libModels := libraryModels(lib); len(libModels) > 0 {
		// The library's models, then the file's own over them.
		models = make(map[string]subtreeModel, len(libModels)+len(l.models))
		for id, m := range libModels {
			models[id] = m
		}
		for id, m := range l.models {
			models[id] = m
		}
	}
	c := &btcppConv{ps: ps, trees: l.trees, lib: libraryNames(lib), models: models, locs: map[string]btcppLoc{}}
	src := &btcppSource{locs: c.locs, files: l.files, models: l.declared}
	if len(l.models) > 0 {
		src.subtreeModels = l.models
	}
	d := &missions.Document{Format: missions.Format, Main: root.attr("main_tree_to_execute"), Origin: src}
	if d.Main == "" && len(l.own) > 0 {
		d.Main = l.own[0]
	}
	d.Name = d.Main
	if len(l.order) > 0 {
		d.Trees = make(map[string]*bt.NodeDef, len(l.order))
	}
	for _, id := range l.order {
		t, path := l.trees[id], missions.Ptr("/trees", id)
		c.file, c.v3 = t.file, t.v3
		c.locs[path] = btcppLoc{file: t.file, line: t.e.line, elem: "BehaviorTree"}
		if len(t.e.kids) != 1 {
			ps.Invalid(path, "%s: a <BehaviorTree> holds exactly one root node, got %d", c.at(t.e.line), len(t.e.kids))
			d.Trees[id] = nil
			continue
		}
		d.Trees[id] = c.node(t.e.kids[0], path)
	}
	return d
}

// btcppTree is a <BehaviorTree> and the file it comes from.
type btcppTree struct {
	e    *xmlElem
	file string // "" for the file being decoded
	v3   bool   // the file is BTCPP_format 3
}

// btcppLoader reads a file and its includes, depth first, and collects
// their trees.
type btcppLoader struct {
	ps       *missions.Problems
	read     func(string) ([]byte, error)
	trees    map[string]*btcppTree
	order    []string // every tree, in the order read
	own      []string // the trees of the first file
	loaded   map[string]bool
	models   map[string]subtreeModel // <TreeNodesModel> SubTrees, by tree ID
	stack    []string                // the files being read (include cycles)
	files    []string                // the files read, first the file itself ("")
	declared []btcppDeclared         // every <TreeNodesModel> entry, in file order
	fatal    bool                    // an include could not be read: nothing is loaded
}

// load reads one file: label names it in messages ("" for the first
// file), line is the <include> that asked for it.
func (l *btcppLoader) load(data []byte, file, label string, depth int) *xmlElem {
	ps := l.ps
	fileps := missions.NewProblems(ps.Limits())
	root, ok := parseXML(data, fileps)
	for _, p := range fileps.List() {
		if label != "" {
			p.Message = label + ": " + p.Message
		}
		ps.Append(p)
	}
	if !ok {
		l.fatal = true
		return nil
	}
	at := func(line int) string {
		if label != "" {
			return fmt.Sprintf("%s: line %d", label, line)
		}
		return fmt.Sprintf("line %d", line)
	}
	if root.name != "root" {
		ps.Invalid("", "%s: want a BehaviorTree.CPP <root> element, got <%s>", at(root.line), root.name)
		l.fatal = true
		return nil
	}
	format := root.attr("BTCPP_format")
	if format != "" && format != "4" && format != "3" {
		ps.Invalid("", "%s: BTCPP_format %q is not supported (want 4 or 3)", at(root.line), format)
		l.fatal = true
		return nil
	}
	l.files = append(l.files, label)
	l.stack = append(l.stack, file)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	unnamed := 0
	for _, e := range root.kids {
		switch e.name {
		case "BehaviorTree":
			id := e.attr("ID")
			if id == "" {
				// BT.CPP names it so (XMLParser::loadFromXML).
				id = "BehaviorTree_" + strconv.Itoa(unnamed)
				unnamed++
			}
			switch {
			case l.trees[id] != nil:
				prev := "this file"
				if f := l.trees[id].file; f != "" {
					prev = f
				}
				ps.Invalid(missions.Ptr("/trees", id), "%s: a second <BehaviorTree> with ID %q (the first is in %s)", at(e.line), id, prev)
			default:
				l.trees[id] = &btcppTree{e: e, file: label, v3: format == "3"}
				l.order = append(l.order, id)
				if depth == 0 {
					l.own = append(l.own, id)
				}
			}
		case "include":
			l.include(e, file, at(e.line), depth)
		case "TreeNodesModel":
			l.readModels(e, at)
		default:
			ps.Invalid("", "%s: unexpected <%s> in <root>", at(e.line), e.name)
		}
	}
	return root
}

// subtreeModel is a SubTree's declaration in <TreeNodesModel>: its ports
// and their defaults. A SubTree that calls the tree without remapping a
// port (and without _autoremap) gets the default, as BT.CPP 4 remaps it;
// a port declared without a default (or with an empty one) must be
// remapped, or BT.CPP refuses the tree.
type subtreeModel map[string]string

// readModels reads the SubTree declarations of a <TreeNodesModel>, as
// BT.CPP does (an ID and port names are required).
func (l *btcppLoader) readModels(e *xmlElem, at func(int) string) {
	for _, m := range e.kids {
		l.declared = append(l.declared, declaredModel(m))
		if m.name != "SubTree" {
			continue
		}
		id := m.attr("ID")
		if id == "" {
			l.ps.Invalid("", "%s: a <SubTree> in <TreeNodesModel> without an ID", at(m.line))
			continue
		}
		model := l.models[id]
		if model == nil {
			model = subtreeModel{}
			l.models[id] = model
		}
		for _, p := range m.kids {
			switch p.name {
			case "input_port", "output_port", "inout_port":
				name := p.attr("name")
				if name == "" {
					l.ps.Invalid("", "%s: a <%s> of the SubTree %q in <TreeNodesModel> without a name", at(p.line), p.name, id)
					continue
				}
				model[name] = p.attr("default")
			}
		}
	}
}

// maxIncludeDepth bounds nested includes.
const maxIncludeDepth = 32

// include reads an included file, relative to the including one.
func (l *btcppLoader) include(e *xmlElem, from, at string, depth int) {
	ps := l.ps
	rel := e.attr("path")
	switch {
	case rel == "":
		ps.Invalid("", "%s: <include> without a path", at)
		l.fatal = true
		return
	case e.attr("ros_pkg") != "":
		ps.Invalid("", "%s: <include ros_pkg=%q>: ROS packages are not searched; give a path relative to the file", at, e.attr("ros_pkg"))
		l.fatal = true
		return
	case l.read == nil || from == "":
		ps.Invalid("", "%s: <include path=%q>: includes are resolved only for a file read from disk (botd check FILE, botd sim FILE)", at, rel)
		l.fatal = true
		return
	case depth >= maxIncludeDepth:
		ps.Add("", missions.CodeTooLarge, "%s: includes nested deeper than %d files", at, maxIncludeDepth)
		l.fatal = true
		return
	}
	path := rel
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(from), rel)
	}
	path = filepath.Clean(path)
	for i, f := range l.stack {
		if f == path {
			chain := append(append([]string{}, l.stack[i:]...), path)
			ps.Invalid("", "%s: include cycle: %s", at, strings.Join(chain, " -> "))
			l.fatal = true
			return
		}
	}
	if l.loaded[path] {
		return // included twice (a diamond): its trees are there already
	}
	l.loaded[path] = true
	data, err := l.read(path)
	if err != nil {
		ps.Invalid("", "%s: <include path=%q>: %v", at, rel, err)
		l.fatal = true
		return
	}
	if len(data) > ps.Limits().DocumentBytes {
		ps.Add("", missions.CodeTooLarge, "%s: %s is %d bytes, above the limit of %d", at, path, len(data), ps.Limits().DocumentBytes)
		l.fatal = true
		return
	}
	if l.load(data, path, path, depth+1) == nil {
		l.fatal = true
	}
}

type btcppConv struct {
	ps     *missions.Problems
	trees  map[string]*btcppTree
	lib    map[string]bool
	models map[string]subtreeModel
	// defaulted counts the ports SubTree models have added, bounded as
	// expansions are (Limits.AliasValues): a model of many ports called
	// from many SubTrees must not multiply a small file.
	defaulted int
	file      string // of the tree being converted ("" for the first file)
	v3        bool
	locs      map[string]btcppLoc // where each node's element is, by JSON pointer
}

// at locates a line for messages.
func (c *btcppConv) at(line int) string {
	if c.file != "" {
		return fmt.Sprintf("%s: line %d", c.file, line)
	}
	return fmt.Sprintf("line %d", line)
}

func (c *btcppConv) node(e *xmlElem, path string) (n *bt.NodeDef) {
	n = &bt.NodeDef{Type: e.name}
	loc := btcppLoc{file: c.file, line: e.line, elem: e.name}
	defer func() { c.locs[path] = loc }()
	raw := map[string]string{}
	subtree := false
	switch {
	case e.name == "SubTree" || e.name == "SubTreePlus":
		n.Type, subtree = "SubTree", true
		raw["tree"] = e.attr("ID")
	case btcppGeneric[e.name]:
		if n.Type = e.attr("ID"); n.Type == "" {
			c.ps.Invalid(missions.Ptr(path, "type"), "%s: <%s> without an ID", c.at(e.line), e.name)
		}
	case (c.trees[e.name] != nil || c.lib[e.name]) && btcppBuiltins[e.name].to == "":
		n.Type, subtree = "SubTree", true
		raw["tree"] = e.name
	}
	if e.name == "ReactiveSequence" {
		async := 0
		for _, k := range e.kids {
			if k.name == "AsyncSequence" {
				async++
			}
		}
		if async > 1 {
			// As BT.CPP refuses it when it builds the tree.
			c.ps.Invalid(path, "%s: a ReactiveSequence cannot have more than one AsyncSequence child", c.at(e.line))
		}
	}
	autoremap := false
	var pp map[string]any
	for _, a := range e.attrs {
		k := a.Name.Local
		switch {
		case a.Name.Space != "" || k == "xmlns":
		case subtree && (k == "_autoremap" || k == "__autoremap" || k == "__shared_blackboard"):
			autoremap = attrValue(a.Value) == true || a.Value == "1"
		case btcppConditions[k] != "":
			if pp == nil {
				pp = map[string]any{}
			}
			pp[btcppConditions[k]] = a.Value
		case btcppMetadata[k]:
			// Groot2's and BT.CPP's own bookkeeping: no behaviour.
		case strings.HasPrefix(k, "_"):
			c.ps.Invalid(missions.Ptr(path, "params"), "%s: <%s %s=...>: attribute not supported (botd reads _autoremap on a SubTree, "+
				"the pre- and post-conditions _failureIf, _successIf, _skipIf, _while, _onSuccess, _onFailure, _onHalted, _post, "+
				"and ignores the editors' _uid, _fullpath, _description, _collapsed, _favorite, _external and _hardcoded)", c.at(e.line), e.name, k)
		case k == "ID":
			// The type of a v3 element or the tree of a SubTree (above);
			// on any other element BT.CPP reserves it and reads no port
			// from it (IsReservedAttribute), as Groot 1 left it on
			// controls (<Fallback ID="Detection">).
		case k == "name":
			n.Name = a.Value
		case subtree && c.v3 && e.name == "SubTree":
			// BT.CPP 3's SubTree names the caller's key without braces.
			raw[k] = "{" + a.Value + "}"
		default:
			raw[k] = a.Value
			// BT.CPP reads "{key}" with spaces around it as the key.
			if t := strings.Trim(a.Value, " "); t != a.Value && len(t) > 2 && t[0] == '{' && t[len(t)-1] == '}' {
				raw[k] = t
			}
		}
	}
	if subtree && !autoremap && !c.v3 {
		c.modelDefaults(raw, e, path)
	}
	var params map[string]any
	n.Type, params, loc.ports = c.mapBTCPP(n.Type, raw, path, e.line)
	if subtree {
		if params == nil {
			params = map[string]any{}
		}
		params["autoremap"] = autoremap
	}
	if len(params) > 0 {
		n.Params = params
	}
	if pp != nil {
		// The node runs under a PrePost decorator holding its conditions;
		// Export writes them back as attributes.
		w := &bt.NodeDef{Type: "PrePost", Params: pp, Children: []*bt.NodeDef{n}}
		c.locs[path] = loc
		path = missions.Ptr(missions.Ptr(path, "children"), 0)
		defer func() { n = w }()
	}
	for i, k := range e.kids {
		n.Children = append(n.Children, c.node(k, missions.Ptr(missions.Ptr(path, "children"), i)))
	}
	return n
}

// modelDefaults remaps the ports of a SubTree's model that the SubTree
// does not remap to their defaults; one without a default is an error.
func (c *btcppConv) modelDefaults(raw map[string]string, e *xmlElem, path string) {
	model := c.models[raw["tree"]]
	for _, port := range sortedKeys(model) {
		if _, given := raw[port]; given {
			continue
		}
		if c.defaulted++; c.defaulted > c.ps.Limits().AliasValues {
			if c.defaulted == c.ps.Limits().AliasValues+1 {
				c.ps.Add(missions.Ptr(path, "params"), missions.CodeTooLarge, "%s: the <TreeNodesModel> defaults of the SubTrees add more than %d ports",
					c.at(e.line), c.ps.Limits().AliasValues)
			}
			return
		}
		if model[port] == "" {
			c.ps.Invalid(missions.Ptr(path, "params"), "%s: <SubTree ID=%q> does not remap the port %q, which the tree's <TreeNodesModel> "+
				"declares without a default (BehaviorTree.CPP refuses it too): give it a value or a \"{key}\"", c.at(e.line), raw["tree"], port)
			continue
		}
		raw[port] = model[port]
	}
}

// btcppConditions are BT.CPP's pre- and post-condition attributes and the
// PrePost parameters they become.
var btcppConditions = map[string]string{
	"_failureIf": "failure_if", "_successIf": "success_if", "_skipIf": "skip_if", "_while": "while",
	"_onSuccess": "on_success", "_onFailure": "on_failure", "_onHalted": "on_halted", "_post": "post",
}

// btcppMetadata are the underscore attributes BT.CPP and Groot2 write as
// bookkeeping, which change nothing.
var btcppMetadata = map[string]bool{
	"_uid": true, "_fullpath": true, "_fullPath": true, "_description": true, "_collapsed": true, "_favorite": true,
	"_external": true, "_hardcoded": true, // MoveIt Pro's editor
}

// mapBTCPP turns a BT.CPP node type and its ports into botd's, typing the
// attribute values by the botd parameters they become.
func (c *btcppConv) mapBTCPP(typ string, raw map[string]string, path string, line int) (string, map[string]any, map[string]string) {
	switch typ {
	case "Wait":
		if _, nav2 := raw["wait_duration"]; nav2 {
			return "Wait", nav2Wait(raw), map[string]string{"ms": "wait_duration"}
		}
	case "SubTree":
		// Every other attribute is a port of the subtree (see bt.SubTree).
		return typ, typedParams(typ, raw), nil
	}
	var renamed map[string]string // botd's parameter -> the attribute
	if m, ok := btcppBuiltins[typ]; ok {
		for from, to := range m.ports {
			if v, ok := raw[from]; ok {
				if _, taken := raw[to]; !taken {
					delete(raw, from)
					raw[to] = v
					if renamed == nil {
						renamed = map[string]string{}
					}
					renamed[to] = from
				}
			}
		}
		typ = m.to
	}
	switch typ {
	case "RunOnce":
		// BT.CPP's default is to skip; botd's to repeat the status.
		if _, ok := raw["then_skip"]; !ok {
			raw["then_skip"] = "true"
		}
	case "Set":
		// BT.CPP names the output key with or without braces.
		if k, ok := bt.RefKey(raw["key"]); ok {
			raw["key"] = k
		}
	}
	return typ, typedParams(typ, raw), renamed
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
	nt, known := missions.DefaultRegistry().Lookup(typ)
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

var decimal = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)
})

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
	if decimal().MatchString(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
