package b3

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// The Behavior3 editor's build output inlines every subtree: the node
// that ran a tree file keeps its path and holds the subtree's nodes as
// its own (name, args, children), and behavior3-ts runs it as written
// (the tree file need not be there). botd reads it the same way.
func TestB3TreeBuildInlinesSubtrees(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hero.json")
	src := `{"version": "1.0.0", "name": "hero", "root": {"id": 1, "name": "Sequence", "children": [
	  {"id": 2, "name": "Sequence", "path": "subtree/attack.json", "desc": "attack", "children": [
	    {"id": 3, "name": "JustSuccess"},
	    {"id": 4, "name": "Invert", "children": [{"id": 5, "name": "JustFailure"}]}]},
	  {"id": 6, "name": "JustSuccess"}]}}`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := missions.DecodeFile(file, missions.Limits{}, nil)
	if err != nil {
		t.Fatalf("the build output is refused: %s", problemLines(err))
	}
	if len(d.Trees) != 1 {
		t.Errorf("trees %v, want the one file's", sortedKeys(d.Trees))
	}
	inl := d.Trees[d.Main].Children[0]
	if inl.Type != "MemSequence" || inl.Name != "attack" || len(inl.Children) != 2 {
		t.Errorf("the inlined subtree reads as %s %q with %d children", inl.Type, inl.Name, len(inl.Children))
	}
	runsToSuccess(t, d, missions.Options{})
	// A node with a path and no children still runs that tree file.
	src = `{"version": "1.0.0", "name": "hero", "root": {"id": 1, "name": "Sequence", "children": [
	  {"id": 2, "name": "Sequence", "path": "subtree/attack.json"}]}}`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := missions.DecodeFile(file, missions.Limits{}, nil); err == nil {
		t.Error("a path to a missing tree file loads")
	}
}

// A Behavior3 0.3 project with a tree the editor saved without nodes
// (root null): behavior3js and behavior3go load the project, so botd
// does, leaving the empty tree out; the main tree is never an empty one.
func TestB3ProjectEmptyTree(t *testing.T) {
	src := `{"version": "0.3.0", "scope": "project", "selectedTree": "e", "trees": [
	  {"version": "0.3.0", "scope": "tree", "id": "e", "title": "New Tree", "root": null, "properties": {}, "nodes": {}},
	  {"version": "0.3.0", "scope": "tree", "id": "m", "title": "patrol", "root": "n1", "properties": {},
	   "nodes": {"n1": {"id": "n1", "name": "Sequence", "title": "Sequence", "properties": {}, "children": ["n2"]},
	             "n2": {"id": "n2", "name": "Succeeder", "title": "Succeeder", "properties": {}}}}],
	  "custom_nodes": []}`
	d := mustDecode(t, []byte(src))
	if d.Main != "patrol" || len(d.Trees) != 1 {
		t.Errorf("main %q, trees %v; want patrol alone", d.Main, sortedKeys(d.Trees))
	}
	runsToSuccess(t, d, missions.Options{})
	// A project of empty trees has nothing to run.
	empty := `{"version": "0.3.0", "scope": "project", "trees": [
	  {"version": "0.3.0", "scope": "tree", "id": "e", "title": "New Tree", "root": null, "nodes": {}}]}`
	_, err := missions.Decode([]byte(empty))
	var ps bt.Problems
	if err == nil || !errorsAsProblems(err, &ps) || ps[0].Path != "/trees" {
		t.Errorf("a project of empty trees: %v", err)
	}
}

func errorsAsProblems(err error, ps *bt.Problems) bool { return errors.As(err, ps) }
