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

// FuzzScript compiles arbitrary BehaviorTree.CPP scripts as a Script,
// a ScriptCondition and every pre- and post-condition of a node, and
// ticks them: a bad script is a problem located in its node, a good one
// never panics (a failing one is ERROR).
func FuzzScript(f *testing.F) {
	for _, s := range []string{"A:=1", "x += 1; y = x * 2", "A!=1 && B", "@root := 'a'", "msg := 'a' + 'b'", "A==1", ":=", "a = ;", "value < 25"} {
		f.Add(s)
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "corpus", "btcpp", "t09_scripting_1.xml")); err == nil {
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
