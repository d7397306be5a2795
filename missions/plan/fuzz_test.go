package plan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/botd-project/botd/bt"
)

// FuzzPlan feeds arbitrary bytes through the import: it never panics, a
// plan it imports has a tree, and the tree exports to a plan that imports
// again with as many items of each command; the autopilot's tree of it
// exports to the same items.
func FuzzPlan(f *testing.F) {
	for _, pattern := range []string{"testdata/*.plan", "testdata/mavsdk/*"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("QGC WPL 110\n0\t1\t0\t16\t0\t0\t0\t0\t47.39\t8.54\t488\t1\n1\t0\t3\t22\t0\t0\t0\t0\t0\t0\t10\t1\n"))
	lim := Limits{Items: 200}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ps := Parse(data, lim)
		if ps != nil {
			return
		}
		root, ps := p.Tree(lim)
		if ps != nil {
			return
		}
		out, err := Export(map[string]*bt.NodeDef{"main": root}, "main", p.Blackboard(), ExportOptions{})
		if err != nil {
			t.Fatalf("an imported plan does not export: %v", err)
		}
		back, ps := Parse(out, Limits{})
		if ps != nil {
			t.Fatalf("the export does not import: %v\n%s", ps, out)
		}
		count := func(items []Item) map[int]int {
			m := map[int]int{}
			for _, it := range items {
				m[it.Command]++
			}
			return m
		}
		if len(back.Fence) != len(p.Fence) || len(back.Rally) != len(p.Rally) {
			t.Fatalf("%d zones and %d rally points, exported %d and %d\n%s", len(p.Fence), len(p.Rally), len(back.Fence), len(back.Rally), out)
		}
		a, b := count(p.Items), count(back.Items)
		for c, n := range a {
			if c != CmdDoChangeSpeed && b[c] != n {
				t.Fatalf("%d items of MAV_CMD %d, exported %d\n%s", n, c, b[c], out)
			}
		}
		// The autopilot's tree of the same plan exports to its items, every one.
		root, ps = p.AutopilotTree(lim)
		if ps != nil {
			t.Fatalf("botd flies the plan and the autopilot does not: %v", ps)
		}
		out, err = Export(map[string]*bt.NodeDef{"main": root}, "main", p.Blackboard(), ExportOptions{})
		if err != nil {
			t.Fatalf("the autopilot's tree does not export: %v", err)
		}
		back, ps = Parse(out, Limits{})
		if ps != nil {
			t.Fatalf("the autopilot's export does not import: %v\n%s", ps, out)
		}
		if back.Fly != FlyAutopilot || len(back.Items) != len(p.Items) {
			t.Fatalf("%d items, the autopilot's export %d (fly %q)\n%s", len(p.Items), len(back.Items), back.Fly, out)
		}
		for i, it := range p.Items {
			if g := back.Items[i]; g.Command != it.Command || g.Frame != it.Frame || g.X() != it.X() || g.Y() != it.Y() {
				t.Fatalf("item %d: %+v, the autopilot's export %+v\n%s", i, it, g, out)
			}
		}
	})
}
