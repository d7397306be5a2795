package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureDir holds the BehaviorTree.CPP and Nav2 fixtures (../shared
// beside the repository, as in CI).
const fixtureDir = "../../../shared/fixtures/btcpp-xml"

// fixtureRejected are the fixtures botd check refuses whatever is
// substituted (see missions' TestBTCPPFixtures for why), with a problem
// each must report.
var fixtureRejected = map[string]string{
	"btcpp/corpus2.xml":        `line 5: <Timeout> timeout_ms: unknown parameter "timeout_ms" for Timeout`,
	"btcpp/corpus4.xml":        "line 5: <ForceSuccess>: Succeeder takes exactly 1 child, got 0",
	"nav2/nav2_tree_nodes.xml": "a mission needs at least one tree",
	"btcpp/subtree_test.xml":   `line 4: <include path="subtrees/Talk.xml">`,
}

// traceHead returns the node table a mission compiles to (the first line
// of its trace).
func traceHead(t *testing.T, file string, extra ...string) string {
	t.Helper()
	args := append([]string{"sim", "-ticks", "1", "-trace", "-", "-substitute", "*=Succeed"}, extra...)
	code, out, errOut := runCmd(t, append(args, file)...)
	if code == simError {
		t.Fatalf("sim %s: exit %d\n%s", file, code, errOut)
	}
	head, _, _ := strings.Cut(out, "\n")
	return head
}

// Every fixture: botd check with '*=Succeed' accepts it (or reports why
// not), botd sim runs it with '*=Succeed' without an ERROR, and botd
// export writes XML that compiles to the same tree.
func TestFixturesConformance(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(fixtureDir, "*", "*.xml"))
	if len(paths) == 0 {
		t.Skipf("no fixtures at %s (a checkout without ../shared)", fixtureDir)
	}
	accepted := 0
	for _, path := range paths {
		name := filepath.ToSlash(strings.TrimPrefix(path, fixtureDir+"/"))
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "check", "-substitute", "*=Succeed", path)
			if want, rejected := fixtureRejected[name]; rejected {
				if code != 1 || !strings.Contains(out, want) {
					t.Errorf("check: exit %d\n%s%s\nwant a problem with %q", code, out, errOut, want)
				}
				return
			}
			if code != 0 || !checkedOK(out, path) {
				t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
			}
			accepted++
			if code, out, errOut := runCmd(t, "sim", "-ticks", "400", "-substitute", "*=Succeed", path); code == simError {
				t.Errorf("sim: exit %d\n%s%s", code, out, errOut)
			}
			exported := filepath.Join(t.TempDir(), "export.xml")
			if code, _, errOut := runCmd(t, "export", "-o", exported, path); code != 0 {
				t.Fatalf("export: exit %d\n%s", code, errOut)
			}
			if a, b := traceHead(t, path), traceHead(t, exported); a != b {
				t.Errorf("the export compiles to another tree:\n%s\n%s", a, b)
			}
		})
	}
	t.Logf("%d of %d fixtures pass botd check -substitute '*=Succeed'", accepted, len(paths))
}

// -lib: a mission calls trees of a library folder, as subtree_test.xml
// calls those of the files it includes.
func TestCheckLib(t *testing.T) {
	src := filepath.Join(fixtureDir, "btcpp")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no fixtures at %s", src)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Check.xml", "Talk.xml"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lib, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mission := filepath.Join(dir, "m.xml")
	if err := os.WriteFile(mission, []byte(`<root BTCPP_format="4"><BehaviorTree ID="M">
	  <Sequence><CheckStatus/><SubTree ID="SayStuff"/></Sequence></BehaviorTree></root>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "check", mission); code != 1 || !strings.Contains(out, `unknown tree "SayStuff"`) {
		t.Errorf("without -lib: exit %d\n%s", code, out)
	}
	// '*' stands in for the missing tree, and check says so.
	if code, out, _ := runCmd(t, "check", "-substitute", "*=Succeed", mission); code != 0 || !strings.Contains(out, `warning: no tree "SayStuff" in the files or the library`) {
		t.Errorf("without -lib, with *=Succeed: exit %d\n%s", code, out)
	}
	if code, out, errOut := runCmd(t, "check", "-substitute", "*=Succeed", "-lib", lib, mission); code != 0 {
		t.Errorf("with -lib: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCmd(t, "sim", "-substitute", "*=Succeed", "-lib", lib, mission); code != 0 || !strings.Contains(out, "SUCCESS") {
		t.Errorf("sim with -lib: exit %d\n%s", code, out)
	}
	code, x, _ := runCmd(t, "export", "-lib", lib, mission)
	if code != 0 || !strings.Contains(x, `<BehaviorTree ID="SayStuff">`) || !strings.Contains(x, `<BehaviorTree ID="CheckStatus">`) {
		t.Errorf("export with -lib: exit %d\n%s", code, x)
	}
	if code, _, errOut := runCmd(t, "check", "-lib", filepath.Join(dir, "nope"), mission); code != 2 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing library: exit %d\n%s", code, errOut)
	}
}
