package b3

import (
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// A composite without children, as the Behavior3 editors save one before
// its children are added, runs in its home engine: behavior3-ts and
// behavior3lua's Sequence and Parallel succeed, Selector, Race and Switch
// fail (their loops over no children end at once); behavior3js's Sequence
// and MemSequence succeed, Priority and MemPriority fail. botd's own
// composites need a child, so the import gives the leaf of that status,
// keeping the node's label.
func TestB3TreeEmptyComposite(t *testing.T) {
	src := `{"name": "t", "root": {"id": "1", "name": "Sequence", "children": [
	  {"id": "2", "name": "Sequence", "desc": "placeholder"},
	  {"id": "3", "name": "Invert", "children": [{"id": "4", "name": "Selector", "children": []}]},
	  {"id": "5", "name": "Parallel"},
	  {"id": "6", "name": "Invert", "children": [{"id": "7", "name": "Race"}]},
	  {"id": "8", "name": "Invert", "children": [{"id": "9", "name": "Switch"}]},
	  {"id": "10", "name": "Sequence", "children": [{"id": "11", "name": "JustFailure", "disabled": true}]},
	  {"id": "12", "name": "Selector", "children": [{"id": "13", "name": "JustSuccess"}]}]}}`
	d := mustDecode(t, []byte(src))
	want := &bt.NodeDef{Type: "MemSequence", Children: []*bt.NodeDef{
		{Type: "Succeed", Name: "placeholder"},
		{Type: "Inverter", Children: []*bt.NodeDef{{Type: "Fail"}}},
		{Type: "Succeed"},
		{Type: "Inverter", Children: []*bt.NodeDef{{Type: "Fail"}}},
		{Type: "Inverter", Children: []*bt.NodeDef{{Type: "Fail"}}},
		{Type: "Succeed"}, // every child disabled: behavior3-ts builds it without children
		{Type: "MemPriority", Children: []*bt.NodeDef{{Type: "Succeed"}}},
	}}
	if !reflect.DeepEqual(d.Trees["main"], want) {
		got, _ := d.JSON()
		t.Fatalf("got\n%s", got)
	}
	// Without any substitution, it loads and succeeds.
	runsToSuccess(t, d, missions.Options{})
	// The export reads back as the same tree; the leaves are written as
	// behavior3-ts's leaves of the same status.
	out := exportsBack(t, d, ExportB3Tree)
	if !strings.Contains(strings.Join(strings.Fields(string(out)), " "), `"name": "JustSuccess", "desc": "placeholder"`) {
		t.Errorf("export:\n%s", out)
	}
}

// The composites that need their children in their home engine, and a
// composite given arguments, stay what they are and are refused.
func TestB3TreeEmptyRefused(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`{"name": "t", "root": {"id": "1", "name": "Invert"}}`, `/trees/main: Inverter takes exactly 1 child, got 0`},
		{`{"name": "t", "root": {"id": "1", "name": "Sequence", "args": {"x": 1}}}`, `/trees/main: MemSequence needs at least 1 child, got 0`},
		{`{"name": "t", "root": {"id": "1", "name": "botd.Sequence"}}`, `/trees/main: Sequence needs at least 1 child, got 0`},
	} {
		d := mustDecode(t, []byte(c.src))
		_, err := d.Compile(missions.Options{})
		if got := problemLines(err); !strings.Contains(got, c.want) {
			t.Errorf("%s:\ngot %s\nwant ...%s", c.src, got, c.want)
		}
	}
}

func TestB3EmptyComposite(t *testing.T) {
	in := `{"scope": "tree", "id": "t", "title": "t", "root": "s", "nodes": {
		"s": {"id": "s", "name": "Sequence", "children": ["a", "b", "c", "d", "e"]},
		"a": {"id": "a", "name": "Sequence", "title": "to do"},
		"b": {"id": "b", "name": "MemSequence", "title": "MemSequence", "children": []},
		"c": {"id": "c", "name": "Inverter", "child": "f"}, "f": {"id": "f", "name": "Priority"},
		"d": {"id": "d", "name": "Inverter", "child": "g"}, "g": {"id": "g", "name": "MemPriority"},
		"e": {"id": "e", "name": "Priority", "children": ["h"]}, "h": {"id": "h", "name": "Succeeder"}}}`
	d := mustDecode(t, []byte(in))
	want := &bt.NodeDef{Type: "Sequence", Children: []*bt.NodeDef{
		{Type: "Succeed", Name: "to do"}, {Type: "Succeed"},
		{Type: "Inverter", Children: []*bt.NodeDef{{Type: "Fail"}}},
		{Type: "Inverter", Children: []*bt.NodeDef{{Type: "Fail"}}},
		{Type: "Priority", Children: []*bt.NodeDef{{Type: "Succeed"}}},
	}}
	if !reflect.DeepEqual(d.Trees["t"], want) {
		got, _ := d.JSON()
		t.Fatalf("got\n%s", got)
	}
	runsToSuccess(t, d, missions.Options{})
	exportsBack(t, d, ExportB3)
	// A decorator without its child returns ERROR in behavior3js: refused.
	d = mustDecode(t, []byte(`{"scope": "tree", "id": "t", "title": "t", "root": "s", "nodes": {"s": {"id": "s", "name": "Inverter"}}}`))
	if _, err := d.Compile(missions.Options{}); !strings.Contains(problemLines(err), "/trees/t: Inverter takes exactly 1 child, got 0") {
		t.Errorf("got %v", err)
	}
}
