package missions

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

// fixtures is the shared fixture directory, relative to this package.
const fixtures = "../../shared/fixtures"

// fixtureExceptions are the fixtures that import but cannot compile
// whatever is substituted, with the problems that say why. BT.CPP itself
// rejects the three corpus files (they come from its fuzzing corpus), and
// nav2_tree_nodes.xml is Nav2's node palette, which holds no tree.
var fixtureExceptions = map[string]string{
	"btcpp/corpus2.xml": "" +
		"VALIDATION_FAILED /trees/MainTree/children/0/children/0/params/timeout_ms: unknown parameter \"timeout_ms\" for Timeout (known: msec)\n" +
		"VALIDATION_FAILED /trees/MainTree/children/0/children/0/params/msec: missing required parameter \"msec\" (number)\n",
	"btcpp/corpus3.xml": "" +
		"VALIDATION_FAILED /trees/MainTree/children/1/params/tree: unknown tree \"SubTree\" (trees: MainTree)\n",
	"btcpp/corpus4.xml": "" +
		"VALIDATION_FAILED /trees/MainTree/children/1: Succeeder takes exactly 1 child, got 0\n" +
		"VALIDATION_FAILED /trees/MainTree/children/2: Failer takes exactly 1 child, got 0\n",
	"nav2/nav2_tree_nodes.xml": "" +
		"VALIDATION_FAILED /trees: a mission needs at least one tree\n",
}

// TestBTCPPFixtures imports every BehaviorTree.CPP and Nav2 fixture and
// compiles it with its unknown node types substituted: leaves by Succeed,
// unknown decorators and controls by a Sequence (with one child, a
// pass-through).
func TestBTCPPFixtures(t *testing.T) {
	dir := filepath.Join(fixtures, "btcpp-xml")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("fixtures not found at %s (a checkout without ../shared): %v", dir, err)
	}
	paths := files(t, filepath.Join(dir, "*", "*.xml"))
	reg := bt.NewRegistry()
	for _, path := range paths {
		name := filepath.ToSlash(strings.TrimPrefix(path, dir+string(filepath.Separator)))
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Decode(data)
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			subs := unknownTypes(reg, d)
			t.Logf("substituted: %s", formatSubs(subs))
			_, err = Load(data, Options{Registry: reg, Substitute: subs})
			got := problemLines(err)
			if want, ok := fixtureExceptions[name]; ok {
				if got != want {
					t.Errorf("problems:\n%s\nwant:\n%s", got, want)
				}
				return
			}
			if err != nil {
				t.Errorf("compile with substitutions: %v", err)
			}
		})
	}
}

// unknownTypes maps every node type of the document that the registry
// does not know to a stand-in: Succeed for a leaf, Sequence otherwise.
func unknownTypes(reg *bt.Registry, d *Document) map[string]string {
	subs := map[string]string{}
	var walk func(n *bt.NodeDef)
	walk = func(n *bt.NodeDef) {
		if n == nil {
			return
		}
		if _, ok := reg.Lookup(n.Type); !ok && n.Type != "" {
			if len(n.Children) == 0 {
				subs[n.Type] = "Succeed"
			} else {
				subs[n.Type] = "Sequence"
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	for _, tr := range d.Trees {
		walk(tr)
	}
	return subs
}

func formatSubs(subs map[string]string) string {
	var rules []string
	for k, v := range subs {
		rules = append(rules, k+"="+v)
	}
	sort.Strings(rules)
	return strings.Join(rules, ",")
}
