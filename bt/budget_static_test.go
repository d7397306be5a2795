package bt

import (
	"strings"
	"testing"

	"github.com/expr-lang/expr/vm"
)

// costWarnings compiles one node and returns its warnings.
func costWarnings(t *testing.T, def *NodeDef) []Problem {
	t.Helper()
	return compileTree(t, def).Warnings()
}

// An expression whose constants put it over its budget gets a warning at
// its parameter, and the node does return ERROR when it runs: the
// estimate and the run-time checks share their formulas.
func TestCostWarnings(t *testing.T) {
	for _, c := range []struct {
		def  *NodeDef
		path string
		want string // in the message
	}{
		{nd("Expr", "e", kv{"expr": `len(repeat(repeat("x", 999999), 999999)) > 0`}), "/trees/main/params/expr",
			"this expression makes at least 931 GiB (repeat would make a 931 GiB string), over the budget of 1 MiB per evaluation: it will fail with ERROR every time it runs"},
		{nd("Expr", "e", kv{"expr": `let r = 1..1000; all(r, {all(r, {all(r, {true})})})`}), "/trees/main/params/expr",
			"this expression needs at least 1,003,004,001 steps, over the budget of 100,000 per evaluation: it will fail with ERROR every time it runs"},
		{nd("Expr", "e", kv{"expr": `len(1..999999) > 0`}), "/trees/main/params/expr",
			"makes at least 999,999 elements in ranges, arrays and maps, over the budget of 65,536"},
		{nd("Expr", "e", kv{"expr": `count(1..1000, {# > 0}) + count(1..1000, {any(1..1000, {# < 0})}) > 0`}), "/trees/main/params/expr",
			"over the budget of 65,536"},
		{nd("Expr", "e", kv{"expr": `count(1..60000, {true}) + count(1..60000, {true}) > 0`}), "/trees/main/params/expr",
			"makes at least 120,000 elements"},
		{nd("Expr", "e", kv{"expr": `let r = 1..400; all(r, {all(r, {true})})`}), "/trees/main/params/expr",
			"needs at least 161,201 steps"},
		{nd("Expr", "e", kv{"expr": `len(join(map(1..60000, {repeat("x", 20)}), ",")) > 0`}), "/trees/main/params/expr",
			"makes at least 1.14 MiB (repeat would make a 20 bytes string, 60,000 times)"},
		{nd("Expr", "e", kv{"expr": `"y" + repeat("x", 2000000) != ""`}), "/trees/main/params/expr", "makes at least 3.81 MiB"},
		{nd("Script", "s", kv{"code": `n := 1; t := repeat("ab", 300000) .. repeat("ab", 300000)`}), "/trees/main/params/code",
			"this script makes at least 2.29 MiB (.. would make a 1.14 MiB string)"},
		{nd("ScriptCondition", "s", kv{"code": `len(repeat("x", 600000)) > 0; len(repeat("y", 600000)) > 0`}), "/trees/main/params/code",
			"this script makes at least 1.14 MiB"},
		{nd("Sequence", "", nil, nd("Succeed", "", nil), nd("Expr", "e", kv{"expr": `upper(repeat("é", 400000)) != ""`})),
			"/trees/main/children/1/params/expr", "upper would make a 1.53 MiB string"},
	} {
		ws := costWarnings(t, c.def)
		if len(ws) != 1 || ws[0].Path != c.path || !strings.Contains(ws[0].Message, c.want) || ws[0].Code != CodeWarning {
			t.Errorf("%v: warnings %v, want one at %s with %q", c.def.Params, ws, c.path, c.want)
			continue
		}
		// The node does fail over its budget.
		h := newHarness(t, c.def)
		sink := &errSink{}
		h.a.Sink = sink
		if st := h.tick(); st != Error {
			t.Errorf("%v: %v when it runs, want ERROR", c.def.Params, st)
		}
		var msgs []string
		for _, m := range sink.msgs {
			msgs = append(msgs, m...)
		}
		if !strings.Contains(strings.Join(msgs, "\n"), "budget exceeded") {
			t.Errorf("%v: %q, want a budget's error", c.def.Params, msgs)
		}
	}
}

// No warning where the cost depends on the blackboard, or on a branch,
// or is within the budget.
func TestNoCostWarnings(t *testing.T) {
	for _, src := range []string{
		`battery.percent < 20 && mode == "auto"`,
		`all(waypoints, {all(waypoints, {# > 0})})`,
		`len(repeat(name, 999999)) > 0`,
		`mode == "x" ? len(repeat("x", 99999999)) > 0 : true`,
		`mode == "x" && len(repeat("x", 99999999)) > 0`,
		`any(1..1000, {all(1..1000, {# > mode})})`,
		`let r = 1..300; all(r, {all(r, {true})})`,
		`len(repeat("x", 1000000)) > 0`,
		`count(1..60000, {true}) > 0`,
		`"a" in ["a", "b"] && "abc" contains "b" && "x" matches "^x$"`,
		`sum(map(1..100, {len(repeat("x", #))})) > 0`,
	} {
		if ws := costWarnings(t, nd("Expr", "e", kv{"expr": src})); len(ws) != 0 {
			t.Errorf("%s: %v, want no warning", src, ws)
		}
	}
	if ws := costWarnings(t, nd("Script", "s", kv{"code": `msg := "n=" .. 3; s := repeat("ab", 1000); t := s .. s`})); len(ws) != 0 {
		t.Errorf("script: %v, want no warning", ws)
	}
}

// Where every input is a constant (and the loops run to the end) the
// estimate is what the run counts; elsewhere it is less.
func TestCostEstimateIsTheRunsCount(t *testing.T) {
	exact := map[string]bool{}
	for _, src := range []string{
		`let r = 1..300; all(r, {all(r, {true})})`,
		`count(1..1000, {# % 3 == 0}) > 0`,
		`len(repeat(repeat("ab", 100), 300)) > 0`,
		`"y" + repeat("x", 20000) != ""`,
		`(repeat("ab", 500) contains "ba") == (repeat("x", 900) matches "^x+$")`,
		`len(upper(repeat("ab", 2000)) + lower("AB")) > len(split(repeat("a,", 100), ","))`,
		`sum(1..100) > len(reverse(1..100))`,
		`all(1..10, {all(1..20, {all(1..30, {true})})})`,
		`len(concat(1..5000, 1..3000)) + len(sort(1..200)) + len(toJSON(1..20)) > 0`,
		`none(1..100, {false}) != any(1..100, {false})`,
		`reduce(1..100, {#acc + #}) > 0`,
	} {
		exact[src] = true
	}
	for _, src := range []string{
		`len(join(map(1..200, {repeat("x", 20)}), ",")) > 0`,
		`"b" in ["a", "b"] && repeat("ab", 500) contains "ba" && repeat("x", 900) matches "^x+$"`,
		`len(upper(repeat("ab", 5000)) + lower("AB")) > 0 && len(split(repeat("a,", 100), ",")) > 0`,
		`all(1..10, {all(1..20, {all(1..30, {len(repeat("x", 10)) > 0})})})`,
		`len(upper(repeat("ab", 20000)) + "x") > 0`,
		`any(1..100, {# > 50})`,
		`none(1..100, {false}) && !any(1..100, {false})`,
		`count(1..1000, {all(1..50, {true})}) > 5`,
		`len(filter(1..100, {# > 10})[0:2]) > 0`,
		`len(upper(repeat("ab", 5000)) + lower("AB")) > len(split(repeat("a,", 100), ","))`,
	} {
		exact[src] = false
	}
	for src, isExact := range exact {
		prog, err := compileExpr(src, func(string) Slot { return NoSlot })
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		est := estimateCost([]*vm.Program{prog})
		tree := compileTree(t, nd("Expr", "e", kv{"expr": src}))
		a := NewAgent(tree, 0, 0)
		a.ExprLimits.Clock = func() int64 { return 1 } // steps only: the time budget would trip under -race
		out, err := a.evalExpr(prog)
		if err != nil || out != true {
			t.Fatalf("%s: %v %v", src, out, err)
		}
		s := a.exprs
		switch {
		case isExact && (est.steps != float64(s.steps) || est.bytes != float64(s.mem)):
			t.Errorf("%s: estimated %v steps %v bytes; the run counted %d steps %d bytes", src, est.steps, est.bytes, s.steps, s.mem)
		case est.steps > float64(s.steps) || est.bytes > float64(s.mem):
			t.Errorf("%s: estimated %v steps %v bytes, more than the run counted (%d steps %d bytes)", src, est.steps, est.bytes, s.steps, s.mem)
		}
	}
}

func TestCountText(t *testing.T) {
	for f, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1003004001: "1,003,004,001"} {
		if got := countText(f); got != want {
			t.Errorf("%v: %q, want %q", f, got, want)
		}
	}
}
