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

// FuzzExpression compiles arbitrary expressions as an Expr node and ticks
// the tree: a bad expression is a located problem, a good one never
// panics the engine when it runs (a runtime error is the node's ERROR).
func FuzzExpression(f *testing.F) {
	for _, s := range []string{"a < 3", "battery.percent > 20 && !blocked", `name == "x" ? 1 : 2`, "len(list) > 0", "a.b.c", "1/0 > 1", "a ?? b", "(", "0x7fffffffffffffff * 2 > 1"} {
		f.Add(s)
	}
	exprs, _ := filepath.Glob(filepath.Join("testdata", "fuzz-seeds", "*.expr"))
	for _, p := range exprs {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	reg := catalog.NewRegistry()
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		doc := &Document{Format: Format, Main: "m", Trees: map[string]*bt.NodeDef{"m": {Type: "Expr", Params: map[string]any{"expr": src}}}}
		m, err := doc.Compile(Options{Registry: reg, Keys: []string{"a", "b", "battery.percent", "blocked", "name", "list"}})
		if err != nil {
			var list bt.Problems
			if !errors.As(err, &list) || len(list) == 0 || !strings.HasPrefix(list[0].Path, "/trees/m") {
				t.Fatalf("an expression problem that is not located in the node: %v", err)
			}
			return
		}
		a := bt.NewAgent(m.Tree, 0, 0)
		for i := range 3 {
			a.Tick(int64(i) * 1e6)
		}
	})
}
