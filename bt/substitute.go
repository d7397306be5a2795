package bt

import (
	"path"
	"strings"
)

// Substitution stands a node in for others when a tree is compiled
// (BehaviorTree.CPP's substitution rules), so that a tree with nodes botd
// cannot run (Nav2's actions) can be checked and simulated.
//
// Pattern chooses the nodes:
//   - a pattern starting with '/' matches the node's JSON pointer in the
//     mission ("/trees/main/children/2", "/trees/*/children/0");
//   - a pattern starting with '@' matches the node's name ("@plan",
//     "@Clear*");
//   - any other pattern matches the node's type: without a wildcard any
//     node of that type, with one ('*', '?', as in path.Match) only nodes
//     whose type botd does not know, so "*" stands in for every unknown
//     node. A leaf named like one of botd's whose parameters are not that
//     type's (one it does not declare, or a required one missing) is
//     another framework's node of the same name, which botd does not know
//     either: a robot's own MoveTo with a distance_tolerance port, a Turn
//     without an angle (see foreignLeaf).
//
// A path rule wins over a name rule, a name rule over a type rule, an
// exact type over a wildcard; among equals, the first one given. (BT.CPP
// matches a filter against both the name and the type; botd keeps them
// apart, because Nav2's trees name their controls after the actions they
// wrap.) The stand-in is With: a node type and the parameters it takes
// (a Stub's script, a TestNode's configuration). The node keeps its
// children: a node with one child substituted by a leaf becomes a
// PassThrough over that child. The substituted node's own parameters stay
// in the document as they were and are not validated.
type Substitution struct {
	Pattern string
	With    NodeDef
}

// wildcard reports whether a pattern has path.Match wildcards.
func wildcard(p string) bool { return strings.ContainsAny(p, "*?[") }

// match reports whether s matches pattern p (wildcards or exact).
func match(p, s string) bool {
	if !wildcard(p) {
		return p == s
	}
	ok, err := path.Match(p, s)
	return ok && err == nil
}

// matchPath matches a JSON pointer pattern in which '*' also spans '/'.
func matchPath(p, s string) bool {
	if !wildcard(p) {
		return p == s
	}
	return globAll(p, s)
}

// globAll matches '*' (any run, '/' included) and '?' (one byte).
func globAll(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if globAll(p[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
		}
		p, s = p[1:], s[1:]
	}
	return s == ""
}

// substitution returns the rule that applies to a definition, or nil.
func (c *compiler) substitution(def *NodeDef, path string, known bool) *Substitution {
	var byName, exact, wild *Substitution
	for i := range c.subs {
		r := &c.subs[i]
		switch p := r.Pattern; {
		case strings.HasPrefix(p, "/"):
			if matchPath(p, path) {
				return r
			}
		case strings.HasPrefix(p, "@"):
			if byName == nil && def.Name != "" && match(p[1:], def.Name) {
				byName = r
			}
		case !wildcard(p):
			if exact == nil && p == def.Type {
				exact = r
			}
		case wild == nil && match(p, def.Type) && (!known || c.foreignLeaf(def)):
			wild = r
		}
	}
	switch {
	case byName != nil:
		return byName
	case exact != nil:
		return exact
	}
	return wild
}

// foreignLeaf reports whether def names a leaf type botd knows with
// parameters that are not that type's: one the type does not declare, or
// a required one missing. Such a node is another framework's node that
// shares the name (BehaviorTree.CPP's nodes are whatever the program
// registers under a name), so a wildcard rule stands in for it.
func (c *compiler) foreignLeaf(def *NodeDef) bool {
	nt, ok := c.reg.Lookup(def.Type)
	if !ok || nt.Kind != Leaf || nt.Synthesize != nil {
		return false
	}
	typo := false
	for k := range def.Params {
		if nt.Param(k) == nil {
			if !nearParam(nt, k) {
				return true
			}
			typo = true
		}
	}
	if typo {
		// A parameter misspelt is why a required one is missing.
		return false
	}
	for i := range nt.Params {
		if p := &nt.Params[i]; p.Required {
			if _, given := paramGiven(def.Params, p); !given {
				return true
			}
		}
	}
	return false
}

// nearParam reports whether name is most likely a typo of one of nt's
// parameters (ignoring letter case, at most 2 edits and fewer than a
// third of its length for short names, as "did you mean" guesses): a
// mistake in a botd mission, which the compiler reports, rather than
// another framework's port.
func nearParam(nt *NodeType, name string) bool {
	ln := strings.ToLower(name)
	limit := min(2, max(1, len(ln)/3))
	for i := range nt.Params {
		for _, pn := range append([]string{nt.Params[i].Name}, nt.Params[i].Aliases...) {
			if editDistance(ln, strings.ToLower(pn)) <= limit {
				return true
			}
		}
	}
	return false
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// substitute applies a rule to a definition: the type and parameters the
// node compiles with. A leaf stand-in for a node with one child is a
// PassThrough over the child (a leaf for several children is reported by
// the child count check).
func (c *compiler) substitute(r *Substitution, def *NodeDef) (string, map[string]any) {
	nt, ok := c.reg.Lookup(r.With.Type)
	if ok && nt.Kind == Leaf && len(def.Children) == 1 {
		return "PassThrough", nil
	}
	if ok && len(def.Children) > 1 {
		// BT.CPP instantiates the children of a control node substituted
		// by a test node but never attaches them: the stand-in runs alone.
		if st, constant := standInStatus[nt.Name]; constant {
			return "StandIn", map[string]any{"status": st}
		}
	}
	return r.With.Type, r.With.Params
}

// standInStatus are the constant leaves a control node may be stood in
// for by, and the status the StandIn returns.
var standInStatus = map[string]string{"Succeed": "SUCCESS", "Fail": "FAILURE", "Running": "RUNNING"}

var standInType = NodeType{
	Name: "StandIn", Kind: Composite, MinChildren: 1, MaxChildren: -1,
	Doc: "Stands in for a control node botd does not know, substituted by Succeed, Fail or Running: returns `status` without ticking " +
		"its children, as BehaviorTree.CPP does with a control node substituted by a test node (its children are built, never ticked).",
	Params: []Param{{Name: "status", Type: TEnum, Enum: StatusEnum, Required: true, Doc: "the status it returns"}},
	New:    func(b *Builder) Behavior { return constant(b.Status("status")) },
}

var passThroughType = NodeType{
	Name: "PassThrough", Kind: Decorator, SkipsPass: true,
	Doc: "Ticks its child and returns its status, SKIPPED included. It stands in for a decorator botd does not know (see substitutions).",
	New: func(*Builder) Behavior { return passThrough{} },
}

type passThrough struct{}

func (passThrough) Tick(a *Agent, n *Node) Status { return a.Exec(n.Children[0]) }

// DescribeStandIn names a stand-in as a rule gives it: a Stub's status
// script, else its type.
func DescribeStandIn(d NodeDef) string {
	if s, ok := d.Params["script"].(string); ok && d.Type == "Stub" {
		return s
	}
	return d.Type
}
