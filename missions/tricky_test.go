package missions

import (
	"reflect"
	"testing"

	"github.com/botd-project/botd/bt"
)

// TestRoundTripTrickyStrings covers strings YAML would read as something
// else if they were written unquoted.
func TestRoundTripTrickyStrings(t *testing.T) {
	tricky := []string{"<<", "", " ", "~", "null", "Null", "true", "yes", "no", "on", "off", "y", "n", "0x10", "0o17", "1_000",
		".inf", "-.inf", ".nan", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "1e3", "+1", "- a", "? a", ": a", "a: b", "#x", "!tag", "&a", "*a",
		"|", ">", "'", "\"", "{key}", "[1]", "%x", "@x", "`x", "\t", "\n", "a\nb", "ü", "\u2028", "=", "010", "0b1", "1:20"}
	bb := map[string]any{}
	for i, s := range tricky {
		bb[s] = s
		bb["v"+string(rune('A'+i))] = []any{s, map[string]any{s: s}}
	}
	d := &Document{Format: Format, Name: "<<", Main: "<<", Blackboard: bb,
		Trees: map[string]*bt.NodeDef{"<<": {Type: "Log", Name: "yes", Params: bb}}}
	y, err := d.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(y)
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	if !reflect.DeepEqual(back, d) {
		for k, v := range back.Blackboard {
			if !reflect.DeepEqual(v, d.Blackboard[k]) {
				t.Errorf("%q: %#v became %#v", k, d.Blackboard[k], v)
			}
		}
		t.Fatalf("YAML round trip changed the document:\n%s", y)
	}
}
