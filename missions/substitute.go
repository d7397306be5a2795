package missions

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/botd-project/botd/bt"
)

// Substitutions are stand-in rules (bt.Substitution) as given to
// --substitute, in a substitution file or in the daemon's simulation
// config. A rule is PATTERN=STAND-IN:
//
//   - PATTERN is a node type ("ComputePathToPose"), a wildcard that
//     matches the types botd does not know ("*", "Compute*"), a node name
//     after '@' ("@ClearLocalCostmap-Context"), or a JSON pointer to a
//     node, wildcards allowed ("/trees/main/children/2",
//     "/trees/*/children/0");
//   - STAND-IN is a node type ("Succeed", "Fail", "MemSequence"), a status
//     script for a Stub ("Running:3,Success", "Failure,Success",
//     "Running:2s,Failure") or a duration ("1500ms": RUNNING that long,
//     then SUCCESS).
//
// Rules are separated by commas; a comma followed by a step without '='
// continues the previous rule's script: "*=Succeed,FollowPath=Running:3,
// Success,Spin=2s" is three rules. Unknown decorators under a leaf
// stand-in become pass-throughs; the substituted nodes keep their
// parameters in the document, unchecked.
type Substitutions []bt.Substitution

// ParseSubstitutions reads rules as given to --substitute. Spaces around
// names are ignored, and so are empty rules (a trailing comma).
func ParseSubstitutions(rules string) (Substitutions, error) {
	var items []string
	for _, r := range strings.Split(rules, ",") {
		r = strings.TrimSpace(r)
		switch {
		case r == "":
		case !strings.Contains(r, "=") && len(items) > 0 && !strings.HasSuffix(items[len(items)-1], "="):
			items[len(items)-1] += "," + r
		default:
			items = append(items, r)
		}
	}
	var out Substitutions
	for _, item := range items {
		if err := out.add(item); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LoadSubstitutionFile reads rules from a file: lines of PATTERN=STAND-IN
// (blank lines and lines starting with # are ignored), a JSON object
// {"PATTERN": "STAND-IN", ...}, or a JSON object in the rule form of a
// registered format (Codec.Rules).
func LoadSubstitutionFile(path string) (Substitutions, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	subs, err := parseSubstitutionFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return subs, nil
}

func parseSubstitutionFile(data []byte) (Substitutions, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return parseSubstitutionJSON(t)
	}
	var out Substitutions
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if err := out.add(t); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	return out, sc.Err()
}

func parseSubstitutionJSON(data []byte) (Substitutions, error) {
	ps := &problems{lim: DefaultLimits()}
	v, ok := parseJSON(data, ps)
	if !ok {
		return nil, ps.err()
	}
	o, _ := v.(*object)
	for _, name := range formatOrder {
		if read := formats[name].Rules; read != nil {
			if subs, ok, err := read(o); ok {
				return subs, err
			}
		}
	}
	var out Substitutions
	for _, pattern := range o.keys {
		to, ok := o.m[pattern].(string)
		if !ok {
			return nil, fmt.Errorf("%q: want a string, got %s", pattern, describe(o.m[pattern]))
		}
		if err := out.add(pattern + "=" + to); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Add parses one PATTERN=STAND-IN rule and adds it (see
// AddRule).
func (s *Substitutions) Add(rule string) error { return s.add(rule) }

// AddRule adds the rule that with stands in for the nodes pattern
// matches; the same pattern given twice is an error unless both give the
// same stand-in (the rule is kept once).
func (s *Substitutions) AddRule(pattern string, with bt.NodeDef) error {
	return s.addRule(pattern, with)
}

func (s *Substitutions) add(rule string) error {
	from, to, ok := strings.Cut(rule, "=")
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	switch {
	case !ok:
		return fmt.Errorf("substitution %q: want Pattern=Replacement", strings.TrimSpace(rule))
	case from == "" || to == "":
		return fmt.Errorf("substitution %q: empty pattern or replacement", strings.TrimSpace(rule))
	}
	def, err := standIn(to)
	if err != nil {
		return fmt.Errorf("substitution %q: %w", strings.TrimSpace(rule), err)
	}
	return s.addRule(from, def)
}

func (s *Substitutions) addRule(from string, def bt.NodeDef) error {
	for _, r := range *s {
		if r.Pattern == from {
			if fmt.Sprint(r.With) != fmt.Sprint(def) {
				return fmt.Errorf("substitution for %q given twice (%s and %s)", from, bt.DescribeStandIn(r.With), bt.DescribeStandIn(def))
			}
			return nil
		}
	}
	*s = append(*s, bt.Substitution{Pattern: from, With: def})
	return nil
}

// standIn reads the replacement of a rule: a registered node type, a
// Stub's status script, a duration, or (for types registered later, such
// as a robot's device leaves) any other name.
func standIn(to string) (bt.NodeDef, error) {
	if _, ok := defaultRegistry().Lookup(to); ok {
		return bt.NodeDef{Type: to}, nil
	}
	if bt.IsStubScript(to) {
		return bt.NodeDef{Type: "Stub", Params: map[string]any{"script": to}}, nil
	}
	if d, err := time.ParseDuration(to); err == nil && d > 0 {
		return bt.NodeDef{Type: "Stub", Params: map[string]any{"script": "Running:" + to + ",Success"}}, nil
	}
	if strings.ContainsAny(to, ",: ") {
		return bt.NodeDef{}, fmt.Errorf("%q is neither a node type nor a status script (Running:3,Success)", to)
	}
	return bt.NodeDef{Type: to}, nil
}
