package b3

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/missions"
)

// seedFiles adds the committed documents matching patterns (golden files
// contribute their input part).
func seedFiles(f *testing.F, patterns ...string) {
	for _, pattern := range patterns {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			if i := bytes.Index(data, []byte("\n"+goldenSep)); i >= 0 {
				data = data[:i+1]
			}
			f.Add(data)
		}
	}
}

// fuzzLimits are small, so the fuzzer reaches them.
var fuzzLimits = missions.Limits{Values: 2000, Depth: 32, StringBytes: 512, Nodes: 500}

// FuzzBehavior3 feeds the Behavior3 importer (trees, projects, the
// desktop editor's wrapper) with JSON objects.
func FuzzBehavior3(f *testing.F) {
	seedFiles(f, filepath.Join("testdata", "golden", "decode", "b3_*"), filepath.Join("testdata", "fuzz-seeds", "*.b3.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps := missions.NewProblems(fuzzLimits)
		v, ok := missions.ParseJSON(data, ps)
		if !ok {
			checkOutcome(t, nil, ps)
			return
		}
		o, isObj := v.(*missions.Object)
		if !isObj || !isB3(o) {
			return
		}
		checkOutcome(t, decodeB3(o, ps), ps)
	})
}

// FuzzB3Tree feeds the current Behavior3 editor's importer (tree files
// and workspaces, read as bytes: no file is read) and exports what it
// imports: the export must read back.
func FuzzB3Tree(f *testing.F) {
	seedFiles(f, filepath.Join(corpusDir, "behavior3-ts", "*.json"), filepath.Join(corpusDir, "behavior3editor", "workdir", "*.json"),
		filepath.Join(corpusDir, "behavior3editor", "*.b3-workspace"), filepath.Join(corpusDir, "vscode-behavior3", "vars", "*.json"),
		filepath.Join(corpusDir, "behavior3lua", "trees", "*.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps := missions.NewProblems(fuzzLimits)
		v, ok := missions.ParseJSON(data, ps)
		if !ok {
			checkOutcome(t, nil, ps)
			return
		}
		o, isObj := v.(*missions.Object)
		if !isObj || (!isB3Tree(o) && !isB3Workspace(o)) {
			return
		}
		d := decodeB3Tree(o, "", isB3Workspace(o), ps)
		checkOutcome(t, d, ps)
		if ps.Err() != nil {
			return
		}
		out, err := ExportB3Tree(d)
		if err != nil {
			return // a SubTree of a missing tree, a recursion: the compiler's to report
		}
		if _, err := missions.Decode(out); err != nil && !strings.Contains(err.Error(), "read only for a file read from disk") {
			t.Fatalf("the export does not read back: %v\n%s", err, out)
		}
	})
}
