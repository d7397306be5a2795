package b3

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/missions"
)

// TestGolden runs every golden file: decode/ prints the decoded Behavior3
// document as botd JSON, b3export/ a botd document as a Behavior3
// project. An input that does not decode gives its problems.
func TestGolden(t *testing.T) {
	for _, dir := range []string{"decode", "b3export"} {
		paths, _ := filepath.Glob(filepath.Join("testdata", "golden", dir, "*.golden"))
		if len(paths) == 0 {
			t.Fatalf("no golden files in %s", dir)
		}
		for _, path := range paths {
			t.Run(dir+"/"+filepath.Base(path), func(t *testing.T) {
				in, want := readGolden(t, path)
				got, err := goldenOutput(dir, in)
				if err != nil {
					t.Fatal(err)
				}
				checkGolden(t, path, in, want, got)
			})
		}
	}
}

func goldenOutput(dir string, in []byte) ([]byte, error) {
	d, err := missions.Decode(in)
	if err != nil {
		return []byte(problemLines(err)), nil
	}
	if dir == "b3export" {
		return ExportB3(d)
	}
	return d.JSON()
}

// checkGolden compares got with the expected part, or rewrites it with -update.
func checkGolden(t *testing.T, path string, in, want, got []byte) {
	t.Helper()
	if *update {
		out := append(append(append([]byte{}, in...), goldenSep...), got...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: output differs (go test -run %s -update to accept)\n--- got ---\n%s\n--- want ---\n%s", path, t.Name(), got, want)
	}
}

// TestInvalidMissions loads every file in testdata/invalid under the
// daemon's limits and compares the problems with the expected ones
// written after the file's "-- want --" line.
func TestInvalidMissions(t *testing.T) {
	opts := missions.Options{Registry: catalog.NewRegistry(), MinTickHz: 1, MaxTickHz: 100}
	paths, _ := filepath.Glob(filepath.Join("testdata", "invalid", "*"))
	if len(paths) == 0 {
		t.Fatal("no invalid missions")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, want := readGolden(t, path)
			m, err := missions.Load(in, opts)
			if err == nil || m != nil {
				t.Fatalf("Load accepted an invalid mission (mission %v, error %v)", m != nil, err)
			}
			checkGolden(t, path, in, want, []byte(problemLines(err)))
		})
	}
}
