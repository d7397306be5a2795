package missions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
)

// FuzzBTCPPRun imports BehaviorTree.CPP XML (with its pre- and
// post-conditions, SKIPPED, TryCatch), compiles it with '*=Succeed',
// ticks it and round-trips it through the export: a load problem is
// located, a run never panics the engine, and the export reads back as
// the same trees.
func FuzzBTCPPRun(f *testing.F) {
	seedFiles(f, filepath.Join(corpusDir, "btcpp-tests", "gtest_skipping_*.xml"), filepath.Join(corpusDir, "btcpp-tests", "gtest_pre*.xml"),
		filepath.Join(corpusDir, "btcpp-tests", "gtest_post*.xml"), filepath.Join(corpusDir, "btcpp-tests", "gtest_try_catch_*.xml"),
		filepath.Join(corpusDir, "nav2", "navigate_to_pose_w_replanning_and_recovery.xml"))
	subs, err := ParseSubstitutions("*=Succeed")
	if err != nil {
		f.Fatal(err)
	}
	lim := Limits{Values: 2000, Depth: 32, StringBytes: 512, Nodes: 300}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 || !strings.HasPrefix(strings.TrimSpace(string(data)), "<") {
			return
		}
		d, err := DecodeWithLimits(data, lim)
		if err != nil {
			return // FuzzBTCPP checks the import's problems
		}
		m, err := d.Compile(Options{Substitutions: subs, Limits: lim})
		if err != nil {
			var list bt.Problems
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("a compile failure that is not a list of problems: %v", err)
			}
			return
		}
		a := bt.NewAgent(m.Tree, 0, 0)
		for i := range 5 {
			if st := a.Tick(int64(i+1) * 50e6); st != bt.Running {
				break
			}
		}
		a.HaltAll()
		out, err := ExportBTCPP(d, nil)
		if err != nil {
			return
		}
		d2, err := Decode(out)
		if err != nil {
			t.Fatalf("the export does not read back: %v\n%s", err, out)
		}
		if Canonical(d2) == nil || len(d2.Trees) != len(d.Trees) {
			t.Fatalf("the export reads back as other trees\n%s", out)
		}
	})
}

// FuzzScript compiles arbitrary BehaviorTree.CPP scripts as a Script,
// a ScriptCondition and every pre- and post-condition of a node, and
// ticks them: a bad script is a problem located in its node, a good one
// never panics (a failing one is ERROR).
func FuzzScript(f *testing.F) {
	for _, s := range []string{"A:=1", "x += 1; y = x * 2", "A!=1 && B", "@root := 'a'", "msg := 'a' + 'b'", "A==1", ":=", "a = ;", "value < 25"} {
		f.Add(s)
	}
	if b, err := os.ReadFile(filepath.Join(corpusDir, "btcpp", "t09_scripting_1.xml")); err == nil {
		f.Add(string(b))
	}
	reg := catalog.NewRegistry()
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 2048 {
			return
		}
		leaf := func(typ string) *bt.NodeDef { return &bt.NodeDef{Type: typ, Params: map[string]any{"code": src}} }
		pre := map[string]any{}
		for _, p := range []string{"failure_if", "success_if", "skip_if", "while", "on_success", "on_failure", "on_halted", "post"} {
			pre[p] = src
		}
		root := &bt.NodeDef{Type: "Sequence", Children: []*bt.NodeDef{
			{Type: "Succeeder", Children: []*bt.NodeDef{leaf("Script")}},
			{Type: "Succeeder", Children: []*bt.NodeDef{leaf("ScriptCondition")}},
			{Type: "PrePost", Params: pre, Children: []*bt.NodeDef{{Type: "Running"}}},
			{Type: "Succeed"},
		}}
		doc := &Document{Format: Format, Main: "m", Trees: map[string]*bt.NodeDef{"m": root}, Blackboard: map[string]any{"A": 1.0, "x": 2.0}}
		m, err := doc.Compile(Options{Registry: reg})
		if err != nil {
			var list bt.Problems
			if !errors.As(err, &list) || len(list) == 0 || !strings.HasPrefix(list[0].Path, "/trees/m") {
				t.Fatalf("a script problem that is not located in its node: %v", err)
			}
			return
		}
		a := bt.NewAgent(m.Tree, 0, 0)
		for i := range 3 {
			a.Tick(int64(i+1) * 1e6)
		}
		a.HaltAll()
	})
}
