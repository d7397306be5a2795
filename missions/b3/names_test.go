package b3

import (
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// behavior3lua's RepeatUntilFailure and RepeatUntilSuccess (and
// behavior3-ts's before it named them RetryUntil*) give up with the
// opposite status once maxLoop runs are used up: RepeatUntilFailure fails
// after maxLoop successes where botd's (Behavior3 0.3's) succeeds. They
// are read as Behavior3.RepeatUntilFailure and Behavior3.RepeatUntilSuccess,
// for a substitution to stand in for, and written back under their names;
// botd's own nodes of those names are written botd.RepeatUntilFailure.
func TestB3TreeRepeatUntilNames(t *testing.T) {
	src := `{"name": "t", "root": {"id": "1", "name": "Sequence", "children": [
	  {"id": "2", "name": "RepeatUntilFailure", "args": {"maxLoop": 3}, "children": [{"id": "3", "name": "Attack"}]},
	  {"id": "4", "name": "RepeatUntilSuccess", "args": {"maxLoop": 3}, "children": [{"id": "5", "name": "Attack"}]},
	  {"id": "6", "name": "botd.RepeatUntilFailure", "args": {"count": 2}, "children": [{"id": "7", "name": "JustFailure"}]}]}}`
	d := mustDecode(t, []byte(src))
	want := &bt.NodeDef{Type: "MemSequence", Children: []*bt.NodeDef{
		{Type: "Behavior3.RepeatUntilFailure", Params: map[string]any{"maxLoop": 3.0}, Children: []*bt.NodeDef{{Type: "Attack"}}},
		{Type: "Behavior3.RepeatUntilSuccess", Params: map[string]any{"maxLoop": 3.0}, Children: []*bt.NodeDef{{Type: "Attack"}}},
		{Type: "RepeatUntilFailure", Params: map[string]any{"count": 2.0}, Children: []*bt.NodeDef{{Type: "Fail"}}},
	}}
	if !reflect.DeepEqual(d.Trees["main"], want) {
		got, _ := d.JSON()
		t.Fatalf("got\n%s", got)
	}
	// Without a stand-in the home engine's node is unknown to botd.
	if _, err := d.Compile(missions.Options{}); !strings.Contains(problemLines(err), `unknown node type "Behavior3.RepeatUntilFailure"`) {
		t.Errorf("compile: %v", err)
	}
	runsToSuccess(t, d, missions.Options{Substitutions: starSucceed(t)})
	out := exportsBack(t, d, ExportB3Tree)
	flat := strings.Join(strings.Fields(string(out)), " ")
	for _, w := range []string{`"name": "RepeatUntilFailure", "args": { "maxLoop": 3 }`, `"name": "RepeatUntilSuccess"`, `"name": "botd.RepeatUntilFailure"`} {
		if !strings.Contains(flat, w) {
			t.Errorf("export lacks %s:\n%s", w, out)
		}
	}
}

// A tree file's own flags ("server": true in behavior3editor's 2020
// samples) carry no behaviour: behavior3-ts and behavior3lua read the
// root alone. An unknown member holding an object or a list (a misspelt
// "overrides", say) is refused.
func TestB3TreeFileFlags(t *testing.T) {
	d := mustDecode(t, []byte(`{"name": "monster101", "server": true, "owner": "ai team", "level": 3,
	  "root": {"id": 1, "name": "Sequence", "children": [{"id": 2, "name": "JustSuccess"}]}}`))
	if want := (&bt.NodeDef{Type: "MemSequence", Children: []*bt.NodeDef{{Type: "Succeed"}}}); !reflect.DeepEqual(d.Trees["main"], want) {
		got, _ := d.JSON()
		t.Errorf("got\n%s", got)
	}
	for _, c := range []struct{ member, want string }{
		{`"overides": {"abc": {"disabled": true}}`, `/overides: unknown member "overides" of a Behavior3 tree file (holding an object)`},
		{`"imports": ["vars.json"]`, `/imports: unknown member "imports" of a Behavior3 tree file (holding a list)`},
	} {
		_, err := missions.Decode([]byte(`{"name": "t", ` + c.member + `, "root": {"id": 1, "name": "JustSuccess"}}`))
		if got := problemLines(err); !strings.Contains(got, c.want) {
			t.Errorf("%s:\ngot %s\nwant ...%s", c.member, got, c.want)
		}
	}
}
