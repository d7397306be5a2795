package ground

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/botd-project/botd/telemetry/protocol"
)

// Selector picks robots of a fleet, in one of two forms:
//
//   - robot ids: a glob or a comma-separated list of globs on the robot id
//     ("rover-*", "rover-000[1-5],uav-?"), any of which may match;
//   - labels: comma-separated terms KEY=VALUE or KEY!=VALUE, all of which
//     must hold ("site=yard-a,kind=rover", "team!=red"); VALUE may be a
//     glob ("site=yard-*"). KEY!=VALUE also holds for a robot without the
//     label.
//
// Globs are path.Match patterns: * ? [a-z] [^a-z]. A selector holding "="
// is a label selector; robot ids never hold "=".
type Selector struct {
	text  string
	globs []string
	terms []labelTerm
}

type labelTerm struct {
	key, value string
	not        bool
}

// MaxSelectorLen bounds a selector's text.
const MaxSelectorLen = 1024

var (
	idGlobChars    = regexp.MustCompile(`^[A-Za-z0-9_.:*?\[\]^-]+$`)
	valueGlobChars = idGlobChars
)

// ErrNoMatch is returned (wrapped) when a selector matches no robot.
var ErrNoMatch = errors.New("no robot matches")

// ParseSelector parses a selector; "*" selects every robot.
func ParseSelector(s string) (Selector, error) {
	sel := Selector{text: s}
	if strings.TrimSpace(s) == "" {
		return sel, errors.New("empty selector: give robot id globs (rover-*) or labels (site=yard-a,kind=rover)")
	}
	if len(s) > MaxSelectorLen {
		return sel, fmt.Errorf("selector longer than %d bytes", MaxSelectorLen)
	}
	parts := strings.Split(s, ",")
	if !strings.Contains(s, "=") {
		for _, g := range parts {
			if g == "" || !idGlobChars.MatchString(g) {
				return sel, fmt.Errorf("selector %q: %q is not a robot id glob (letters, digits, _ . : - and * ? [ ] ^)", s, g)
			}
			if _, err := path.Match(g, ""); err != nil {
				return sel, fmt.Errorf("selector %q: %q: %v", s, g, err)
			}
			sel.globs = append(sel.globs, g)
		}
		return sel, nil
	}
	for _, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return sel, fmt.Errorf("selector %q: %q is not KEY=VALUE or KEY!=VALUE (robot id globs and labels do not mix)", s, p)
		}
		t := labelTerm{key: k, value: v}
		if strings.HasSuffix(k, "!") {
			t.key, t.not = strings.TrimSuffix(k, "!"), true
		}
		if err := protocol.ValidLabelKey(t.key); err != nil {
			return sel, fmt.Errorf("selector %q: %v", s, err)
		}
		if v == "" || !valueGlobChars.MatchString(v) {
			return sel, fmt.Errorf("selector %q: %q is not a label value or glob (letters, digits, _ . : - and * ? [ ] ^)", s, v)
		}
		if _, err := path.Match(v, ""); err != nil {
			return sel, fmt.Errorf("selector %q: %q: %v", s, v, err)
		}
		sel.terms = append(sel.terms, t)
	}
	return sel, nil
}

// All is the selector of every robot.
func All() Selector { return Selector{text: "*", globs: []string{"*"}} }

// String is the selector as given.
func (s Selector) String() string { return s.text }

// NeedsLabels says whether matching needs the robots' labels (their
// factsheets).
func (s Selector) NeedsLabels() bool { return len(s.terms) > 0 }

// Match says whether the robot with this id and these labels is selected.
func (s Selector) Match(id string, labels map[string]string) bool {
	for _, g := range s.globs {
		if ok, _ := path.Match(g, id); ok {
			return true
		}
	}
	if len(s.terms) == 0 {
		return false
	}
	for _, t := range s.terms {
		v, has := labels[t.key]
		ok := false
		if has {
			ok, _ = path.Match(t.value, v)
		}
		if ok == t.not {
			return false
		}
	}
	return true
}
