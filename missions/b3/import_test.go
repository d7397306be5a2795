package b3

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// TestB3ExportImport exports missions to Behavior3 and imports them back:
// the trees, the main tree and the blackboard survive.
func TestB3ExportImport(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "configs", "missions", "*"))
	in, _ := readGolden(t, filepath.Join("..", "testdata", "golden", "yaml", "contract_example.golden"))
	docs := map[string][]byte{"contract example": in}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs[p] = data
	}
	for name, data := range docs {
		d := mustDecode(t, data)
		out, err := ExportB3(d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkEditorOpens(t, name, out)
		back, err := missions.Decode(out)
		if err != nil {
			t.Fatalf("%s: importing the export: %v", name, err)
		}
		if back.Main != d.Main || !reflect.DeepEqual(back.Trees, d.Trees) || !reflect.DeepEqual(back.Blackboard, d.Blackboard) {
			j1, _ := d.JSON()
			j2, _ := back.JSON()
			t.Errorf("%s: the Behavior3 round trip changed the mission\n%s\nbecame\n%s", name, j1, j2)
		}
	}
}

// checkEditorOpens checks what the Behavior3 Editor's ImportManager relies
// on: every tree's root and every link name a node of that tree, every
// node has display coordinates, decorators link with child and
// composites with children, and every node name is a built-in, a
// declared custom node or a tree of the project.
func checkEditorOpens(t *testing.T, name string, data []byte) {
	t.Helper()
	var p struct {
		Scope, SelectedTree string
		Trees               []struct {
			ID, Root string
			Nodes    map[string]struct {
				ID, Name, Category string
				Display            *struct{ X, Y float64 }
				Children           []string
				Child              string
			}
		}
		CustomNodes []struct{ Name, Category, Scope string } `json:"custom_nodes"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	known := map[string]string{}
	for n, c := range b3Defaults {
		known[n] = c
	}
	for _, c := range p.CustomNodes {
		if c.Scope != "node" || known[c.Name] != "" {
			t.Errorf("%s: custom node %q redeclared or mis-scoped", name, c.Name)
		}
		known[c.Name] = c.Category
	}
	trees := map[string]bool{}
	for _, tr := range p.Trees {
		trees[tr.ID] = true
	}
	if p.Scope != "project" || !trees[p.SelectedTree] {
		t.Errorf("%s: scope %q, selected tree %q", name, p.Scope, p.SelectedTree)
	}
	for _, tr := range p.Trees {
		if _, ok := tr.Nodes[tr.Root]; !ok {
			t.Errorf("%s: tree %s: root %q is not a node", name, tr.ID, tr.Root)
		}
		for id, n := range tr.Nodes {
			if n.ID != id || n.Display == nil {
				t.Errorf("%s: node %s: id %q, display %v", name, id, n.ID, n.Display)
			}
			switch {
			case n.Category == "tree":
				if !trees[n.Name] {
					t.Errorf("%s: node %s runs tree %q, which is not in the project", name, id, n.Name)
				}
			case known[n.Name] != n.Category:
				t.Errorf("%s: node %s: %q is not a known %s node", name, id, n.Name, n.Category)
			}
			links := n.Children
			if n.Child != "" {
				links = append(links, n.Child)
			}
			if (n.Category == "decorator") != (n.Child != "") || (n.Category != "composite" && len(n.Children) > 0) {
				t.Errorf("%s: node %s (%s) links children %v, child %q", name, id, n.Category, n.Children, n.Child)
			}
			for _, c := range links {
				if _, ok := tr.Nodes[c]; !ok {
					t.Errorf("%s: node %s links to missing node %q", name, id, c)
				}
			}
		}
	}
}

func TestB3MainTree(t *testing.T) {
	tree := func(id, title, child string) string {
		node := `{"id": "n", "name": "Succeeder"}`
		if child != "" {
			node = `{"id": "n", "name": "` + child + `", "category": "tree"}`
		}
		return `{"scope": "tree", "id": "` + id + `", "title": "` + title + `", "root": "n", "nodes": {"n": ` + node + `}}`
	}
	for _, tc := range []struct {
		name, selected string
		trees          []string
		main           string
	}{
		{"the tree no other uses, not the selected one", "t2", []string{tree("t1", "main", "t2"), tree("t2", "sub", "")}, "main"},
		{"two unused trees: the selected one", "t2", []string{tree("t1", "a", ""), tree("t2", "b", "")}, "b"},
		{"two unused trees, none selected: the first", "", []string{tree("t1", "a", ""), tree("t2", "b", "")}, "a"},
		{"a subtree named by title", "", []string{tree("t1", "main", "sub"), tree("t2", "sub", "")}, "main"},
		{"duplicate titles: trees named by id", "", []string{tree("t1", "x", "t2"), tree("t2", "x", "")}, "t1"},
	} {
		in := `{"scope": "project", "selectedTree": "` + tc.selected + `", "trees": [` + strings.Join(tc.trees, ",") + `]}`
		d, err := missions.Decode([]byte(in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d.Main != tc.main {
			t.Errorf("%s: main %q, want %q", tc.name, d.Main, tc.main)
		}
		if _, err := d.Compile(missions.Options{}); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestB3NodeNames(t *testing.T) {
	// B3's Succeeder, Failer and Runner are leaves; with a child, the
	// names ExportB3 gives botd's decorators.
	in := `{"scope": "tree", "id": "t", "title": "t", "root": "s", "nodes": {
		"s": {"id": "s", "name": "MemSequence", "children": ["a", "b", "c", "d", "e"]},
		"a": {"id": "a", "name": "Succeeder"}, "b": {"id": "b", "name": "Failer"}, "c": {"id": "c", "name": "Runner"},
		"d": {"id": "d", "name": "ForceSuccess", "child": "f"}, "e": {"id": "e", "name": "ForceFailure", "child": "g"},
		"f": {"id": "f", "name": "Error"}, "g": {"id": "g", "name": "Limiter", "title": "Limit <maxLoop> Activations", "properties": {"maxLoop": 1}, "child": "h"},
		"h": {"id": "h", "name": "Wait", "title": "short wait", "properties": {"milliseconds": 1, "note": "kept"}}}}`
	d := mustDecode(t, []byte(in))
	want := &bt.NodeDef{Type: "MemSequence", Children: []*bt.NodeDef{
		{Type: "Succeed"}, {Type: "Fail"}, {Type: "Running"},
		{Type: "Succeeder", Children: []*bt.NodeDef{{Type: "Error"}}},
		{Type: "Failer", Children: []*bt.NodeDef{{Type: "Limiter", Params: map[string]any{"max": 1.0}, Children: []*bt.NodeDef{
			{Type: "Wait", Name: "short wait", Params: map[string]any{"ms": 1.0, "note": "kept"}}}}}},
	}}
	if !reflect.DeepEqual(d.Trees["t"], want) {
		got, _ := d.JSON()
		t.Errorf("got\n%s", got)
	}
}
