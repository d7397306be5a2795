package missions

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/botd-project/botd/bt"
)

// roundTripInputs returns every decodable document the tests know:
// golden inputs and the example missions (missions/btcpp's TestRoundTrip
// round-trips its golden inputs and the BT.CPP fixtures).
func roundTripInputs(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	golden, _ := filepath.Glob(filepath.Join("testdata", "golden", "*", "*.golden"))
	for _, p := range golden {
		in, _ := readGolden(t, p)
		out[p] = in
	}
	more, _ := filepath.Glob(filepath.Join("..", "configs", "missions", "*"))
	for _, p := range more {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = data
	}
	return out
}

// TestRoundTrip is the conformance suite of habit 7 for the native
// formats: every document Decode accepts, whatever its source format,
// survives JSON and YAML without loss.
func TestRoundTrip(t *testing.T) {
	n := 0
	for name, in := range roundTripInputs(t) {
		d, err := Decode(in)
		if err != nil {
			continue
		}
		d.Origin = nil // what an imported file's format keeps of it: no other format does
		n++
		for format, enc := range map[string]func() ([]byte, error){"JSON": d.JSON, "YAML": d.YAML} {
			out, err := enc()
			if err != nil {
				t.Errorf("%s: %s: %v", name, format, err)
				continue
			}
			back, err := Decode(out)
			if err != nil {
				t.Errorf("%s: decoding its %s: %v\n%s", name, format, err, out)
				continue
			}
			if !reflect.DeepEqual(back, d) {
				t.Errorf("%s: %s round trip changed the document\n%s", name, format, out)
			}
			if Canonical(back) == nil || string(Canonical(back)) != string(Canonical(d)) {
				t.Errorf("%s: %s round trip changed the canonical bytes", name, format)
			}
		}
	}
	if n < 5 {
		t.Errorf("only %d documents round-tripped", n)
	}
}

func TestCanonical(t *testing.T) {
	a := mustDecode(t, []byte(`{"trees": {"m": {"params": {"ms": 5, "b": [1, {"z": 1, "a": "<&>"}]}, "type": "Wait"}},
		"main": "m", "format": "botd/mission@1", "tick_hz": 20}`))
	b := mustDecode(t, []byte("format: botd/mission@1\ntick_hz: 20.0\nmain: m\ntrees:\n  m:\n    type: Wait\n    params:\n      b: [1, {a: '<&>', z: 1}]\n      ms: 5\n"))
	want := `{"format":"botd/mission@1","main":"m","revision":0,"tick_hz":20,"trees":{"m":{"params":{"b":[1,{"a":"<&>","z":1}],"ms":5},"type":"Wait"}}}`
	if got := string(Canonical(a)); got != want {
		t.Errorf("Canonical =\n%s\nwant\n%s", got, want)
	}
	if a.Hash() != b.Hash() {
		t.Error("the same mission in JSON and YAML hashes differently")
	}
	b.Trees["m"].Params["ms"] = 6.0
	if a.Hash() == b.Hash() {
		t.Error("different missions hash alike")
	}
	if len(a.Hash()) != 64 {
		t.Errorf("Hash %q is not hex SHA-256", a.Hash())
	}
	bad := &Document{Format: Format, Blackboard: map[string]any{"x": math.NaN()}}
	if Canonical(bad) != nil {
		t.Error("Canonical of a document holding NaN should be nil")
	}
}

func TestJSONIsReadable(t *testing.T) {
	d := &Document{Format: Format, Main: "m", Trees: map[string]*bt.NodeDef{"m": {Type: "Check", Params: map[string]any{"key": "a", "op": "<", "value": 1.0}}}}
	out, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "format": "botd/mission@1",
  "revision": 0,
  "main": "m",
  "trees": {
    "m": {
      "type": "Check",
      "params": {
        "key": "a",
        "op": "<",
        "value": 1
      }
    }
  }
}
`
	if string(out) != want {
		t.Errorf("JSON =\n%s\nwant\n%s", out, want)
	}
}
