package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// botd check warns of an expression whose constants put it over its
// budget, at the parameter, and the mission still checks ok; it does not
// warn where the cost depends on the blackboard.
func TestCheckCostWarnings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, children string) string {
		f := filepath.Join(dir, name)
		doc := `{"format": "botd/mission@1", "name": "cost", "main": "main", "trees": {"main": {"type": "Sequence", "children": [` + children + `]}}}`
		if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	over := write("over.json", `
  {"type": "Expr", "params": {"expr": "battery.percent < 20"}},
  {"type": "Expr", "params": {"expr": "let r = 1..1000; all(r, {all(r, {all(r, {true})})})"}},
  {"type": "Script", "params": {"code": "n := len(repeat(repeat('x', 999999), 999999))"}},
  {"type": "Expr", "params": {"expr": "len(1..999999) > 0"}}`)
	code, out, _ := runCmd(t, "check", over)
	want := []string{
		over + ": ok (5 nodes)",
		over + ": /trees/main/children/1/params/expr: warning: this expression needs at least 1,003,004,001 steps, over the budget of 100,000 per evaluation: it will fail with ERROR every time it runs",
		over + ": /trees/main/children/2/params/code: warning: this script makes at least 931 GiB (repeat would make a 931 GiB string), over the budget of 1 MiB per evaluation: it will fail with ERROR every time it runs",
		over + ": /trees/main/children/3/params/expr: warning: this expression makes at least 999,999 elements in ranges, arrays and maps, over the budget of 65,536 (1 MiB at 16 bytes each): it will fail with ERROR every time it runs",
	}
	if code != 0 || strings.TrimSpace(out) != strings.Join(want, "\n") {
		t.Errorf("exit %d, output:\n%s\nwant:\n%s", code, out, strings.Join(want, "\n"))
	}
	if !checkedOK(out, over) {
		t.Errorf("the warnings are not warnings to checkedOK:\n%s", out)
	}

	fine := write("fine.json", `
  {"type": "Expr", "params": {"expr": "battery.percent < 20 && mode == \"auto\""}},
  {"type": "Expr", "params": {"expr": "all(waypoints, {all(waypoints, {all(waypoints, {# > 0})})})"}},
  {"type": "Expr", "params": {"expr": "len(repeat(name, 999999)) > 0"}},
  {"type": "Expr", "params": {"expr": "mode == \"x\" ? len(repeat(\"x\", 99999999)) > 0 : true"}},
  {"type": "Script", "params": {"code": "s := repeat('ab', 100); t := s .. s"}}`)
	code, out, _ = runCmd(t, "check", fine)
	if code != 0 || strings.TrimSpace(out) != fine+": ok (6 nodes)" {
		t.Errorf("exit %d, output %q, want ok and no warning", code, out)
	}
}
