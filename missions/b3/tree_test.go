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

// The current Behavior3 editor's tree files and workspaces
// (behavior3editor 1.x, behavior3-ts, behavior3lua).

func TestB3TreeImport(t *testing.T) {
	src := `{"version": "1.8.0", "name": "hero", "desc": "a hero", "firstid": 1, "group": [], "import": [], "vars": [],
	  "root": {"id": 1, "name": "Selector", "desc": "hero AI", "children": [
	    {"id": 2, "name": "Sequence", "desc": "attack", "children": [
	      {"id": 3, "name": "FindEnemy", "args": {"w": 100, "h": 50}, "output": ["enemy"]},
	      {"id": 4, "name": "Attack", "input": ["enemy"]},
	      {"id": 5, "name": "Wait", "args": {"time": 10}},
	      {"id": 6, "name": "Log", "args": {"message": "off"}, "disabled": true}]},
	    {"id": 7, "name": "Invert", "children": [{"id": 8, "name": "JustFailure", "debug": true}]},
	    {"id": 9, "name": "AlwaysSuccess", "children": [{"id": 10, "name": "botd.Wait", "args": {"ms": 5}}]}]}}`
	d, err := missions.Decode([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if d.Main != "main" || d.Name != "hero" {
		t.Errorf("main %q name %q", d.Main, d.Name)
	}
	root := d.Trees["main"]
	got := []string{root.Type, root.Name}
	atk := root.Children[0]
	for _, n := range append(atk.Children, root.Children[1], root.Children[1].Children[0], root.Children[2], root.Children[2].Children[0]) {
		got = append(got, n.Type)
	}
	want := []string{"MemPriority", "hero AI", "FindEnemy", "Attack", "Behavior3.Wait", "Inverter", "Fail", "Succeeder", "Wait"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("types %v, want %v", got, want)
	}
	if p := atk.Children[0].Params; !reflect.DeepEqual(p, map[string]any{"w": 100.0, "h": 50.0, "output": []any{"enemy"}}) {
		t.Errorf("FindEnemy params %v", p)
	}
	if len(atk.Children) != 3 {
		t.Errorf("the disabled node was imported")
	}
	// With its unknown nodes stood in for, it runs; botd's Wait waits.
	subs := starSucceed(t)
	m, err := d.Compile(missions.Options{Substitutions: subs})
	if err != nil {
		t.Fatal(err)
	}
	if st := runToEnd(t, m); st != bt.Success {
		t.Errorf("run: %v", st)
	}
	// The export reads back as the same tree.
	out, err := ExportB3Tree(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"name": "Selector"`, `"name": "Wait"`, `"name": "botd.Wait"`, `"name": "JustFailure"`, `"output": [`} {
		if !strings.Contains(string(out), w) {
			t.Errorf("export lacks %s:\n%s", w, out)
		}
	}
	d2, err := missions.Decode(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(d.Trees, d2.Trees) {
		t.Errorf("round trip differs:\n%s", out)
	}
}

func TestB3TreeProblems(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`{"name": "t", "root": {"id": 1, "name": "Sequence", "children": [{"id": 2, "name": "Sequence", "path": "sub.json"}]}}`,
			`/root/children/0/path: the tree file "sub.json" is read only for a file read from disk`},
		{`{"name": "t", "root": {"id": 1, "name": "Sequence", "colour": "red", "children": [{"id": 2, "name": "JustSuccess"}]}}`,
			`/root/colour: unknown member "colour" of a Behavior3 node`},
		{`{"name": "t", "root": {"id": 1, "name": "", "children": []}}`, `/root/name: want the node's type name`},
		{`{"files": [{"path": "a.json"}], "settings": {}}`, `a workspace's tree files are read only for a file read from disk`},
	} {
		_, err := missions.Decode([]byte(c.src))
		if got := problemLines(err); !strings.Contains(got, c.want) {
			t.Errorf("%s:\ngot %s\nwant ...%s", c.src, got, c.want)
		}
	}
}

// A workspace read from disk loads every tree file it lists, and a node
// with a path runs that file's tree; the tree file alone finds its
// subtrees through the workspace above it.
func TestB3TreeWorkspace(t *testing.T) {
	dir := filepath.Join(corpusDir, "behavior3editor")
	d, err := missions.DecodeFile(filepath.Join(dir, "workspace.b3-workspace"), missions.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"workdir/hero.json", "workdir/monster.json", "workdir/subtree1.json", "workdir/sub/subtree2.json"} {
		if d.Trees[k] == nil {
			t.Errorf("no tree %s (trees: %v)", k, sortedKeys(d.Trees))
		}
	}
	d, err = missions.DecodeFile(filepath.Join(dir, "workdir", "monster.json"), missions.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Main != "workdir/monster.json" || d.Trees["workdir/subtree2.json"] == nil {
		t.Errorf("main %s, trees %v", d.Main, sortedKeys(d.Trees))
	}
	sub := d.Trees[d.Main].Children[0].Children[0].Children[0]
	if sub.Type != "SubTree" || sub.Params["tree"] != "workdir/subtree2.json" {
		t.Errorf("the path node is %+v", sub)
	}
	out, err := ExportB3Tree(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"path": "workdir/subtree2.json"`) {
		t.Errorf("the export does not keep the path:\n%s", out)
	}
	// The 2020 desktop editor's workspace.json: every tree of its workdir.
	d, err = missions.DecodeFile(filepath.Join(corpusDir, "behavior3editor-2020", "workspace.json"), missions.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sortedKeys(d.Trees), ","); got != "workdir/hero.json,workdir/monster.json" {
		t.Errorf("trees %s", got)
	}
	// A missing tree file is a problem located at the node asking for it.
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "t.json"), []byte(`{"name": "t", "root": {"id": 1, "name": "Sequence", "path": "gone.json"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = missions.DecodeFile(filepath.Join(tmp, "t.json"), missions.Limits{}, nil)
	if got := problemLines(err); !strings.Contains(got, `/root/path: tree file "gone.json"`) {
		t.Errorf("got %s", got)
	}
}
