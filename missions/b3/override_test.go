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

// b3Files writes tree files into a new folder with a version 2 workspace.
func b3Files(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["workspace.b3-workspace"] = `{"settings": {}}`
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func b3File(name, overrides, root string) string {
	return `{"version": "2.1.0", "name": "` + name + `", "variables": {"imports": [], "locals": []}, "overrides": ` + overrides + `, "root": ` + root + `}`
}

// Overrides change the nodes of the subtrees a tree runs, as the editor's
// build applies them: the innermost including tree's first, the main
// tree's last; desc, input, output and disabled replaced, args added to.
// The subtree a tree changes becomes a tree of its own, and the export
// writes the overrides back.
func TestB3TreeOverrides(t *testing.T) {
	dir := b3Files(t, map[string]string{
		"main.json": b3File("main", `{
		    "s-log": {"desc": "changed", "args": {"message": "from main"}},
		    "s-x": {"disabled": true},
		    "s-in": {"input": ["hp"]},
		    "s2-out": {"output": ["main"]},
		    "s2-a": {"disabled": true}, "s2-b": {"disabled": true}}`,
			`{"id": "1", "uuid": "m-root", "name": "Sequence", "children": [
			  {"id": "2", "uuid": "m-sub", "name": "Sequence", "path": "sub.json"},
			  {"id": "3", "uuid": "m-sub2", "name": "Selector", "path": "sub2.json"}]}`),
		"sub.json": b3File("sub", `{"s2-out": {"output": ["sub"], "desc": "from sub"}, "s-log": {"args": {"message": "own, pruned"}}}`,
			`{"id": "1", "uuid": "s-root", "name": "Sequence", "children": [
			  {"id": "2", "uuid": "s-log", "name": "Log", "args": {"message": "in sub", "level": "info"}},
			  {"id": "3", "uuid": "s-x", "name": "Attack"},
			  {"id": "4", "uuid": "s-in", "name": "Heal", "input": ["mp"]},
			  {"id": "5", "uuid": "s-sub2", "name": "Selector", "path": "sub2.json"}]}`),
		"sub2.json": b3File("sub2", `{}`,
			`{"id": "1", "uuid": "s2-root", "name": "Sequence", "children": [
			  {"id": "2", "uuid": "s2-out", "name": "GetHp", "output": ["sub2"]},
			  {"id": "3", "uuid": "s2-sel", "name": "Selector", "children": [
			    {"id": "4", "uuid": "s2-a", "name": "JustSuccess"}, {"id": "5", "uuid": "s2-b", "name": "JustSuccess"}]}]}`),
	})
	path := filepath.Join(dir, "main.json")
	d, err := missions.DecodeFile(path, missions.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := func(tree, uuid string) string { return tree + "#" + uuid }
	const sub, sub2, sub2sub, sub2subMain = "sub.json<main.json", "sub2.json<main.json", "sub2.json<sub.json", "sub2.json<sub.json<main.json"
	want := map[string]*bt.NodeDef{
		"main.json": {Type: "MemSequence", ID: id("main.json", "m-root"), Children: []*bt.NodeDef{
			{Type: "SubTree", ID: id("main.json", "m-sub"), Params: map[string]any{"tree": sub}},
			{Type: "SubTree", ID: id("main.json", "m-sub2"), Params: map[string]any{"tree": sub2}}}},
		// sub.json as main tree: its own nodes keep their values.
		"sub.json": {Type: "MemSequence", ID: id("sub.json", "s-root"), Children: []*bt.NodeDef{
			{Type: "Behavior3.Log", ID: id("sub.json", "s-log"), Params: map[string]any{"message": "in sub", "level": "info"}},
			{Type: "Attack", ID: id("sub.json", "s-x")},
			{Type: "Heal", ID: id("sub.json", "s-in"), Params: map[string]any{"input": []any{"mp"}}},
			{Type: "SubTree", ID: id("sub.json", "s-sub2"), Params: map[string]any{"tree": sub2sub}}}},
		sub: {Type: "MemSequence", ID: id(sub, "s-root"), Children: []*bt.NodeDef{
			{Type: "Behavior3.Log", Name: "changed", ID: id(sub, "s-log"), Params: map[string]any{"message": "from main", "level": "info"}},
			{Type: "Heal", ID: id(sub, "s-in"), Params: map[string]any{"input": []any{"hp"}}},
			{Type: "SubTree", ID: id(sub, "s-sub2"), Params: map[string]any{"tree": sub2subMain}}}},
		"sub2.json": {Type: "MemSequence", ID: id("sub2.json", "s2-root"), Children: []*bt.NodeDef{
			{Type: "GetHp", ID: id("sub2.json", "s2-out"), Params: map[string]any{"output": []any{"sub2"}}},
			{Type: "MemPriority", ID: id("sub2.json", "s2-sel"), Children: []*bt.NodeDef{
				{Type: "Succeed", ID: id("sub2.json", "s2-a")}, {Type: "Succeed", ID: id("sub2.json", "s2-b")}}}}},
		// Run from sub.json, sub.json's overrides apply.
		sub2sub: {Type: "MemSequence", ID: id(sub2sub, "s2-root"), Children: []*bt.NodeDef{
			{Type: "GetHp", Name: "from sub", ID: id(sub2sub, "s2-out"), Params: map[string]any{"output": []any{"sub"}}},
			{Type: "MemPriority", ID: id(sub2sub, "s2-sel"), Children: []*bt.NodeDef{
				{Type: "Succeed", ID: id(sub2sub, "s2-a")}, {Type: "Succeed", ID: id(sub2sub, "s2-b")}}}}},
		// Run from sub.json run from main.json: sub.json's, then main.json's;
		// a Selector whose children are all disabled fails.
		sub2subMain: {Type: "MemSequence", ID: id(sub2subMain, "s2-root"), Children: []*bt.NodeDef{
			{Type: "GetHp", Name: "from sub", ID: id(sub2subMain, "s2-out"), Params: map[string]any{"output": []any{"main"}}},
			{Type: "Fail", ID: id(sub2subMain, "s2-sel")}}},
		sub2: {Type: "MemSequence", ID: id(sub2, "s2-root"), Children: []*bt.NodeDef{
			{Type: "GetHp", ID: id(sub2, "s2-out"), Params: map[string]any{"output": []any{"main"}}},
			{Type: "Fail", ID: id(sub2, "s2-sel")}}},
	}
	if d.Main != "main.json" {
		t.Errorf("main %s", d.Main)
	}
	for k, w := range want {
		if !reflect.DeepEqual(d.Trees[k], w) {
			got, _ := d.JSON()
			t.Fatalf("tree %s differs; got\n%s", k, got)
		}
	}
	if len(d.Trees) != len(want) {
		t.Errorf("trees %v", sortedKeys(d.Trees))
	}
	m, err := d.Compile(missions.Options{Substitutions: starSucceed(t)})
	if err != nil {
		t.Fatal(err)
	}
	if st := runToEnd(t, m); st != bt.Failure {
		t.Errorf("run: %v (the disabled Selector fails)", st)
	}
	// The export writes the main tree's overrides that make its variants,
	// and reads back as the same trees.
	out, err := ExportB3Tree(d)
	if err != nil {
		t.Fatal(err)
	}
	o := mustParseJSON(t, out)
	wantOv := map[string]any{
		"s-log":  map[string]any{"desc": "changed", "args": map[string]any{"message": "from main"}},
		"s-x":    map[string]any{"disabled": true},
		"s-in":   map[string]any{"input": []any{"hp"}},
		"s2-out": map[string]any{"output": []any{"main"}},
		"s2-a":   map[string]any{"disabled": true}, "s2-b": map[string]any{"disabled": true},
	}
	if !reflect.DeepEqual(o["overrides"], wantOv) || o["version"] != "2.1.0" {
		t.Errorf("export overrides %v\n%s", o["overrides"], out)
	}
	d2, err := missions.DecodeAs(out, path, missions.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Trees, d2.Trees) {
		got, _ := d2.JSON()
		t.Errorf("round trip differs:\n%s", got)
	}
}

func mustParseJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	ps := missions.NewProblems(missions.Limits{})
	v, ok := missions.ParseJSON(data, ps)
	if !ok {
		t.Fatal(ps.Err())
	}
	return missions.Normalize(v, "", ps).(map[string]any)
}

// Malformed overrides are located errors; an override may not enable a
// node its file disables (botd leaves disabled nodes out).
func TestB3TreeOverrideProblems(t *testing.T) {
	sub := b3File("sub", `{}`, `{"id": "1", "uuid": "s-root", "name": "Sequence", "children": [
	  {"id": "2", "uuid": "s-a", "name": "Attack"}, {"id": "3", "uuid": "s-off", "name": "Attack", "disabled": true}]}`)
	for _, c := range []struct{ overrides, want string }{
		{`{"s-a": {"colour": "red"}}`, `/overrides/s-a/colour: unknown member "colour" of a node override`},
		{`{"s-a": {"args": [1]}}`, `/overrides/s-a/args: want an object`},
		{`{"s-a": {"input": "hp"}}`, `/overrides/s-a/input: want a list of variable names`},
		{`{"s-a": {"disabled": "yes"}}`, `/overrides/s-a/disabled: want true or false`},
		{`{"s-a": 3}`, `/overrides/s-a: want the changes to a node`},
		{`[]`, `/overrides: want an object of node overrides`},
		{`{"s-off": {"disabled": false}}`, `/overrides/s-off/disabled: the override enables a node disabled in its file (sub.json)`},
	} {
		dir := b3Files(t, map[string]string{
			"main.json": b3File("main", c.overrides, `{"id": "1", "uuid": "m", "name": "Sequence", "path": "sub.json"}`),
			"sub.json":  sub,
		})
		_, err := missions.DecodeFile(filepath.Join(dir, "main.json"), missions.Limits{}, nil)
		if got := problemLines(err); !strings.Contains(got, c.want) {
			t.Errorf("%s:\ngot %s\nwant ...%s", c.overrides, got, c.want)
		}
	}
}

// FuzzB3Overrides feeds a tree file and the subtree file it runs (each
// with overrides) to the importer: a problem is located, never a panic,
// and a tree that loads exports to a file that reads back as the same
// trees.
func FuzzB3Overrides(f *testing.F) {
	f.Add([]byte(b3File("main", `{"s-a": {"args": {"x": 1}, "desc": "d"}, "s2-b": {"disabled": true}}`,
		`{"id": "1", "uuid": "m", "name": "Sequence", "children": [{"id": "2", "uuid": "m-s", "name": "Sequence", "path": "sub.json"}]}`)),
		[]byte(b3File("sub", `{"s2-b": {"output": ["o"]}}`,
			`{"id": "1", "uuid": "s", "name": "Selector", "children": [{"id": "2", "uuid": "s-a", "name": "Attack", "input": ["i"]},
			  {"id": "3", "uuid": "s-sub", "name": "Sequence", "path": "sub.json"}, {"id": "4", "uuid": "s2-b", "name": "Log"}]}`)))
	dir := filepath.Join(os.TempDir(), "botd-fuzz-b3-absent")
	f.Fuzz(func(t *testing.T, main, sub []byte) {
		read := func(p string) ([]byte, error) {
			if filepath.Base(p) == "sub.json" {
				return sub, nil
			}
			return nil, os.ErrNotExist
		}
		decode := func(data []byte) (*missions.Document, *missions.Problems) {
			ps := missions.NewProblems(missions.Limits{Values: 2000, Depth: 32, StringBytes: 512, Nodes: 500})
			v, ok := missions.ParseJSON(data, ps)
			if !ok {
				return nil, ps
			}
			o, isObj := v.(*missions.Object)
			if !isObj || !isB3Tree(o) {
				return nil, nil
			}
			return decodeB3TreeFrom(o, filepath.Join(dir, "main.json"), false, read, ps), ps
		}
		d, ps := decode(main)
		if ps == nil {
			return
		}
		checkOutcome(t, d, ps)
		if ps.Err() != nil {
			return
		}
		out, err := ExportB3Tree(d)
		if err != nil {
			return // a recursion: the compiler's to report
		}
		d2, ps2 := decode(out)
		if ps2 == nil || ps2.Err() != nil {
			t.Fatalf("the export does not read back: %v\n%s", ps2, out)
		}
		if !reflect.DeepEqual(d.Trees, d2.Trees) {
			t.Fatalf("the export reads back as other trees:\n%s", out)
		}
	})
}

// Subtree files that run each other make a variant per chain of including
// trees: the work is bounded (Limits.Values nodes visited, 1024
// variants), past which the import is refused.
func TestB3TreeOverridesBounded(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f", "g"}
	files := map[string]string{}
	for _, n := range names {
		var kids, overrides []string
		for _, m := range names {
			if m != n {
				kids = append(kids, `{"id": "`+m+`", "uuid": "`+n+`-`+m+`", "name": "Sequence", "path": "`+m+`.json"}`)
				overrides = append(overrides, `"`+m+`-x": {"desc": "changed by `+n+`"}`)
			}
		}
		kids = append(kids, `{"id": "x", "uuid": "`+n+`-x", "name": "Attack"}`)
		files[n+".json"] = b3File(n, `{`+strings.Join(overrides, ", ")+`}`,
			`{"id": "1", "uuid": "`+n+`-root", "name": "Selector", "children": [`+strings.Join(kids, ", ")+`]}`)
	}
	dir := b3Files(t, files)
	_, err := missions.DecodeFile(filepath.Join(dir, "workspace.b3-workspace"), missions.Limits{Values: 20_000}, nil)
	got := problemLines(err)
	if !strings.Contains(got, missions.CodeTooLarge) || !strings.Contains(got, "subtree overrides") {
		t.Errorf("got %s", got)
	}
}
