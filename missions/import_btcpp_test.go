package missions

import (
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

func TestBTCPPBuiltinsCompile(t *testing.T) {
	in, _ := readGolden(t, "testdata/golden/decode/btcpp_builtins.golden")
	subs := map[string]string{"ComputePath": "Succeed", "PathValid": "Succeed", "ClearCostmap": "Succeed"}
	_, err := Load(in, Options{Registry: bt.NewRegistry(), Substitute: subs})
	got := problemLines(err)
	// bt reports Expr compile errors under the canonical parameter name
	// (expr), not the alias the document uses (code).
	if !strings.HasPrefix(got, "VALIDATION_FAILED /trees/Main/children/3/params/") || strings.Count(got, "\n") != 1 {
		t.Errorf("want one problem, in the two-statement Script; got\n%s", got)
	}
}

// TestBTCPPNamesAreAliases checks that the registry itself accepts every
// BT.CPP built-in name and port the importer maps, so a document that
// keeps the BT.CPP spelling still compiles (to botd's semantics).
func TestBTCPPNamesAreAliases(t *testing.T) {
	reg := bt.NewRegistry()
	for name, m := range btcppBuiltins {
		nt, ok := reg.Lookup(name)
		if !ok {
			t.Errorf("registry has no type or alias %q", name)
			continue
		}
		to, ok := reg.Lookup(m.to)
		if !ok || to.Name != m.to {
			t.Errorf("%s maps to %q, which is not a canonical type", name, m.to)
		}
		for from, toParam := range m.ports {
			p := nt.Param(from)
			if p == nil || p.Name != toParam {
				t.Errorf("%s: registry does not accept port %q as parameter %q", name, from, toParam)
			}
		}
	}
}

func TestScriptNode(t *testing.T) {
	for _, tc := range []struct {
		code, typ string
		params    map[string]any
	}{
		{"mode := 'auto'", "Set", map[string]any{"key": "mode", "value": "auto"}},
		{"@count = 3;", "Set", map[string]any{"key": "count", "value": 3.0}},
		{"armed:=true", "Set", map[string]any{"key": "armed", "value": true}},
		{`msg := "a=b"`, "Set", map[string]any{"key": "msg", "value": "a=b"}},
		{"x := y + 1", "Script", map[string]any{"code": "x := y + 1"}},
		{"a := 1; b := 2", "Script", map[string]any{"code": "a := 1; b := 2"}},
		{"x += 1", "Script", map[string]any{"code": "x += 1"}},
		{"battery >= 20 && mode != 'manual'", "Expr", map[string]any{"expr": "battery >= 20 && mode != 'manual'"}},
		{"name == 'a=b'", "Expr", map[string]any{"expr": "name == 'a=b'"}},
		{"  ", "Script", map[string]any{"code": "  "}},
	} {
		typ, params := scriptNode(tc.code)
		if typ != tc.typ || !reflect.DeepEqual(params, tc.params) {
			t.Errorf("scriptNode(%q) = %s %v, want %s %v", tc.code, typ, params, tc.typ, tc.params)
		}
	}
}

func TestAttrValue(t *testing.T) {
	for in, want := range map[string]any{
		"1": 1.0, "-0.5": -0.5, "1e3": 1000.0, ".25": 0.25, "+2": 2.0,
		"true": true, "false": false, "True": true, "FALSE": false, "yes": "yes",
		"{goal}": "{goal}", "0x10": "0x10", "inf": "inf", "NaN": "NaN", "1e999": "1e999",
		"1;2;3": "1;2;3", "": "", "GridBased": "GridBased", " 1": " 1",
	} {
		if got := attrValue(in); got != want {
			t.Errorf("attrValue(%q) = %#v, want %#v", in, got, want)
		}
	}
}

func TestBTCPPMainTree(t *testing.T) {
	for _, tc := range []struct{ xml, main string }{
		{`<root BTCPP_format="4"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree><BehaviorTree ID="B"><AlwaysSuccess/></BehaviorTree></root>`, "A"},
		{`<root BTCPP_format="4" main_tree_to_execute="B"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree><BehaviorTree ID="B"><A/></BehaviorTree></root>`, "B"},
		{`<?xml version="1.0"?><root><BehaviorTree ID="Only"><Sleep msec="5"/></BehaviorTree></root>`, "Only"},
	} {
		d := mustDecode(t, []byte(tc.xml))
		if d.Main != tc.main {
			t.Errorf("main = %q, want %q in %s", d.Main, tc.main, tc.xml)
		}
		if _, err := d.Compile(Options{}); err != nil {
			t.Errorf("%s: %v", tc.xml, err)
		}
	}
	// An element named after a tree of the document runs that tree.
	d := mustDecode(t, []byte(`<root BTCPP_format="4" main_tree_to_execute="B"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree><BehaviorTree ID="B"><A name="run a"/></BehaviorTree></root>`))
	want := &bt.NodeDef{Type: "SubTree", Name: "run a", Params: map[string]any{"tree": "A"}}
	if !reflect.DeepEqual(d.Trees["B"], want) {
		t.Errorf("tree B = %+v, want %+v", d.Trees["B"], want)
	}
}
