package missions

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
)

// KeyUses reads what the node types declare: how a mission uses a key.
func TestKeyUses(t *testing.T) {
	reg := catalog.NewRegistry()
	reg.Register(bt.NodeType{Name: "Armed", Kind: bt.Leaf, Params: []bt.Param{{Name: "on", Type: bt.TBool}},
		New: func(*bt.Builder) bt.Behavior { return nil }})
	node := func(typ, params string) string { return fmt.Sprintf(`{"type":%q,"params":%s}`, typ, params) }
	cases := []struct {
		node, want string
	}{
		{node("Wait", `{"ms":"{k}"}`), "number reads /trees/main/children/1/params/ms"},
		{node("Sleep", `{"ms":"{k}"}`), "number reads /trees/main/children/1/params/ms"},
		{node("Armed", `{"on":"{k}"}`), "boolean reads /trees/main/children/1/params/on"},
		{node("Check", `{"key":"k","op":">","value":3}`), "number compares /trees/main/children/1/params/op"},
		{node("Check", `{"key":"other","op":"<=","value":"{k}"}`), "number compares /trees/main/children/1/params/op"},
		{node("Check", `{"key":"other","op":">=","other_key":"k"}`), "number compares /trees/main/children/1/params/op"},
		{node("Check", `{"key":"k","op":"==","value":"fast"}`), "string compares /trees/main/children/1/params/value"},
		{node("Check", `{"key":"k","value":true}`), "boolean compares /trees/main/children/1/params/value"},
		{node("Check", `{"key":"k","op":"!=","value":"{other}"}`), ""},
		{node("Check", `{"key":"k","other_key":"x"}`), ""},
		{node("Set", `{"key":"k","value":2}`), "number writes /trees/main/children/1/params/value"},
		{node("Set", `{"output_key":"k","value":"x"}`), "string writes /trees/main/children/1/params/value"},
		{node("Set", `{"key":"k","value":"{other}"}`), ""},
		{node("Log", `{"message":"{k}"}`), ""}, // a string parameter formats any value
		{node("Wait", `{"ms":"{kk}"}`), ""},
		{node("Wait", `{"ms":"{tree:k}"}`), ""},
	}
	for _, c := range cases {
		var doc Document
		src := `{"main":"main","trees":{"main":{"type":"Sequence","children":[{"type":"Succeed"},` + c.node + `]}}}`
		if err := json.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range KeyUses(&doc, reg, "k") {
			got = append(got, fmt.Sprintf("%s %s %s", u.Kind, u.How, u.Where))
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("%s: %q, want %q", c.node, got, c.want)
		}
	}
	doc := Document{Blackboard: map[string]any{"k": false}}
	if u := KeyUses(&doc, reg, "k"); len(u) != 1 || u[0].Kind != bt.KindBool || u[0].Where != "/blackboard/k" {
		t.Errorf("initial blackboard: %+v", u)
	}
}
