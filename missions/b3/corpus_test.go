package b3

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// The Behavior3 files of missions' public corpus (its sources and
// licenses in the README there): every file is loaded with '*=Succeed',
// run to its end (at most 100 ticks), and round-tripped through the
// export of its format to the same tree and compiled tree.
// testdata/corpus-results.txt holds the outcome of every file (`go test
// -run TestCorpus -update` rewrites it); the test fails when an outcome
// changes.

// corpusFile is one corpus file and how it is read.
type corpusFile struct {
	path  string // relative to corpusDir
	group string // b3tree (the current Behavior3 editor), b3 (0.3)
}

func corpusFiles(t *testing.T) []corpusFile {
	var out []corpusFile
	add := func(pattern, group string) {
		paths, err := filepath.Glob(filepath.Join(corpusDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			rel, _ := filepath.Rel(corpusDir, p)
			out = append(out, corpusFile{path: filepath.ToSlash(rel), group: group})
		}
	}
	add("behavior3editor/workspace.b3-workspace", "b3tree")
	add("behavior3editor/*/*.json", "b3tree")
	add("behavior3editor/workdir/sub/*.json", "b3tree")
	add("behavior3editor-2020/workspace.json", "b3tree")
	add("behavior3editor-2020/workdir/*.json", "b3tree")
	add("behavior3editor-2020-11/workdir/*.json", "b3tree")
	add("behavior3-ts/*.b3-workspace", "b3tree")
	add("behavior3-ts/*.json", "b3tree")
	add("behavior3lua/*.b3-workspace", "b3tree")
	add("behavior3lua/trees/*.json", "b3tree")
	add("behavior3lua-2020/workspace.json", "b3tree")
	add("behavior3lua-2020/trees/*.json", "b3tree")
	add("vscode-behavior3/*.b3-workspace", "b3tree")
	add("vscode-behavior3/*/*.json", "b3tree")
	add("vscode-behavior3/workdir/sub/*.json", "b3tree")
	add("b3-classic/*.json", "b3")
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// corpusOutcome loads, runs and round-trips one file; "" when it passes,
// else the first reason it does not.
func corpusOutcome(t *testing.T, f corpusFile, subs missions.Substitutions) string {
	path := filepath.Join(corpusDir, filepath.FromSlash(f.path))
	opts := missions.Options{Substitutions: subs}
	m, err := missions.LoadFile(path, opts)
	if err != nil {
		return "load: " + firstProblem(err)
	}
	if st := runToEnd(t, m); st == bt.Error {
		return "run: ERROR"
	}
	var out []byte
	if f.group == "b3tree" {
		out, err = ExportB3Tree(m.Doc)
	} else {
		out, err = ExportB3(m.Doc)
	}
	if err != nil {
		return "export: " + err.Error()
	}
	readAs := path
	if ws := strings.HasSuffix(path, ".b3-workspace") || filepath.Base(path) == "workspace.json"; ws {
		// The export is the main tree's file.
		readAs = filepath.Join(b3WorkspaceDir(path, true), filepath.FromSlash(m.Doc.Main))
	}
	d2, err := missions.DecodeAs(out, readAs, missions.Limits{}, nil)
	if err != nil {
		return "export reads back: " + firstProblem(err)
	}
	if f.group == "b3tree" {
		// A tree file holds one tree: compare the main tree and those it calls.
		if !reflect.DeepEqual(m.Doc.Trees[m.Doc.Main], d2.Trees[d2.Main]) {
			return "export reads back as another tree"
		}
	} else if !reflect.DeepEqual(m.Doc.Trees, d2.Trees) || m.Doc.Main != d2.Main {
		return "export reads back as another document"
	}
	m2, err := d2.Compile(opts)
	if err != nil {
		return "export compiles: " + firstProblem(err)
	}
	if a, b := treeTable(m.Tree), treeTable(m2.Tree); a != b {
		return "export compiles to another tree"
	}
	return ""
}

func treeTable(t *bt.Tree) string {
	var b strings.Builder
	for i := 0; i < t.Len(); i++ {
		n := t.Node(i)
		b.WriteString(strings.Join([]string{n.ID, n.Type.Name, n.Name, n.Path}, " ") + "\n")
	}
	return b.String()
}

func firstProblem(err error) string {
	line, _, _ := strings.Cut(problemLines(err), "\n")
	return line
}

func TestCorpus(t *testing.T) {
	subs := starSucceed(t)
	var b strings.Builder
	// By format group and by source (the corpus folder): files, files
	// that load, and files that also run without ERROR and round-trip.
	total, loads, ok := map[string]int{}, map[string]int{}, map[string]int{}
	files := corpusFiles(t)
	if len(files) == 0 {
		t.Fatalf("no Behavior3 files in %s", corpusDir)
	}
	for _, f := range files {
		why := corpusOutcome(t, f, subs)
		source := "  " + strings.SplitN(f.path, "/", 2)[0]
		for _, k := range []string{f.group, f.group + source} {
			total[k]++
			if !strings.HasPrefix(why, "load:") {
				loads[k]++
			}
			if why == "" {
				ok[k]++
			}
		}
		if why == "" {
			why = "ok"
		}
		fmt.Fprintf(&b, "%s: %s\n", f.path, why)
	}
	groups := sortedKeys(total)
	fmt.Fprintln(&b)
	pc := func(n, of int) string { return fmt.Sprintf("%d of %d (%.1f %%)", n, of, 100*float64(n)/float64(of)) }
	for _, g := range groups {
		fmt.Fprintf(&b, "%s: load %s; run and round-trip %s\n", g, pc(loads[g], total[g]), pc(ok[g], total[g]))
	}
	path := filepath.Join("testdata", "corpus-results.txt")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("outcomes changed (go test -run %s -update to accept):\n--- got ---\n%s", t.Name(), got)
	}
	for _, g := range groups {
		t.Logf("%s: %d of %d files load, %d run and round-trip", g, loads[g], total[g], ok[g])
	}
}
