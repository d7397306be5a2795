package b3

import (
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// missions.Decode reads every Behavior3 shape once this package is linked.
func TestDecodeDetectsFormat(t *testing.T) {
	b3Tree := `{"scope": "tree", "id": "t1", "title": "solo", "root": "n1",
		"nodes": {"n1": {"id": "n1", "name": "Wait", "properties": {"milliseconds": 5}}}}`
	b3Project := `{"scope": "project", "trees": [` + b3Tree + `]}`
	for _, tc := range []struct {
		name, in string
	}{
		{"Behavior3 tree", b3Tree},
		{"Behavior3 tree without scope", strings.Replace(b3Tree, `"scope": "tree", `, "", 1)},
		{"Behavior3 project", b3Project},
		{"Behavior3 desktop project", `{"name": "solo", "description": "", "data": ` + b3Project + `, "path": "/tmp/solo.b3"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := missions.Decode([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			want := &bt.NodeDef{Type: "Wait", Params: map[string]any{"ms": 5.0}}
			if d.Main != "solo" || !reflect.DeepEqual(d.Trees["solo"], want) || d.Format != missions.Format {
				t.Errorf("got main %q, trees %v", d.Main, d.Trees)
			}
		})
	}
}
