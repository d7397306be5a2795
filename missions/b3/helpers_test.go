package b3

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

var update = flag.Bool("update", false, "rewrite the expected part of golden files")

// corpusDir is missions' public corpus (its README names the sources).
const corpusDir = "../testdata/corpus"

// goldenSep separates a golden file's input from its expected output.
const goldenSep = "-- want --\n"

// readGolden splits a golden file into input and expected output.
func readGolden(t *testing.T, path string) (in, want []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("\n"+goldenSep))
	if i < 0 {
		t.Fatalf("%s: no %q line", path, strings.TrimSpace(goldenSep))
	}
	return data[:i+1], data[i+1+len(goldenSep):]
}

// problemLines renders an error as one "CODE path: message" line per
// problem, the form the expected problems are written in.
func problemLines(err error) string {
	if err == nil {
		return ""
	}
	var ps bt.Problems
	if !errors.As(err, &ps) {
		return "NOT PROBLEMS: " + err.Error() + "\n"
	}
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s %s: %s\n", p.Code, p.Path, p.Message)
	}
	return b.String()
}

func mustDecode(t testing.TB, data []byte) *missions.Document {
	t.Helper()
	d, err := missions.Decode(data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return d
}

// runToEnd ticks a mission's agent until its root completes.
func runToEnd(t *testing.T, m *missions.Mission) bt.Status {
	t.Helper()
	a := bt.NewAgent(m.Tree, 0, 0)
	for k := int64(1); k < 100; k++ {
		if st := a.Tick(k * 50e6); st != bt.Running {
			return st
		}
	}
	return bt.Running
}

// runsToSuccess compiles d with opts and runs it to its end, which must be
// SUCCESS.
func runsToSuccess(t *testing.T, d *missions.Document, opts missions.Options) {
	t.Helper()
	m, err := d.Compile(opts)
	if err != nil {
		t.Fatal(err)
	}
	if st := runToEnd(t, m); st != bt.Success {
		t.Errorf("run: %v", st)
	}
}

// exportsBack exports d with export and checks that the export decodes to
// the same trees; it returns the export.
func exportsBack(t *testing.T, d *missions.Document, export func(*missions.Document) ([]byte, error)) []byte {
	t.Helper()
	out, err := export(d)
	if err != nil {
		t.Fatal(err)
	}
	if d2 := mustDecode(t, out); !reflect.DeepEqual(d.Trees, d2.Trees) {
		t.Errorf("round trip differs:\n%s", out)
	}
	return out
}

func starSucceed(t *testing.T) missions.Substitutions {
	subs, err := missions.ParseSubstitutions("*=Succeed")
	if err != nil {
		t.Fatal(err)
	}
	return subs
}

// checkOutcome fails unless an import gave a document or problems.
func checkOutcome(t *testing.T, d *missions.Document, ps *missions.Problems) {
	t.Helper()
	err := ps.Err()
	if err == nil {
		if d == nil {
			t.Fatal("no document and no problem")
		}
		return
	}
	var list bt.Problems
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("a failure that is not a list of problems: %v", err)
	}
}
