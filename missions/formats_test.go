package missions

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// Every registered format writes a document that Decode reads back to
// the same trees (the plan: a UAV mission), and Export refuses a name
// no format registered.
func TestFormatsRoundTrip(t *testing.T) {
	if got := FormatNames(); got != "btcpp|b3|b3tree|botd|plan" {
		t.Errorf("formats %s", got)
	}
	for _, f := range Formats() {
		file := "../configs/missions/hello.json"
		if f.Name == "plan" {
			file = "../configs/missions/survey.json"
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		d := mustDecode(t, data)
		out, err := Export(f.Name, d, ExportOptions{Home: &[3]float64{47.397742, 8.545594, 488}})
		if err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		back, err := Decode(out)
		if err != nil {
			t.Errorf("%s: the export does not read back: %v\n%s", f.Name, err, out)
			continue
		}
		if f.Name == "plan" {
			// A plan is flown by a generated tree: its waypoints, not the
			// same nodes.
			if back.Trees[back.Main] == nil {
				t.Errorf("plan: no main tree")
			}
			continue
		}
		// botd's own format and BT.CPP keep every node as it was; the
		// Behavior3 formats name some of botd's nodes their own way
		// (botd.Log) and read back to a tree of the same shape.
		if (f.Name == "botd" || f.Name == "btcpp") && !reflect.DeepEqual(back.Trees, d.Trees) {
			t.Errorf("%s: the export reads back to other trees:\n%s", f.Name, out)
		}
		m1, err1 := d.Compile(Options{})
		m2, err2 := back.Compile(Options{})
		if err1 != nil || err2 != nil || m1.Tree.Len() != m2.Tree.Len() {
			t.Errorf("%s: compiled: %v, %v", f.Name, err1, err2)
		}
	}
	if _, err := Export("yaml2", &Document{}, ExportOptions{}); err == nil || !strings.Contains(err.Error(), "want one of btcpp, b3, b3tree, botd, plan") {
		t.Errorf("an unknown format: %v", err)
	}
}
