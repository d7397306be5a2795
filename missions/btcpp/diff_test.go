package btcpp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

// TestBTCPPDifferential runs the corpus's BehaviorTree.CPP-format files
// that botd accepts on botd and on BehaviorTree.CPP itself, and compares
// the root's status tick by tick. It needs tools/btcppdiff's runner, built
// against a BehaviorTree.CPP source tree (see tools/btcppdiff/README.md),
// named by $BOTD_BTCPP_RUNNER; without it the test is skipped.
//
// botd's export of each file (with its TreeNodesModel) is what the runner
// loads, so the test also checks that every export loads in
// BehaviorTree.CPP. Nodes neither knows stand in as '*=Succeed' on both
// sides (the runner registers what the model declares: actions and
// conditions SUCCESS, decorators pass-through, controls SUCCESS without
// ticking). A file whose model declares a node botd implements itself
// (Nav2's controls, botd's own) is only checked for loading: the runner
// would stand in for what botd runs. Both sides tick every 50 ms, botd on
// a virtual clock and the runner on the wall clock, so the tick on which
// a timer fires may differ: where the tree has a timed node only the last
// status is compared. testdata/corpus/btcpp-diff.txt holds every file's
// outcome (-update rewrites it); the test fails when one changes.
func TestBTCPPDifferential(t *testing.T) {
	runner := os.Getenv("BOTD_BTCPP_RUNNER")
	if runner == "" {
		t.Skip("BOTD_BTCPP_RUNNER is not set (see tools/btcppdiff/README.md)")
	}
	subs := starSucceed(t)
	reg := missions.DefaultRegistry()
	dir := t.TempDir()
	counts := map[string]int{}
	var b strings.Builder
	for _, f := range corpusFiles(t) {
		if f.group != "btcpp" {
			continue
		}
		path := filepath.Join(corpusDir, filepath.FromSlash(f.path))
		m, err := missions.LoadFile(path, corpusOptions(t, f, subs))
		if err != nil {
			continue // botd refuses it: see results.txt
		}
		outcome := func() string {
			if ins := m.Tree.StandIns(); len(ins) > 0 {
				return fmt.Sprintf("not run: calls the tree %q, which is in no file", ins[0].Tree)
			}
			out, err := Export(m.Doc, nil)
			if err != nil {
				return "export: " + err.Error()
			}
			file := filepath.Join(dir, strings.ReplaceAll(f.path, "/", "_"))
			if err := os.WriteFile(file, out, 0o644); err != nil {
				t.Fatal(err)
			}
			theirs, loadErr := runBTCPPRunner(t, runner, file)
			switch {
			case loadErr != "":
				return "BehaviorTree.CPP refuses the export: " + loadErr
			case !standInsOnly(out, reg):
				return "loads (not compared: botd runs nodes the runner would stand in for)"
			}
			ours := botdStatuses(m)
			switch {
			case theirs == hang:
				return "BehaviorTree.CPP never returns from a tick (a loop within it); botd " + last(ours)
			case timed(m.Tree) && last(ours) == last(theirs):
				return "same end (timed: the ticks are not compared)"
			case ours == theirs:
				return "same"
			}
			return fmt.Sprintf("differs: botd %s, BehaviorTree.CPP %s", ours, theirs)
		}()
		count(counts, outcome)
		fmt.Fprintf(&b, "%s: %s\n", f.path, outcome)
	}
	compareResults(t, "btcpp-diff.txt", tally(&b, counts))
	for _, k := range sortedKeys(counts) {
		t.Logf("%s: %d", k, counts[k])
	}
}

// runBTCPPRunner runs the runner on file: the root's statuses joined by spaces
// (an exception while ticking is ERROR, as botd ends a tick whose script
// fails), or the reason it does not load.
func runBTCPPRunner(t *testing.T, runner, file string, args ...string) (statuses, loadErr string) {
	t.Helper()
	// 99 ticks take 5 s; a tick that never returns (a loop within the
	// tick that BT.CPP does not bound) is cut off.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, runner, append(args, "-ticks", "99", "-period-ms", "50", file)...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	if ctx.Err() != nil {
		return hang, ""
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
		return "", strings.TrimPrefix(lines[0], "LOAD ")
	} else if err != nil && !(ok && ee.ExitCode() == 3) {
		t.Fatalf("%s %s: %v", runner, file, err)
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "THROW ") {
			lines[i] = "ERROR"
		}
	}
	return strings.Join(lines, " "), ""
}

// count counts an outcome by its kind: the text before ':' or " (".
func count(counts map[string]int, outcome string) {
	kind, _, _ := strings.Cut(outcome, ":")
	kind, _, _ = strings.Cut(kind, " (")
	counts[kind]++
}

// tally appends the counts to the outcomes in b and returns the whole.
func tally(b *strings.Builder, counts map[string]int) string {
	fmt.Fprintln(b)
	for _, k := range sortedKeys(counts) {
		fmt.Fprintf(b, "%s: %d\n", k, counts[k])
	}
	return b.String()
}

// hang stands for the statuses of a run in which BehaviorTree.CPP never
// returned from a tick.
const hang = "HANG"

// botdStatuses ticks m as the runner does (at most 99 ticks, 50 ms apart).
func botdStatuses(m *missions.Mission) string {
	a := bt.NewAgent(m.Tree, 0, 0)
	var out []string
	for k := int64(1); k < 100; k++ {
		st := a.Tick(k * 50e6)
		out = append(out, st.String())
		if st != bt.Running {
			break
		}
	}
	return strings.Join(out, " ")
}

// standInsOnly reports whether every node type an export declares is one
// botd does not know (so both sides stand in for it alike).
func standInsOnly(export []byte, reg *bt.Registry) bool {
	_, model, ok := bytes.Cut(export, []byte("<TreeNodesModel>"))
	if !ok {
		return true
	}
	for _, part := range bytes.Split(model, []byte(` ID="`))[1:] {
		id, _, _ := bytes.Cut(part, []byte(`"`))
		if _, known := reg.Lookup(string(id)); known {
			return false
		}
	}
	return true
}

// timed reports whether a tree has a node whose status depends on time.
func timed(t *bt.Tree) bool {
	for i := 0; i < t.Len(); i++ {
		switch t.Node(i).Type.Name {
		case "Delay", "Timeout", "Sleep", "Wait", "TestNode", "RateController", "Stub":
			return true
		}
	}
	return false
}

func last(statuses string) string {
	return statuses[strings.LastIndex(statuses, " ")+1:]
}

// TestBTCPPAgreement loads every BehaviorTree.CPP-format file of the
// corpus as it is, on botd (with '*=Succeed') and on BehaviorTree.CPP
// (the runner's -auto stands in alike for the node types and trees no
// file declares), and says where they disagree on loading it; where both
// load it and botd runs nothing the runner stands in for, the root's
// statuses are compared as in TestBTCPPDifferential. Outcomes are in
// testdata/corpus/btcpp-agree.txt (-update rewrites it).
func TestBTCPPAgreement(t *testing.T) {
	runner := os.Getenv("BOTD_BTCPP_RUNNER")
	if runner == "" {
		t.Skip("BOTD_BTCPP_RUNNER is not set (see tools/btcppdiff/README.md)")
	}
	subs := starSucceed(t)
	reg := missions.DefaultRegistry()
	counts := map[string]int{}
	var b strings.Builder
	for _, f := range corpusFiles(t) {
		if f.group != "btcpp" {
			continue
		}
		path := filepath.Join(corpusDir, filepath.FromSlash(f.path))
		opts := corpusOptions(t, f, subs)
		args := []string{"-auto"}
		if f.lib != "" {
			siblings, _ := filepath.Glob(filepath.Join(f.lib, "*.xml"))
			for _, s := range siblings {
				if s != path {
					args = append(args, "-lib", s)
				}
			}
		}
		m, err := missions.LoadFile(path, opts)
		theirs, loadErr := runBTCPPRunner(t, runner, path, args...)
		var outcome string
		switch {
		case err != nil && loadErr != "":
			outcome = "both refuse"
		case err != nil:
			outcome = "botd refuses, BehaviorTree.CPP loads: " + firstProblem(err)
		case loadErr != "":
			outcome = "BehaviorTree.CPP refuses, botd loads: " + loadErr
		default:
			out, xerr := Export(m.Doc, nil)
			ours := botdStatuses(m)
			switch {
			case theirs == hang:
				outcome = "both load, BehaviorTree.CPP never returns from a tick (a loop within it); botd " + last(ours)
			case xerr != nil || !standInsOnly(out, reg):
				outcome = "both load (not compared: botd runs nodes the runner would stand in for)"
			case timed(m.Tree) && last(ours) == last(theirs):
				outcome = "both load, same end (timed: the ticks are not compared)"
			case ours == theirs:
				outcome = "both load, same"
			default:
				outcome = fmt.Sprintf("both load, differ: botd %s, BehaviorTree.CPP %s", ours, theirs)
			}
		}
		count(counts, outcome)
		fmt.Fprintf(&b, "%s: %s\n", f.path, outcome)
	}
	compareResults(t, "btcpp-agree.txt", tally(&b, counts))
	for _, k := range sortedKeys(counts) {
		t.Logf("%s: %d", k, counts[k])
	}
}
