package btcpp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/missions"
)

// fixtures is the shared fixture directory, relative to this package.
const fixtures = "../../../shared/fixtures"

// fixtureExceptions are the fixtures that do not load whatever is
// substituted, with the problems that say why. BT.CPP itself rejects the
// two corpus files (they come from its fuzzing corpus: an unknown port,
// decorators without a child; corpus3.xml's SubTree of a tree that does
// not exist is stood in for, as a BT.CPP substitution rule would);
// nav2_tree_nodes.xml is Nav2's node palette, which holds no tree; and
// subtree_test.xml includes subtrees/Talk.xml, which the fixtures keep
// beside it rather than in subtrees/ (TestBTCPPFixtureIncludes loads it
// laid out as in BT.CPP's repository).
var fixtureExceptions = map[string]string{
	"btcpp/corpus2.xml": "" +
		"VALIDATION_FAILED /trees/MainTree/children/0/children/0/params/timeout_ms: line 5: <Timeout> timeout_ms: unknown parameter \"timeout_ms\" for Timeout (known: msec)\n" +
		"VALIDATION_FAILED /trees/MainTree/children/0/children/0/params/msec: line 5: <Timeout> msec: missing required parameter \"msec\" (number)\n",
	"btcpp/corpus4.xml": "" +
		"VALIDATION_FAILED /trees/MainTree/children/1: line 5: <ForceSuccess>: Succeeder takes exactly 1 child, got 0\n" +
		"VALIDATION_FAILED /trees/MainTree/children/2: line 6: <ForceFailure>: Failer takes exactly 1 child, got 0\n",
	"nav2/nav2_tree_nodes.xml": "" +
		"VALIDATION_FAILED /trees: a mission needs at least one tree\n",
	"btcpp/subtree_test.xml": "" +
		"VALIDATION_FAILED : line 4: <include path=\"subtrees/Talk.xml\">: open " + fixtures + "/btcpp-xml/btcpp/subtrees/Talk.xml: no such file or directory\n",
}

func fixtureFiles(t *testing.T) (string, []string) {
	dir := filepath.Join(fixtures, "btcpp-xml")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("fixtures not found at %s (a checkout without ../shared): %v", dir, err)
	}
	return dir, files(t, filepath.Join(dir, "*", "*.xml"))
}

func starSucceed(t *testing.T) missions.Substitutions {
	subs, err := missions.ParseSubstitutions("*=Succeed")
	if err != nil {
		t.Fatal(err)
	}
	return subs
}

// TestBTCPPFixtures loads every BehaviorTree.CPP and Nav2 fixture with
// '*=Succeed' (its unknown leaves stood in for by Succeed, its unknown
// decorators by pass-throughs), runs it, and round-trips it through
// Export to the same document and compiled tree.
func TestBTCPPFixtures(t *testing.T) {
	dir, paths := fixtureFiles(t)
	subs := starSucceed(t)
	for _, path := range paths {
		name := filepath.ToSlash(strings.TrimPrefix(path, dir+string(filepath.Separator)))
		t.Run(name, func(t *testing.T) {
			m, err := missions.LoadFile(path, missions.Options{Substitutions: subs})
			got := problemLines(err)
			if want, ok := fixtureExceptions[name]; ok {
				if got != want {
					t.Errorf("problems:\n%s\nwant:\n%s", got, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("load with substitutions: %v", err)
			}
			if st := runToEnd(t, m); st.String() == "ERROR" {
				t.Errorf("the run ended with %v", st)
			}
			d2, _ := roundTripBTCPP(t, m.Doc)
			if !reflect.DeepEqual(m.Doc.Trees, d2.Trees) || m.Doc.Main != d2.Main {
				t.Errorf("the export did not read back as the same document")
			}
			if a, b := compiledTable(t, m.Doc, true), compiledTable(t, d2, true); a != b {
				t.Errorf("the export compiles to another tree:\n%s\n%s", a, b)
			}
		})
	}
}

// subtree_test.xml laid out as in BehaviorTree.CPP's repository (Talk.xml
// in subtrees/) loads its includes and calls their trees by name.
func TestBTCPPFixtureIncludes(t *testing.T) {
	dir, _ := fixtureFiles(t)
	tmp := t.TempDir()
	copyFile := func(from, to string) {
		data, err := os.ReadFile(filepath.Join(dir, "btcpp", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, to)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("subtree_test.xml", "subtree_test.xml")
	copyFile("Check.xml", "Check.xml")
	copyFile("Talk.xml", "subtrees/Talk.xml")
	m, err := missions.LoadFile(filepath.Join(tmp, "subtree_test.xml"), missions.Options{Substitutions: starSucceed(t)})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sortedKeys(m.Doc.Trees), ","); got != "BehaviorTree,CheckStatus,SayStuff" {
		t.Errorf("trees %s", got)
	}
	main := m.Doc.Trees["BehaviorTree"]
	if c := main.Children[0]; c.Type != "SubTree" || c.Params["tree"] != "CheckStatus" {
		t.Errorf("<CheckStatus/> is %+v, want a SubTree", c)
	}
	if st := runToEnd(t, m); st.String() != "SUCCESS" {
		t.Errorf("status %v", st)
	}
}
