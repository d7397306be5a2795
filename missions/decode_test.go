package missions

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
)

// The Behavior3 shapes are missions/b3's TestDecodeDetectsFormat,
// BehaviorTree.CPP XML missions/btcpp's.
func TestDecodeDetectsFormat(t *testing.T) {
	for _, tc := range []struct {
		name, in string
	}{
		{"botd JSON", `{"format": "botd/mission@1", "main": "solo", "trees": {"solo": {"type": "Wait", "params": {"ms": 5}}}}`},
		{"botd YAML", "format: botd/mission@1\nmain: solo\ntrees:\n  solo: {type: Wait, params: {ms: 5}}\n"},
		{"botd YAML, flow style on one line", "{format: botd/mission@1, main: solo, trees: {solo: {type: Wait, params: {ms: 5}}}}"},
		{"with a byte order mark", "\xef\xbb\xbf" + `{"format": "botd/mission@1", "main": "solo", "trees": {"solo": {"type": "Wait", "params": {"ms": 5}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode([]byte(tc.in))
			if tc.name == "botd YAML, flow style on one line" {
				// A document that starts with '{' is JSON: flow-style
				// YAML at the top level is refused with a JSON error.
				if got := problemLines(err); !strings.HasPrefix(got, "INVALID_JSON : invalid JSON at line 1, column 2") {
					t.Fatalf("got %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := &bt.NodeDef{Type: "Wait", Params: map[string]any{"ms": 5.0}}
			if d.Main != "solo" || !reflect.DeepEqual(d.Trees["solo"], want) || d.Format != Format {
				t.Errorf("got main %q, trees %v", d.Main, d.Trees)
			}
		})
	}
}

func TestDecodeSizeLimit(t *testing.T) {
	head := []byte(`{"format": "botd/mission@1", "main": "m", "trees": {"m": {"type": "Succeed"}}}`)
	pad := func(n int) []byte {
		return append(append([]byte{}, head...), bytes.Repeat([]byte(" "), n-len(head))...)
	}
	if _, err := Decode(pad(MaxDocumentBytes)); err != nil {
		t.Errorf("a document of exactly MaxDocumentBytes: %v", err)
	}
	_, err := Decode(pad(MaxDocumentBytes + 1))
	want := "TOO_LARGE : the document is 1048577 bytes, above the limit of 1048576\n"
	if got := problemLines(err); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDecodeNormalizesValues(t *testing.T) {
	want := map[string]any{
		"int": 3.0, "neg": -2.0, "float": 0.25, "big": 1e21, "bool": true, "str": "{key}", "null": nil,
		"list": []any{1.0, "a", []any{}, map[string]any{}}, "obj": map[string]any{"x": 1.0, "y": []any{2.0}},
	}
	jsonDoc := `{"format": "botd/mission@1", "main": "m", "blackboard": %s,
		"trees": {"m": {"type": "Set", "params": %s}}}`
	values := `{"int": 3, "neg": -2, "float": 0.25, "big": 1e21, "bool": true, "str": "{key}", "null": null,
		"list": [1, "a", [], {}], "obj": {"x": 1.0, "y": [2]}}`
	yamlDoc := "format: botd/mission@1\nmain: m\nblackboard: &v\n  int: 0x3\n  neg: -2\n  float: 2.5e-1\n  big: 1000000000000000000000\n" +
		"  bool: true\n  str: '{key}'\n  null: ~\n  list: [1, a, [], {}]\n  obj: {x: 1.0, y: [2]}\n" +
		"trees:\n  m: {type: Set, params: *v}\n"
	for name, in := range map[string]string{
		"JSON": strings.ReplaceAll(strings.Replace(jsonDoc, "%s", values, 1), "%s", values),
		"YAML": yamlDoc,
	} {
		d, err := Decode([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(d.Blackboard, want) {
			t.Errorf("%s blackboard = %#v\nwant %#v", name, d.Blackboard, want)
		}
		if !reflect.DeepEqual(d.Trees["m"].Params, want) {
			t.Errorf("%s params = %#v\nwant %#v", name, d.Trees["m"].Params, want)
		}
	}
}

func TestDecodeWholeNumbers(t *testing.T) {
	d := mustDecode(t, []byte(`{"format": "botd/mission@1", "revision": 9007199254740993, "seed": 18446744073709551615, "main": "m", "trees": {"m": {"type": "Succeed"}}}`))
	if d.Revision != 9007199254740993 || d.Seed != 18446744073709551615 {
		t.Errorf("revision %d, seed %d: large whole numbers must be exact", d.Revision, d.Seed)
	}
	d = mustDecode(t, []byte("format: botd/mission@1\nrevision: 1e3\nseed: 0x10\nmain: m\ntrees: {m: {type: Succeed}}\n"))
	if d.Revision != 1000 || d.Seed != 16 {
		t.Errorf("revision %d, seed %d", d.Revision, d.Seed)
	}
}

func TestDecodeNullIsAbsent(t *testing.T) {
	d := mustDecode(t, []byte(`{"format": "botd/mission@1", "id": null, "name": null, "blackboard": null, "main": "m",
		"trees": {"m": {"type": "Succeed", "params": null, "children": null}}, "on_link_loss": null}`))
	if !reflect.DeepEqual(d, &Document{Format: Format, Main: "m", Trees: map[string]*bt.NodeDef{"m": {Type: "Succeed"}}}) {
		t.Errorf("got %+v", d)
	}
}

func TestDecodeEmptyContainers(t *testing.T) {
	// Empty objects and lists decode like absent ones, so documents that
	// differ only in how they say "nothing" are equal (and hash alike).
	d := mustDecode(t, []byte(`{"format": "botd/mission@1", "blackboard": {}, "main": "m",
		"trees": {"m": {"type": "Sequence", "params": {}, "children": [{"type": "Succeed", "children": []}]}}}`))
	want := &Document{Format: Format, Main: "m", Trees: map[string]*bt.NodeDef{"m": {Type: "Sequence", Children: []*bt.NodeDef{{Type: "Succeed"}}}}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("got %+v", d)
	}
}

func TestDecodeCanonicalID(t *testing.T) {
	for _, id := range []string{"2F6B0C1E-6C1A-4A55-9D0E-1B3F1C8F5A10", "urn:uuid:2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10", "{2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10}", "2f6b0c1e6c1a4a559d0e1b3f1c8f5a10"} {
		d := mustDecode(t, []byte(`{"format": "botd/mission@1", "id": "`+id+`", "main": "m", "trees": {"m": {"type": "Succeed"}}}`))
		if d.ID != "2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10" {
			t.Errorf("%s: id %q", id, d.ID)
		}
	}
}

func TestDecodeLimitsNesting(t *testing.T) {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	for name, in := range map[string]string{
		"JSON": `{"format": "botd/mission@1", "blackboard": {"x": ` + deep + `}}`,
		"YAML": "format: botd/mission@1\nblackboard:\n  x: " + deep + "\n",
	} {
		_, err := Decode([]byte(in))
		if got := problemLines(err); !strings.HasPrefix(got, "TOO_LARGE ") || !strings.Contains(got, "nesting deeper than 256 levels") {
			t.Errorf("%s: got %q", name, got)
		}
	}
}

func TestDecodeYAMLAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("format: botd/mission@1\nblackboard:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		b.WriteString("  a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	_, err := Decode([]byte(b.String()))
	if got := problemLines(err); !strings.Contains(got, "TOO_LARGE") || !strings.Contains(got, "YAML aliases") {
		t.Errorf("got %q", got)
	}
}

func TestDecodeEmpty(t *testing.T) {
	for _, in := range []string{"", "  \n\t", "# only a comment\n", "\xef\xbb\xbf"} {
		_, err := Decode([]byte(in))
		if got := problemLines(err); !strings.HasPrefix(got, "INVALID_JSON ") {
			t.Errorf("%q: got %q", in, got)
		}
	}
}
