package btcpp

import (
	"errors"
	"fmt"
	pathpkg "path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// What BehaviorTree.CPP loads and botd would refuse.
//
// BehaviorTree.CPP converts a port's text to the port's type only when
// the node reads it (getInput, at a tick): a file with
// delay_msec="10,000", a SubTree port "{{current_gate}}" or an empty
// output_key loads, and the node throws when it runs. IfThenElse and
// WhileDoElse count their children at their first tick. And a file's own
// node that shares a name with one of botd's device leaves (a drone's
// <Land/>) is no botd leaf at all where the robot has no such device.
// botd loads such a file too: each of those nodes stands in as a Fault
// (it returns ERROR with the reason whenever it is ticked), or, for a
// device leaf, as the wildcard rule's stand-in when one is given, and
// Mission.Notes says which. The document itself is kept as written, so
// an export gives the file back.

// btcppLoc is where a node's element is in a BT.CPP file.
type btcppLoc struct {
	file  string            // the included file it is in ("" for the file itself)
	line  int               // of its start tag
	elem  string            // the element's name
	ports map[string]string // botd's parameter -> the attribute it was read from, where renamed
}

// btcppSource is where a BT.CPP document's nodes come from: the
// document's missions.Origin, which the import sets.
type btcppSource struct {
	locs  map[string]btcppLoc // by the node's JSON pointer
	files []string            // the files read, in order ("" first: the file itself)
	// models are the <TreeNodesModel> entries of the file and its
	// includes, as written (models.go).
	models []btcppDeclared
	// subtreeModels are the <TreeNodesModel> SubTree declarations of the
	// file and its includes (their ports' defaults). The import has
	// applied them to the file's own SubTrees; the import of a file that
	// calls the trees of a library applies the library's
	// (missions.Library.Origins). nil when there are none.
	subtreeModels map[string]subtreeModel
}

// origin is the document's btcppSource; nil for a document from
// elsewhere.
func origin(d *missions.Document) *btcppSource {
	s, _ := d.Origin.(*btcppSource)
	return s
}

// maxFaultRounds bounds the compilations the stand-ins take.
const maxFaultRounds = 3

// Compile compiles a BT.CPP document, standing in for the nodes
// BehaviorTree.CPP would load and fail only when they run
// (missions.Origin).
func (s *btcppSource) Compile(d *missions.Document, reg *bt.Registry, opts missions.Options) (*bt.Tree, []bt.Problem, []bt.Substitution, error) {
	tree, err := reg.Compile(d.Spec(opts))
	var notes []bt.Problem
	var standIns []bt.Substitution
	done := map[string]bool{}
	for round := 0; err != nil && round < maxFaultRounds; round++ {
		var cps bt.Problems
		if !errors.As(err, &cps) {
			break
		}
		rules, more := s.runtimeFaults(d, cps, reg, opts.Substitutions, done)
		if len(rules) == 0 {
			break
		}
		notes = append(notes, more...)
		standIns = append(standIns, rules...)
		o := opts
		o.Substitutions = append(append(missions.Substitutions{}, rules...), opts.Substitutions...)
		opts = o
		tree, err = reg.Compile(d.Spec(opts))
	}
	return tree, notes, standIns, err
}

// runtimeFaults returns a path rule for each node of cps that
// BehaviorTree.CPP would load, with a note saying why it stands in.
func (s *btcppSource) runtimeFaults(d *missions.Document, cps bt.Problems, reg *bt.Registry, subs missions.Substitutions, done map[string]bool) ([]bt.Substitution, []bt.Problem) {
	var rules []bt.Substitution
	var notes []bt.Problem
	for _, p := range cps {
		def, at, rest := nodeAt(d.Trees, p.Path)
		if def == nil || done[at] || strings.ContainsAny(at, "*?[") {
			continue
		}
		with, why := faultFor(def, rest, p, reg, subs, s.locs[at])
		if with == nil {
			continue
		}
		done[at] = true
		rules = append(rules, bt.Substitution{Pattern: at, With: *with})
		notes = append(notes, bt.Problem{Path: at, Code: bt.CodeWarning, Message: why})
	}
	return rules, notes
}

// faultFor is the stand-in for def given the problem p at rest (the part
// of its path inside the node), and the note; nil when BehaviorTree.CPP
// would refuse the file too.
func faultFor(def *bt.NodeDef, rest string, p bt.Problem, reg *bt.Registry, subs missions.Substitutions, loc btcppLoc) (*bt.NodeDef, string) {
	nt, known := reg.Lookup(def.Type)
	if !known || p.Code != bt.CodeValidation {
		return nil, ""
	}
	elem := loc.elem
	if elem == "" {
		elem = def.Type
	}
	fault := func(reason string) (*bt.NodeDef, string) {
		return &bt.NodeDef{Type: "Fault", Params: map[string]any{"reason": reason}},
			reason + "; the file loads, as in BehaviorTree.CPP, and the node fails with this reason when it runs"
	}
	switch {
	case strings.HasPrefix(rest, "/params/"):
		name, _, _ := strings.Cut(rest[len("/params/"):], "/")
		name = unescapeToken(name)
		switch {
		case nt.Name == "SubTree":
			if name == "tree" || name == "autoremap" {
				return nil, ""
			}
		default:
			pd := nt.Param(name)
			if pd == nil || pd.Type == bt.TExpr || pd.Type == bt.TTree {
				return nil, ""
			}
		}
		if strings.HasPrefix(p.Message, "missing required parameter") || strings.Contains(p.Message, "given twice") {
			return nil, ""
		}
		attr := name
		if a := loc.ports[name]; a != "" {
			attr = a
		}
		return fault(fmt.Sprintf("<%s> %s: %s", elem, attr, p.Message))
	case (rest == "" || rest == "/children") && (nt.Name == "IfThenElse" || nt.Name == "WhileDoElse"):
		if n := len(def.Children); n >= 2 && n <= 3 {
			return nil, ""
		}
		return fault(fmt.Sprintf("<%s>: %s (BehaviorTree.CPP counts them at its first tick)", elem, p.Message))
	case rest == "" && nt.Kind == bt.Leaf && deviceLeaf(def.Type):
		if r := wildcardRule(subs, def.Type); r != nil {
			return &r.With, fmt.Sprintf("<%s> is named like botd's %s leaf, which cannot run here (%s): it stands in as %s (the rule %s)",
				elem, def.Type, p.Message, bt.DescribeStandIn(r.With), r.Pattern)
		}
		return fault(fmt.Sprintf("<%s> is named like botd's %s leaf, which cannot run here: %s", elem, def.Type, p.Message))
	}
	return nil, ""
}

// deviceLeaf reports whether typ is a node type of the robot's (a device
// leaf) rather than a built-in.
func deviceLeaf(typ string) bool {
	_, builtin := missions.DefaultRegistry().Lookup(typ)
	return !builtin
}

// wildcardRule returns the first rule whose type pattern has a wildcard
// matching typ.
func wildcardRule(subs missions.Substitutions, typ string) *bt.Substitution {
	for i := range subs {
		r := &subs[i]
		p := r.Pattern
		if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "@") || !strings.ContainsAny(p, "*?[") {
			continue
		}
		if ok, err := pathpkg.Match(p, typ); ok && err == nil {
			return r
		}
	}
	return nil
}

// nodeAt finds the node a JSON pointer is in: its definition, its own
// pointer and the rest of the pointer ("/params/ms", "/children", "").
func nodeAt(trees map[string]*bt.NodeDef, path string) (*bt.NodeDef, string, string) {
	if !strings.HasPrefix(path, "/trees/") {
		return nil, "", ""
	}
	tok := strings.Split(path[len("/trees/"):], "/")
	n := trees[unescapeToken(tok[0])]
	if n == nil {
		return nil, "", ""
	}
	at, i := "/trees/"+tok[0], 1
	for i+1 < len(tok) && tok[i] == "children" {
		k, err := strconv.Atoi(tok[i+1])
		if err != nil || k < 0 || k >= len(n.Children) || n.Children[k] == nil {
			break
		}
		n, at, i = n.Children[k], at+"/children/"+tok[i+1], i+2
	}
	return n, at, path[len(at):]
}

// unescapeToken reads a JSON pointer token (RFC 6901).
func unescapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// located matches a message that starts with its place in a file: "line
// 3: ..." or "inc.xml: line 3: ...".
var located = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:(.+?): )?line ([0-9]+): `) })

// Locate rewrites the problems of a BT.CPP document to name the line of
// the element each is about (and the included file it is in), keeping
// the JSON pointer in Path, and sorts them in file order
// (missions.Origin).
func (s *btcppSource) Locate(ps []bt.Problem) {
	type key struct{ file, line int }
	keys := make(map[*bt.Problem]key, len(ps))
	fileIndex := func(f string) int {
		if i := slices.Index(s.files, f); i >= 0 {
			return i
		}
		return len(s.files)
	}
	for i := range ps {
		p := &ps[i]
		k := key{len(s.files) + 1, 0} // nowhere in particular: after the rest
		if m := located().FindStringSubmatch(p.Message); m != nil {
			line, _ := strconv.Atoi(m[2])
			k = key{fileIndex(m[1]), line}
		} else if at, loc, ok := s.nodeLoc(p.Path); ok {
			what := "<" + loc.elem + ">"
			rest := p.Path[len(at):]
			if name, ok := strings.CutPrefix(rest, "/params/"); ok {
				name, _, _ = strings.Cut(name, "/")
				name = unescapeToken(name)
				if a := loc.ports[name]; a != "" {
					name = a
				}
				what += " " + name
			}
			where := fmt.Sprintf("line %d", loc.line)
			if loc.file != "" {
				where = loc.file + ": " + where
			}
			if !strings.HasPrefix(p.Message, "<"+loc.elem) {
				p.Message = what + ": " + p.Message
			}
			p.Message = where + ": " + p.Message
			k = key{fileIndex(loc.file), loc.line}
		}
		keys[p] = k
	}
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ka, kb := keys[&ps[a]], keys[&ps[b]]
		if ka.file != kb.file {
			return ka.file - kb.file
		}
		return ka.line - kb.line
	})
	sorted := make([]bt.Problem, len(ps))
	for i, j := range order {
		sorted[i] = ps[j]
	}
	copy(ps, sorted)
}

// nodeLoc finds the element of the deepest node a pointer is in.
func (s *btcppSource) nodeLoc(path string) (string, btcppLoc, bool) {
	for at := path; strings.HasPrefix(at, "/trees/"); {
		if loc, ok := s.locs[at]; ok {
			return at, loc, true
		}
		i := strings.LastIndexByte(at, '/')
		if i <= len("/trees") {
			break
		}
		at = at[:i]
	}
	return "", btcppLoc{}, false
}
