package btcpp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

const includes = "testdata/btcpp-includes"

// runToEnd ticks a mission's agent until its root completes.
func runToEnd(t *testing.T, m *missions.Mission) bt.Status {
	t.Helper()
	a := bt.NewAgent(m.Tree, 0, 0)
	for k := int64(1); k < 100; k++ {
		if st := a.Tick(k * 50e6); st != bt.Running {
			return st
		}
	}
	return bt.Running
}

// BehaviorTree.CPP's gtest_factory.cpp CreateTreeFromFile* cases: files
// that include files from their own folder, a child folder, a child's
// child and the parent folder, each relative to the including file.
func TestIncludes(t *testing.T) {
	for _, f := range []string{
		"child/child_include_sibling.xml",              // CreateTreeFromFileWhichIncludesFileFromSameDirectory
		"parent_include_child.xml",                     // ...FromChildDirectory
		"parent_include_child_include_sibling.xml",     // ...FromChildDirectoryWhichIncludesFileFromSameDirectory
		"parent_include_child_include_child.xml",       // ...FromChildDirectoryWhichIncludesFileFromChildDirectory
		"parent_include_child_include_parent.xml",      // ...FromChildDirectoryWhichIncludesFileFromParentDirectory
		"../btcpp-includes/child/child_no_include.xml", // no include at all
	} {
		t.Run(f, func(t *testing.T) {
			m, err := missions.LoadFile(filepath.Join(includes, f), missions.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if st := runToEnd(t, m); st != bt.Success {
				t.Errorf("status %v", st)
			}
		})
	}
}

// Bad includes are errors that say where, and nothing is loaded.
func TestIncludeProblems(t *testing.T) {
	bad := filepath.Join(includes, "bad")
	for f, want := range map[string]string{
		"cycle_a.xml":            "line 2: include cycle: " + bad + "/cycle_a.xml -> " + bad + "/cycle_b.xml -> " + bad + "/cycle_a.xml",
		"missing.xml":            `line 2: <include path="nowhere/gone.xml">: open ` + bad + "/nowhere/gone.xml: no such file or directory",
		"includes_malformed.xml": bad + "/malformed.xml: invalid XML: line 5: element <AlwaysSuccess> closed by </Sequence>",
		"twice.xml":              `/trees/ParentNoInclude: line 4: a second <BehaviorTree> with ID "ParentNoInclude" (the first is in ` + includes + "/parent_no_include.xml)",
		"ros.xml":                `line 2: <include ros_pkg="nav2_bt_navigator">: ROS packages are not searched`,
	} {
		t.Run(f, func(t *testing.T) {
			m, err := missions.LoadFile(filepath.Join(bad, f), missions.Options{})
			if m != nil || err == nil {
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, want)
			}
			if d, err := missions.DecodeFile(filepath.Join(bad, f), missions.Limits{}, nil); d != nil || err == nil {
				t.Error("DecodeFile loaded it")
			}
		})
	}
	// Bytes from elsewhere (a mission sent to the daemon) include nothing.
	data, _ := os.ReadFile(filepath.Join(includes, "parent_include_child.xml"))
	if _, err := missions.Decode(data); err == nil || !strings.Contains(err.Error(), "includes are resolved only for a file read from disk") {
		t.Errorf("Decode: %v", err)
	}
}

// A library: trees from several files and folders that a mission calls,
// by <SubTree ID> or by the tree's name as element.
func TestLibrary(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("lib/a.xml", `<root BTCPP_format="4"><BehaviorTree ID="Dock"><Sequence><SubTree ID="Align"/><AlwaysSuccess/></Sequence></BehaviorTree></root>`)
	write("lib/b.json", `{"format": "botd/mission@1", "main": "Align", "trees": {"Align": {"type": "Succeed"}, "Unused": {"type": "Mystery"}}}`)
	write("lib/notes.txt", "not a mission")
	mission := write("m.xml", `<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><Dock/><SubTree ID="Dock"/></Sequence></BehaviorTree></root>`)
	lib, err := missions.LoadLibrary([]string{filepath.Join(dir, "lib")}, missions.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(lib.Names(), ","); got != "Align,Dock,Unused" {
		t.Errorf("library trees %s", got)
	}
	m, err := missions.LoadFile(mission, missions.Options{Library: lib})
	if err != nil {
		t.Fatal(err) // Unused (an unknown type) is not loaded: nothing calls it
	}
	if got := strings.Join(sortedKeys(m.Doc.Trees), ","); got != "Align,Dock,M" {
		t.Errorf("mission trees %s", got)
	}
	if st := runToEnd(t, m); st != bt.Success {
		t.Errorf("status %v", st)
	}
	if _, err := missions.LoadFile(mission, missions.Options{}); err == nil || !strings.Contains(err.Error(), `unknown node type "Dock"`) {
		t.Errorf("without the library: %v", err)
	}
	// A tree defined twice, differently, is an error naming both files.
	write("lib2/dock.xml", `<root BTCPP_format="4"><BehaviorTree ID="Dock"><AlwaysFailure/></BehaviorTree></root>`)
	if _, err := missions.LoadLibrary([]string{filepath.Join(dir, "lib"), filepath.Join(dir, "lib2")}, missions.Limits{}); err == nil ||
		!strings.Contains(err.Error(), `tree "Dock" is also defined, differently, in `+filepath.Join(dir, "lib", "a.xml")) {
		t.Errorf("duplicate: %v", err)
	}
	write("lib3/bad.xml", `<root><BehaviorTree ID="X">`)
	if _, err := missions.LoadLibrary([]string{filepath.Join(dir, "lib3")}, missions.Limits{}); err == nil || !strings.Contains(err.Error(), "bad.xml") {
		t.Errorf("bad file: %v", err)
	}
}
