package b3

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// The Behavior3 editor's current format (behavior3editor 1.x, whose files
// behavior3-ts and behavior3lua run): one tree per file,
//
//	{"version", "name", "desc", "root": node, "vars", "import", "group",
//	 "export", "firstid", "custom", "$override"}
//	node: {"id", "name", "desc", "args", "input", "output", "children",
//	       "path", "disabled", "debug"}
//
// (version 2 of the format, written by the editor for VS Code, has
// "variables" for vars and import, "overrides" for $override and a "uuid"
// on every node), and a workspace file (*.b3-workspace, formerly
// workspace.json) {"files": [{"path", "desc"}], "settings"} listing the
// tree files, relative to it; a version 2 workspace holds only settings,
// its trees being every .json file under its folder. A node's name is its
// type, desc its label, args its parameters; input and output (blackboard variable names) are kept as
// the parameters input and output. A node with a path runs the tree of
// that file (relative to the workspace: the nearest directory above the
// file holding a *.b3-workspace, else the file's own directory): it
// becomes a SubTree of the tree named by the path. The editor's build
// output inlines the subtree: the node is the subtree's root, with its
// path and its children, and behavior3-ts runs it as written, so such a
// node is read as the node it is (the path only says where it came
// from). A disabled node is left
// out, as behavior3-ts builds the tree without it.

// b3TreeAliases are the behavior3-ts node names whose meaning is botd's
// node's exactly. behavior3-ts resumes a running tree at the running node,
// so its Sequence and Selector are botd's memory composites.
var b3TreeAliases = map[string]string{
	"Sequence": "MemSequence", "Selector": "MemPriority",
	"Invert": "Inverter", "Not": "Inverter",
	"AlwaysSuccess": "Succeeder", "AlwaysFailure": "Failer", "AlwaysFail": "Failer",
	"JustSuccess": "Succeed", "JustFailure": "Fail",
}

// b3TreeBuiltins are the built-in node names of behavior3-ts (current and
// earlier versions) and behavior3lua. Those botd also has with another
// meaning (Wait counts the context's time unit, Check evaluates an
// expression, RepeatUntilFailure fails once maxLoop runs succeeded, ...)
// are imported as "Behavior3.<name>": an
// unknown type, for a substitution to stand in for, and written back
// without the prefix. botd's own types of those names are written
// "botd.<name>", which reads back as botd's.
var b3TreeBuiltins = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`Calculate Concat GetField JustFailure JustSuccess Let Log Math Now Push RandomIndex SetField
		WaitForEvent Wait IfElse Parallel Race Selector Sequence Switch Watchdog Check Includes IsNull NotNull AlwaysFailure
		AlwaysRunning AlwaysSuccess Assert Delay Filter ForEach Invert Listen Once Repeat RetryUntilFailure RetryUntilSuccess Timeout
		Assign Clear Cmp Index IsStatus Loop Random RepeatUntilFailure RepeatUntilSuccess WaitForCount AlwaysFail`) {
		b3TreeBuiltins[n] = true
	}
}

// b3TreeImportName is the botd type of a Behavior3 node name.
func b3TreeImportName(name string) string {
	if to, ok := b3TreeAliases[name]; ok {
		return to
	}
	if t, ok := strings.CutPrefix(name, "botd."); ok {
		return t
	}
	if b3TreeBuiltins[name] {
		if _, known := missions.DefaultRegistry().Lookup(name); known {
			return "Behavior3." + name
		}
	}
	return name
}

// b3TreeNodeKeys are the members of a node the importer reads or knows to
// carry no behaviour (debug is the editor's breakpoint flag; $-members
// are the editor's bookkeeping).
var b3TreeNodeKeys = map[string]bool{
	"id": true, "name": true, "desc": true, "args": true, "input": true, "output": true, "children": true,
	"path": true, "disabled": true, "debug": true, "$id": true, "$mtime": true, "$size": true, "$status": true,
	"uuid": true, // version 2: the node's stable identity, which overrides name
}

// isB3Tree reports whether o is a tree file of the current editor.
func isB3Tree(o *missions.Object) bool {
	r, ok := o.Value("root").(*missions.Object)
	if !ok {
		return false
	}
	_, named := r.Get("name")
	_, nodes := o.Get("nodes")
	return named && !nodes
}

// isB3Workspace reports whether o is the editor's workspace file: the
// current {"files": [...]}, version 2's {"settings": {...}} (whose trees
// are every .json file under its folder) or the 2020 desktop editor's
// workspace.json {"workdir", "nodeConfPath", "isRelative"}, whose trees
// are every .json file under workdir.
func isB3Workspace(o *missions.Object) bool {
	if _, ok := o.Value("workdir").(string); ok {
		_, conf := o.Get("nodeConfPath")
		return conf
	}
	if _, ok := o.Value("settings").(*missions.Object); ok && len(o.Keys()) == 1 {
		return true
	}
	files, ok := o.Value("files").([]any)
	if !ok {
		return false
	}
	_, root := o.Get("root")
	_, trees := o.Get("trees")
	return !root && !trees && (len(files) == 0 || isObject(files[0]))
}

// maxB3Files bounds the tree files one import reads.
const maxB3Files = 256

type b3TreeImporter struct {
	ps    *missions.Problems
	dir   string // the workspace directory; "" when files cannot be read
	read  func(string) ([]byte, error)
	trees map[string]*bt.NodeDef
	order []string
	used  map[string]bool // trees run by another tree's node
	// pending are the tree files still to read, with the node that asked.
	pending []b3Pending
	bytes   int
	// Subtree overrides (import_b3override.go): each tree file's
	// overrides by uuid, the imported nodes' uuids and names, the uuids of
	// the disabled nodes (where they are), the trees as read, and the
	// variants made.
	patches   map[string]map[string]*b3Patch
	info      map[*bt.NodeDef]b3NodeInfo
	disabled  map[string]string
	orig      map[string]*bt.NodeDef
	memo      map[string]string // variant name -> the tree to run
	needs     map[string]bool   // a tree file or its subtrees have overrides
	needsDone map[string]bool
	variants  int
	work      int // nodes the override pass visited
	tooLarge  bool
	cur       string          // the tree file being read
	ids       map[string]bool // the node ids given
}

type b3Pending struct{ key, from string }

// decodeB3Tree imports a tree file (workspace false) or a workspace.
func decodeB3Tree(o *missions.Object, file string, workspace bool, ps *missions.Problems) *missions.Document {
	return decodeB3TreeFrom(o, file, workspace, os.ReadFile, ps)
}

// decodeB3TreeFrom is decodeB3Tree reading the other tree files with read.
func decodeB3TreeFrom(o *missions.Object, file string, workspace bool, read func(string) ([]byte, error), ps *missions.Problems) *missions.Document {
	imp := &b3TreeImporter{ps: ps, trees: map[string]*bt.NodeDef{}, used: map[string]bool{},
		patches: map[string]map[string]*b3Patch{}, info: map[*bt.NodeDef]b3NodeInfo{}, disabled: map[string]string{}, ids: map[string]bool{}}
	if file != "" {
		imp.read = read
		imp.dir = b3WorkspaceDir(file, workspace)
	}
	d := &missions.Document{Format: missions.Format}
	if workspace {
		files, _ := o.Value("files").([]any)
		if imp.read == nil {
			ps.Invalid("", "a workspace's tree files are read only for a file read from disk (botd check FILE, botd sim FILE)")
			return nil
		}
		if wd, ok := o.Value("workdir").(string); ok {
			files = b3WorkdirFiles(imp.dir, wd, "/workdir", ps)
		} else if _, listed := o.Get("files"); !listed {
			files = b3WorkdirFiles(imp.dir, ".", "", ps)
		}
		for i, f := range files {
			fo, ok := f.(*missions.Object)
			p := fo.Str("path")
			if !ok || p == "" {
				ps.Invalid(missions.Ptr(missions.Ptr("/files", i), "path"), "want the path of a tree file, got %s", missions.Describe(f))
				continue
			}
			imp.want(filepath.ToSlash(p), missions.Ptr(missions.Ptr("/files", i), "path"))
		}
		if len(files) == 0 {
			ps.Invalid("/files", "the workspace lists no tree files")
		}
	} else {
		key := "main"
		if file != "" && imp.dir != "" {
			if rel, err := filepath.Rel(imp.dir, file); err == nil {
				key = filepath.ToSlash(rel)
			}
		}
		imp.tree(key, o, "")
		d.Name = o.Str("name")
	}
	imp.drain()
	imp.applyOverrides()
	if len(imp.order) == 0 {
		return nil
	}
	d.Trees = imp.trees
	d.Main = imp.order[0]
	if workspace {
		for _, k := range imp.order {
			if !imp.used[k] {
				d.Main = k
				break
			}
		}
		d.Name = strings.TrimSuffix(filepath.Base(d.Main), filepath.Ext(d.Main))
	}
	return d
}

// b3WorkdirFiles lists the tree files under a 2020 workspace's workdir, or
// under a version 2 workspace's folder, as the "files" entries of a
// current workspace: the .json files but those the editor skips (tooling
// files, and the .vscode, .git, node_modules, dist and build folders).
func b3WorkdirFiles(dir, workdir, at string, ps *missions.Problems) []any {
	var out []any
	root := filepath.Join(dir, filepath.FromSlash(workdir))
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != root && b3SkipDirs[strings.ToLower(e.Name())] {
			return filepath.SkipDir
		}
		if !e.IsDir() && strings.HasSuffix(strings.ToLower(p), ".json") && !b3SkipFile(e.Name()) && len(out) <= maxB3Files {
			rel, _ := filepath.Rel(dir, p)
			f := missions.NewObject()
			f.Set("path", filepath.ToSlash(rel))
			out = append(out, f)
		}
		return nil
	})
	if err != nil {
		ps.Invalid(at, "%v", err)
	}
	return out
}

// The folders and files the editor does not take for tree files.
var b3SkipDirs = map[string]bool{".vscode": true, ".git": true, "node_modules": true, "dist": true, "build": true}

func b3SkipFile(name string) bool {
	switch n := strings.ToLower(name); {
	case n == "package.json", n == "package-lock.json", n == "jsconfig.json", n == "components.json":
		return true
	case n == "tsconfig.json", strings.HasPrefix(n, "tsconfig.") && strings.HasSuffix(n, ".json"):
		return true
	}
	return false
}

// b3WorkspaceDir is the directory tree paths are relative to.
func b3WorkspaceDir(file string, workspace bool) string {
	dir := filepath.Dir(file)
	if workspace {
		return dir
	}
	for d := dir; ; {
		if m, _ := filepath.Glob(filepath.Join(d, "*.b3-workspace")); len(m) > 0 {
			return d
		}
		if _, err := os.Stat(filepath.Join(d, "workspace.json")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// want queues the tree file key (a path relative to the workspace).
func (imp *b3TreeImporter) want(key, from string) {
	if _, ok := imp.trees[key]; ok {
		return
	}
	for _, p := range imp.pending {
		if p.key == key {
			return
		}
	}
	imp.pending = append(imp.pending, b3Pending{key, from})
}

// drain reads the queued tree files (breadth first, each once).
func (imp *b3TreeImporter) drain() {
	ps := imp.ps
	for len(imp.pending) > 0 {
		p := imp.pending[0]
		imp.pending = imp.pending[1:]
		if _, done := imp.trees[p.key]; done {
			continue
		}
		if imp.read == nil {
			ps.Invalid(p.from, "the tree file %q is read only for a file read from disk (botd check FILE, botd sim FILE)", p.key)
			imp.trees[p.key] = nil
			continue
		}
		if len(imp.order) >= maxB3Files {
			ps.Add(p.from, missions.CodeTooLarge, "more than %d tree files", maxB3Files)
			return
		}
		data, err := imp.read(filepath.Join(imp.dir, filepath.FromSlash(p.key)))
		if err != nil {
			ps.Invalid(p.from, "tree file %q: %v", p.key, err)
			imp.trees[p.key] = nil
			continue
		}
		if imp.bytes += len(data); imp.bytes > ps.Limits().DocumentBytes {
			ps.Add(p.from, missions.CodeTooLarge, "the tree files come to more than %d bytes", ps.Limits().DocumentBytes)
			return
		}
		fps := missions.NewProblems(ps.Limits())
		v, ok := missions.ParseJSON(data, fps)
		o, isObj := v.(*missions.Object)
		if !ok || !isObj || !isB3Tree(o) {
			msg := "not a Behavior3 tree file"
			if len(fps.List()) > 0 {
				msg = fps.List()[0].Message
			}
			ps.Invalid(p.from, "tree file %q: %s", p.key, msg)
			imp.trees[p.key] = nil
			continue
		}
		imp.tree(p.key, o, p.key+": ")
	}
}

// b3TreeFileKeys are the members of a tree file: the root, and the
// editor's declarations, which carry no behaviour.
var b3TreeFileKeys = map[string]bool{
	"version": true, "name": true, "desc": true, "prefix": true, "export": true, "group": true, "import": true,
	"vars": true, "custom": true, "root": true, "firstid": true, "$override": true,
	"variables": true, "overrides": true, // version 2's vars and import, and $override
}

// tree converts one tree file's root under key; label prefixes the
// paths of problems in a file other than the one decoded.
func (imp *b3TreeImporter) tree(key string, o *missions.Object, label string) {
	imp.order = append(imp.order, key)
	root, _ := o.Value("root").(*missions.Object)
	base := label + "/root"
	if label == "" {
		base = "/root"
	}
	// behavior3-ts and behavior3lua read a tree file's root alone, so a
	// project's own flag ("server": true) carries no behaviour and is
	// ignored as they ignore it; an unknown member holding an object or a
	// list may be a misspelt overrides or declaration, and is refused.
	for _, k := range o.Keys() {
		if b3TreeFileKeys[k] {
			continue
		}
		switch v := o.Value(k).(type) {
		case *missions.Object, []any:
			imp.ps.Invalid(label+missions.Ptr("", k), "unknown member %q of a Behavior3 tree file (holding %s)", k, missions.Describe(v))
		}
	}
	// overrides ($override) change the nodes of the subtrees the tree runs;
	// they are applied once every tree file is read.
	imp.overrides(key, o, label)
	imp.cur = key
	imp.trees[key] = imp.node(root, base, 0)
}

func (imp *b3TreeImporter) node(o *missions.Object, path string, depth int) *bt.NodeDef {
	ps := imp.ps
	if depth >= ps.Limits().Depth {
		ps.Add(path, missions.CodeTooLarge, "nesting deeper than %d levels", ps.Limits().Depth)
		return nil
	}
	for _, k := range o.Keys() {
		if !b3TreeNodeKeys[k] {
			ps.Invalid(missions.Ptr(path, k), "unknown member %q of a Behavior3 node", k)
		}
	}
	name, _ := o.Value("name").(string)
	if name == "" {
		ps.Invalid(missions.Ptr(path, "name"), "want the node's type name, got %s", missions.Describe(o.Value("name")))
	}
	n := &bt.NodeDef{Type: name, Name: strings.TrimSpace(o.Str("desc"))}
	n.Type = b3TreeImportName(name)
	// Version 2's uuid names the node in overrides; it is kept in the id
	// (but for a uuid the file repeats, which the ids may not).
	uuid, _ := o.Value("uuid").(string)
	if id := imp.cur + "#" + uuid; uuid != "" && !strings.Contains(uuid, "#") && !imp.ids[id] {
		n.ID = id
		imp.ids[id] = true
	}
	defer func() { imp.info[n] = b3NodeInfo{uuid: uuid, name: name} }()
	if args, ok := o.Value("args").(*missions.Object); ok {
		n.Params = missions.NormalizeMap(args, missions.Ptr(path, "args"), ps)
	} else if a, ok := o.Get("args"); ok && a != nil {
		ps.Invalid(missions.Ptr(path, "args"), "want an object, got %s", missions.Describe(a))
	}
	for _, io := range []string{"input", "output"} {
		v, ok := o.Get(io)
		if !ok {
			continue
		}
		l, isL := missions.Normalize(v, missions.Ptr(path, io), ps).([]any)
		if !isL {
			ps.Invalid(missions.Ptr(path, io), "want a list of variable names, got %s", missions.Describe(v))
			continue
		}
		if len(l) == 0 {
			continue
		}
		if n.Params == nil {
			n.Params = map[string]any{}
		}
		if _, taken := n.Params[io]; taken {
			ps.Invalid(missions.Ptr(path, io), "the node has an argument named %q too", io)
			continue
		}
		n.Params[io] = l
	}
	kids, _ := o.Value("children").([]any)
	if p, ok := o.Get("path"); ok && p != "" && len(kids) == 0 {
		key, isS := p.(string)
		if !isS {
			ps.Invalid(missions.Ptr(path, "path"), "want a tree file's path, got %s", missions.Describe(p))
			return n
		}
		key = filepath.ToSlash(filepath.Clean(filepath.FromSlash(key)))
		imp.used[key] = true
		imp.want(key, missions.Ptr(path, "path"))
		n = &bt.NodeDef{Type: "SubTree", ID: n.ID, Name: n.Name, Params: map[string]any{"tree": key}}
		return n
	}
	if v, ok := o.Get("children"); ok {
		kids, isL := v.([]any)
		if !isL {
			ps.Invalid(missions.Ptr(path, "children"), "want a list of nodes, got %s", missions.Describe(v))
		}
		for i, k := range kids {
			kp := missions.Ptr(missions.Ptr(path, "children"), i)
			ko, ok := k.(*missions.Object)
			if !ok {
				ps.Invalid(kp, "want a node object, got %s", missions.Describe(k))
				continue
			}
			if b, _ := ko.Value("disabled").(bool); b {
				imp.disabledUUIDs(ko, depth+1)
				continue
			}
			if c := imp.node(ko, kp, depth+1); c != nil {
				n.Children = append(n.Children, c)
			}
		}
	}
	if to, ok := b3TreeEmpty[name]; ok && len(n.Children) == 0 && n.Params == nil {
		n.Type = to
	}
	return n
}

// disabledUUIDs notes where the uuids of a disabled node and its
// descendants are (an override may not enable them).
func (imp *b3TreeImporter) disabledUUIDs(o *missions.Object, depth int) {
	if depth >= imp.ps.Limits().Depth {
		return
	}
	if u, _ := o.Value("uuid").(string); u != "" {
		imp.disabled[u] = imp.cur
	}
	kids, _ := o.Value("children").([]any)
	for _, k := range kids {
		if ko, ok := k.(*missions.Object); ok {
			imp.disabledUUIDs(ko, depth+1)
		}
	}
}

// b3TreeEmpty are the behavior3-ts and behavior3lua composites that run
// without children (the editor saves a composite before its children are
// added; disabling every child leaves one too): what they return then, a
// leaf of that status. Their other composites (IfElse, Watchdog) refuse
// to build without their children, as botd does.
var b3TreeEmpty = map[string]string{
	"Sequence": "Succeed", "Parallel": "Succeed", // every child (none) succeeded
	"Selector": "Fail", "Race": "Fail", "Switch": "Fail", // no child succeeded
}

// b3TreeExportNames are b3TreeAliases read right to left.
var b3TreeExportNames = func() map[string]string {
	m := map[string]string{}
	keys := make([]string, 0, len(b3TreeAliases))
	for k := range b3TreeAliases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := m[b3TreeAliases[k]]; !ok && k != "Not" && k != "AlwaysFail" {
			m[b3TreeAliases[k]] = k
		}
	}
	return m
}()
