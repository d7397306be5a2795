package formats

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/missions"
)

// Every registered format writes a document that missions.Decode reads back to
// the same trees (the plan: a UAV mission), and missions.Export refuses a name
// no format registered.
func TestFormatsRoundTrip(t *testing.T) {
	if got := missions.FormatNames(); got != "b3|b3tree|botd|btcpp|plan" {
		t.Errorf("formats %s", got)
	}
	for _, f := range missions.Formats() {
		file := "../../configs/missions/hello.json"
		if f.Name == "plan" {
			file = "../../configs/missions/survey.json"
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		d := mustDecode(t, data)
		out, err := missions.Export(f.Name, d, missions.ExportOptions{Home: &[3]float64{47.397742, 8.545594, 488}})
		if err != nil {
			t.Errorf("%s: %v", f.Name, err)
			continue
		}
		back, err := missions.Decode(out)
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
		m1, err1 := d.Compile(missions.Options{})
		m2, err2 := back.Compile(missions.Options{})
		if err1 != nil || err2 != nil || m1.Tree.Len() != m2.Tree.Len() {
			t.Errorf("%s: compiled: %v, %v", f.Name, err1, err2)
		}
	}
	if _, err := missions.Export("yaml2", &missions.Document{}, missions.ExportOptions{}); err == nil || !strings.Contains(err.Error(), "want one of b3, b3tree, botd, btcpp, plan") {
		t.Errorf("an unknown format: %v", err)
	}
}

// Each document is claimed by exactly the format it is written in (none:
// botd's own), whatever order the formats were registered in: the
// detectors are disjoint.
func TestFormatsDetect(t *testing.T) {
	for file, want := range map[string]string{
		"../../configs/missions/hello.json":  "",
		"../../configs/missions/timers.yaml": "",
		"../testdata/corpus/btcpp-tests/" + firstFile(t, "../testdata/corpus/btcpp-tests", ".xml"): "btcpp",
		"../testdata/corpus/b3-classic/behavior3java-tree.json":                                    "b3",
		"../testdata/corpus/behavior3editor/workspace.b3-workspace":                                "b3tree",
		"../plan/testdata/flight.plan":                                                             "plan",
		"../testdata/corpus/behavior3editor/workdir/hero.json":                                     "b3tree",
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := claims(missions.NewSource(data, file, missions.Limits{})); got != want {
			t.Errorf("%s: claimed by %q, want %q", file, got, want)
		}
	}
	wpl := []byte("QGC WPL 110\n0\t1\t0\t16\t0\t0\t0\t0\t47.39\t8.54\t488\t1\n")
	if got := claims(missions.NewSource(wpl, "", missions.Limits{})); got != "plan" {
		t.Errorf("a waypoint file is claimed by %q", got)
	}
}

// missions.RegisterFormat refuses a name twice and a format that can be neither
// read nor written.
func TestRegisterFormatRefuses(t *testing.T) {
	for name, c := range map[string]missions.Codec{
		"twice":   {Name: "botd", Export: func(*missions.Document, missions.ExportOptions) ([]byte, error) { return nil, nil }},
		"nothing": {Name: "nothing"},
		"half":    {Name: "half", Detect: func(*missions.Source) bool { return false }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			missions.RegisterFormat(c)
		}()
	}
}

func firstFile(t *testing.T, dir, ext string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ext) {
			return e.Name()
		}
	}
	t.Fatalf("no %s file in %s", ext, dir)
	return ""
}

// claims lists the formats whose Detect claims s.
func claims(s *missions.Source) string {
	var claimed []string
	for _, f := range missions.Formats() {
		if f.Detect != nil && f.Detect(s) {
			claimed = append(claimed, f.Name)
		}
	}
	return strings.Join(claimed, ",")
}

func mustDecode(t testing.TB, data []byte) *missions.Document {
	t.Helper()
	d, err := missions.Decode(data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return d
}
