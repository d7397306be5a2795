package btcpp

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

// The public corpus (testdata/corpus, its sources and licenses in the
// README there): every BehaviorTree.CPP, Nav2 and MoveIt Pro
// file is loaded with '*=Succeed', run to its end (at most 100 ticks),
// and round-tripped through the BT.CPP export to the same document and
// compiled tree (the Behavior3 files are missions/b3's corpus, its
// outcomes in its testdata). testdata/corpus/results.txt holds the
// outcome of every file (`go test -run TestCorpus -update` rewrites it);
// the test fails when an outcome changes. The README there explains the
// failures.

const corpusDir = "../testdata/corpus"

// corpusFile is one corpus file and how it is read.
type corpusFile struct {
	path  string // relative to corpusDir
	group string // btcpp (the Behavior3 files are missions/b3's corpus)
	lib   string // directory of trees its SubTrees may call ("" none)
}

func corpusFiles(t *testing.T) []corpusFile {
	var out []corpusFile
	add := func(pattern, group string, lib bool) {
		paths, err := filepath.Glob(filepath.Join(corpusDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			rel, _ := filepath.Rel(corpusDir, p)
			f := corpusFile{path: filepath.ToSlash(rel), group: group}
			if lib {
				f.lib = filepath.Dir(p)
			}
			out = append(out, f)
		}
	}
	add("btcpp/*.xml", "btcpp", false)
	add("btcpp-tests/*.xml", "btcpp", false)
	add("nav2/*.xml", "btcpp", false)
	add("moveit-pro/*/*.xml", "btcpp", true)
	// Other robots' repositories (README: sources). mep3 registers every
	// file of its strategies folder, so each folder is a library.
	add("robots/*/*.xml", "btcpp", false)
	add("robots/CoreSense4Home/*/*.xml", "btcpp", false)
	add("robots/ros2_behavior_tree_example/*/*.xml", "btcpp", false)
	add("robots/mep3/navigation/*.xml", "btcpp", false)
	add("robots/mep3/strategies/*.xml", "btcpp", true)
	add("robots/mep3/old_strategy/*.xml", "btcpp", true)
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// corpusOutcome loads, runs and round-trips one file; "" when it passes,
// else the first reason it does not.
func corpusOutcome(t *testing.T, f corpusFile, subs missions.Substitutions) string {
	path := filepath.Join(corpusDir, filepath.FromSlash(f.path))
	opts := corpusOptions(t, f, subs)
	m, err := missions.LoadFile(path, opts)
	if err != nil {
		return "load: " + firstProblem(err)
	}
	if st := runToEnd(t, m); st == bt.Error {
		return "run: ERROR"
	}
	out, err := Export(m.Doc, nil)
	if err != nil {
		return "export: " + err.Error()
	}
	d2, err := missions.DecodeAs(out, path, missions.Limits{}, opts.Library)
	if err != nil {
		return "export reads back: " + firstProblem(err)
	}
	if !reflect.DeepEqual(m.Doc.Trees, d2.Trees) || m.Doc.Main != d2.Main {
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
	if _, err := os.Stat(corpusDir); err != nil {
		t.Fatal(err)
	}
	subs := starSucceed(t)
	var b strings.Builder
	// By format group and by source (the corpus folder): files, files
	// that load (what botd check -substitute '*=Succeed' accepts), and
	// files that also run without ERROR and round-trip.
	total, loads, ok := map[string]int{}, map[string]int{}, map[string]int{}
	for _, f := range corpusFiles(t) {
		why := corpusOutcome(t, f, subs)
		source := "  " + strings.SplitN(f.path, "/", 2)[0]
		if strings.HasPrefix(f.path, "robots/") {
			source = "  other robots"
		}
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
	compareResults(t, "results.txt", b.String())
	for _, g := range groups {
		t.Logf("%s: %d of %d files load, %d run and round-trip", g, loads[g], total[g], ok[g])
	}
}

// compareResults compares the outcomes got with the results file name in
// the corpus folder; -update rewrites the file first.
func compareResults(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(corpusDir, name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("outcomes changed (go test -run %s -update to accept):\n%s", t.Name(), lineDiff(string(want), got))
	}
}

// corpusOptions are the options a corpus file loads with: subs, and its
// folder as the library when it has one.
func corpusOptions(t *testing.T, f corpusFile, subs missions.Substitutions) missions.Options {
	t.Helper()
	opts := missions.Options{Substitutions: subs}
	if f.lib != "" {
		lib, err := missions.LoadLibrary([]string{f.lib}, missions.Limits{})
		if err != nil {
			t.Fatalf("%s: library: %v", f.path, err)
		}
		opts.Library = lib
	}
	return opts
}

// lineDiff lists the lines only one side has.
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
