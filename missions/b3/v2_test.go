package b3

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// Version 2 of the current editor's format (the editor for VS Code):
// "variables" and "overrides" in a tree file, a "uuid" on every node, and
// a workspace that holds only settings, its trees being every .json file
// under its folder but the tooling files the editor skips.
func TestB3TreeVersion2(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree := func(name, root string) string {
		return `{"version": "2.1.0", "name": "` + name + `", "desc": "", "prefix": "", "export": true, "group": [], "custom": {},
		  "variables": {"imports": [], "locals": [{"name": "hp", "desc": "health"}]}, "overrides": {}, "root": ` + root + `}`
	}
	write("workspace.b3-workspace", `{"settings": {"checkExpr": true, "buildScript": "scripts/build.ts"}}`)
	write("trees/main.json", tree("main", `{"id": "1", "uuid": "aaaaaaaaaa", "name": "Sequence", "children": [
	  {"id": "2", "uuid": "bbbbbbbbbb", "name": "GetHp", "output": ["hp"]},
	  {"id": "3", "uuid": "cccccccccc", "name": "Selector", "path": "trees/sub.json"}]}`))
	write("trees/sub.json", tree("sub", `{"id": "1", "uuid": "dddddddddd", "name": "Selector", "children": [{"id": "2", "uuid": "eeeeeeeeee", "name": "JustSuccess"}]}`))
	// The editor skips these: tooling files and generated folders.
	write("package.json", `{"name": "x", "version": "1.0.0"}`)
	write("tsconfig.build.json", `{"compilerOptions": {}}`)
	write(".vscode/settings.json", `{"editor.tabSize": 4}`)
	write("node_modules/m/index.json", `{}`)
	write("build/main.json", `{}`)

	d, err := missions.DecodeFile(filepath.Join(dir, "workspace.b3-workspace"), missions.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sortedKeys(d.Trees), ","); got != "trees/main.json,trees/sub.json" || d.Main != "trees/main.json" {
		t.Fatalf("trees %s, main %s", got, d.Main)
	}
	// A node's uuid is kept in its id, prefixed by its tree.
	want := &bt.NodeDef{Type: "MemSequence", ID: "trees/main.json#aaaaaaaaaa", Children: []*bt.NodeDef{
		{Type: "GetHp", ID: "trees/main.json#bbbbbbbbbb", Params: map[string]any{"output": []any{"hp"}}},
		{Type: "SubTree", ID: "trees/main.json#cccccccccc", Params: map[string]any{"tree": "trees/sub.json"}},
	}}
	if !reflect.DeepEqual(d.Trees[d.Main], want) {
		got, _ := d.JSON()
		t.Errorf("got\n%s", got)
	}
	runsToSuccess(t, d, missions.Options{Substitutions: starSucceed(t)})
	// The tree file alone finds its subtree through the workspace above.
	d, err = missions.DecodeFile(filepath.Join(dir, "trees", "main.json"), missions.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Main != "trees/main.json" || d.Trees["trees/sub.json"] == nil {
		t.Errorf("main %s, trees %v", d.Main, sortedKeys(d.Trees))
	}
	// A workspace received as bytes reads no files.
	if _, err := missions.Decode([]byte(`{"settings": {}}`)); !strings.Contains(problemLines(err), "a workspace's tree files are read only for a file read from disk") {
		t.Errorf("got %v", err)
	}
}

// A uuid a file repeats names both nodes in overrides, but only the first
// keeps it in its id (ids are unique); the tree loads and round-trips.
func TestB3TreeRepeatedUUID(t *testing.T) {
	src := `{"version": "2.1.0", "name": "t", "overrides": {}, "root": {"id": "1", "uuid": "r", "name": "Sequence", "children": [
	  {"id": "2", "uuid": "dup", "name": "Attack"}, {"id": "3", "uuid": "dup", "name": "Heal"}]}}`
	d := mustDecode(t, []byte(src))
	kids := d.Trees["main"].Children
	if kids[0].ID != "main#dup" || kids[1].ID != "" {
		t.Errorf("ids %q %q", kids[0].ID, kids[1].ID)
	}
	if _, err := d.Compile(missions.Options{Substitutions: starSucceed(t)}); err != nil {
		t.Fatal(err)
	}
	exportsBack(t, d, ExportB3Tree)
}
