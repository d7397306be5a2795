package bt

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// The attacks of issue 22 on expressions: each must end in an ERROR with
// its reason, quickly, and leave the agent able to tick on.

// tickUntilError ticks h up to n times and returns the first error
// message once a tick returns ERROR.
func tickUntilError(t *testing.T, h *harness, n int) string {
	t.Helper()
	for i := 0; i < n; i++ {
		if st := h.tick(); st == Error {
			if len(h.sink.msgs) == 0 {
				t.Fatalf("tick %d: ERROR without a reason", i+1)
			}
			return h.sink.msgs[len(h.sink.msgs)-1]
		}
	}
	t.Fatalf("no ERROR in %d ticks (messages %q)", n, h.sink.msgs)
	return ""
}

// stepsOnly lifts h's time budget: the steps, which are deterministic,
// must stop what the test runs, not the clock of a busy machine.
func stepsOnly(h *harness) {
	h.a.ExprLimits.Time, h.a.ExprLimits.TickTime = time.Hour, time.Hour
	if h.shadow != nil {
		h.shadow.a.ExprLimits = h.a.ExprLimits
	}
}

func wantReason(t *testing.T, msg string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("reason %q does not say %q", msg, p)
		}
	}
}

func TestBudgetRepeatOfRepeat(t *testing.T) {
	// 168 bytes of mission that used to allocate a terabyte.
	h := newHarness(t, nd("Script", "s", kv{"code": `s := repeat(repeat("x", 999999), 999999)`}))
	msg := tickUntilError(t, h, 1)
	wantReason(t, msg, "memory budget exceeded", "repeat would make a 931 GiB string")
	if slot, ok := h.tree.Slot("s"); ok && h.a.BB.Get(slot).Kind() != KindNone {
		t.Error("the key was written")
	}
}

func TestBudgetGrowingStrings(t *testing.T) {
	// A string doubled every tick, forever, in all the ways expr-lang
	// offers: each stops at the blackboard's value limit or at the
	// evaluation's memory budget, never grows on.
	bb := kv{"s": "xxxxxxxx", "a": []any{"xxxxxxxx"}}
	for _, tc := range []struct{ name, code, reason string }{
		{"plus", `s = s + s`, "exceeds the limit of 1024"},
		{"concat operator", `s = s .. s`, "exceeds the limit of 1024"},
		{"let chain", `expr: let a = s + s; let b = a + a; let c = b + b; let d = c + c; let e = d + d; let f = e + e; let g = f + f; let h = g + g; ` +
			`let i = h + h; let j = i + i; let k = j + j; let l = k + k; let m = l + l; let n = m + m; let o = n + n; let p = o + o; ` +
			`let q = p + p; let r = q + q; let u = r + r; let v = u + u; let w = v + v; len(w) > 0`, "memory budget exceeded: + would make a"},
		{"join", `s = join([s, s, s, s], s)`, "exceeds the limit of 1024"},
		{"join in one go", `s = join(map(split(repeat("x", 60000), ""), {s}), s)`, "memory budget exceeded: join would make"},
		{"replace", `s = replace(repeat(s, 100000), "x", repeat(s, 10))`, "memory budget exceeded: replace would make"},
		{"toJSON", `s = toJSON([s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s])`, "exceeds the limit of 1024"},
		{"toBase64", `s = toBase64(s + s)`, "exceeds the limit of 1024"},
		{"arrays", `a = concat(a, a)`, "exceeds the limit of 1024"},
		{"flatten", `a = flatten([a, a, a])`, "exceeds the limit of 1024"},
		{"split", `a = split(a[0] + a[0] + ",", ",")`, "exceeds the limit of 1024"},
		{"concat in one go", `a = concat(a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, ` +
			`a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, ` +
			`a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a)`, "exceeds the limit of 1024"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaf := nd("Script", "s", kv{"code": tc.code})
			if src, ok := strings.CutPrefix(tc.code, "expr: "); ok {
				leaf = nd("Expr", "s", kv{"expr": src})
			}
			h := newHarness(t, nd("Repeater", "", nil, leaf), withBB(bb))
			stepsOnly(h)
			msg := tickUntilError(t, h, 200)
			wantReason(t, msg, tc.reason)
			for _, k := range []string{"s", "a"} {
				slot, _ := h.tree.Slot(k)
				if n := valueBytes(h.a.BB.Get(slot).Interface(), 0); n > MaxValueBytes {
					t.Errorf("%s holds %d bytes", k, n)
				}
			}
		})
	}
}

func TestBudgetValueLimit(t *testing.T) {
	// A kilobyte can be written; a byte more cannot.
	h := newHarness(t, nd("Sequence", "", nil,
		nd("Script", "", kv{"code": `s := repeat("x", 1024)`}),
		nd("Script", "", kv{"code": `t := s + "y"`})))
	msg := tickUntilError(t, h, 1)
	wantReason(t, msg, `"t": a value of 1025 bytes exceeds the limit of 1024`)
	if slot, _ := h.tree.Slot("s"); len(h.a.BB.Get(slot).String()) != 1024 {
		t.Error("s was not written")
	}
}

func TestBudgetCPU(t *testing.T) {
	long := strings.Repeat("x", 16<<10)
	for _, tc := range []struct{ name, expr, reason string }{
		{"regexp over a long string", `all(1..999999, {not (s matches "^(x|xx)*y$")})`, "memory budget exceeded"},
		{"regexp over a long string, a smaller range", `all(1..50000, {not (s matches "^(x|xx)*y$")})`, "step budget exceeded"},
		{"a long pattern compiled at every match", `all(1..50000, {not ("y" matches s)})`, "step budget exceeded"},
		{"nested predicates", `let r = 1..1000; all(r, {all(r, {all(r, {true})})})`, "step budget exceeded: more than 100000 steps in one evaluation"},
		{"in over a long array", `let r = 1..60000; all(r, {# in r})`, "step budget exceeded"},
		{"sort in a loop", `let r = 1..60000; any(r, {len(sort(r)) == 0})`, "budget exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nd("Expr", "e", kv{"expr": tc.expr}), withBB(kv{"s": long}))
			stepsOnly(h)
			wantReason(t, tickUntilError(t, h, 1), tc.reason)
		})
	}
}

// smallTickBudget gives h a budget of 1000 steps per evaluation and
// 10,000 per tick, which loops of a few hundred iterations reach fast.
func smallTickBudget(h *harness) {
	h.a.ExprLimits.Steps, h.a.ExprLimits.TickSteps = 1000, 10_000
	stepsOnly(h)
}

func TestBudgetPerTick(t *testing.T) {
	// Twenty nodes of 600 steps each are within the evaluation's budget
	// but not the tick's.
	var kids []*NodeDef
	for i := 0; i < 20; i++ {
		kids = append(kids, nd("Expr", "", kv{"expr": `let r = 1..600; all(r, {true})`}))
	}
	h := newHarness(t, nd("Sequence", "", nil, kids...))
	smallTickBudget(h)
	wantReason(t, tickUntilError(t, h, 1), "more than 10000 steps in one tick")
	// The next tick starts afresh.
	h2 := newHarness(t, nd("Sequence", "", nil, kids[:10]...))
	smallTickBudget(h2)
	for i := 0; i < 3; i++ {
		if st := h2.tick(); st != Success {
			t.Fatalf("tick %d: %v (%q)", i, st, h2.sink.msgs)
		}
	}
}

func TestBudgetTime(t *testing.T) {
	// A clock that runs a second per read: the first check of the time
	// budget stops the evaluation, whatever its steps.
	h := newHarness(t, nd("Expr", "e", kv{"expr": `let r = 1..100; all(r, {all(r, {true})})`}))
	var now int64
	h.a.ExprLimits.Clock = func() int64 { now += 1e9; return now }
	if h.shadow != nil {
		h.shadow.a.ExprLimits = h.a.ExprLimits
	}
	wantReason(t, tickUntilError(t, h, 1), "time budget exceeded")
}

func TestBudgetOrdinaryExpressions(t *testing.T) {
	// What missions do every day stays well inside the budget.
	bb := kv{"name": "r1", "xs": []any{1.0, 2.0, 3.0}, "n": 3}
	runTickCases(t, []tickCase{
		{name: "string +", tree: nd("Expr", "", kv{"expr": `name + "-" + name == "r1-r1"`}), bb: bb, want: "S"},
		{name: "number +", tree: nd("Expr", "", kv{"expr": `n + 1 == 4`}), bb: bb, want: "S"},
		{name: "predicates", tree: nd("Expr", "", kv{"expr": `all(xs, {# > 0}) && sum(map(xs, {# * 2})) == 12 && count(1..100, {# % 2 == 0}) == 50`}), bb: bb, want: "S"},
		{name: "let", tree: nd("Expr", "", kv{"expr": `let r = 1..10; let k = n * 2; len(r) == 10 && k == 6`}), bb: bb, want: "S"},
		{name: "budgeted builtins", tree: nd("Expr", "", kv{"expr": `upper(name) == "R1" && join(split("a,b", ","), "+") == "a+b" && repeat("ab", 2) == "abab" && ` +
			`replace(name, "1", "2") == "r2" && toJSON(n) == "3" && fromBase64(toBase64(name)) == name && len(concat(xs, xs)) == 6 && ` +
			`max(xs) == 3 && indexOf(name, "1") == 1 && name matches "^r[0-9]$" && "r" in ["r", "s"] && 3 in 1..5 && 2 in xs && string(n) == "3"`}),
			bb: bb, want: "S"},
		{name: "more predicates", tree: nd("Expr", "", kv{"expr": `sortBy(xs, {-#})[0] == 3 && len(groupBy(xs, {# > 1})[true]) == 2 && ` +
			`reduce(xs, {#acc + #}, 0) == 6 && find(xs, {# > 1}) == 2 && findIndex(xs, {# == 3}) == 2 && findLast(xs, {# < 3}) == 2 && ` +
			`one(xs, {# == 1}) && none(xs, {# > 5}) && any(xs, {# == 2}) && len(filter(xs, {# != 2})) == 2 && sum(xs, {#}) == 6`}), bb: bb, want: "S"},
		{name: "a pattern from the blackboard", tree: nd("Expr", "", kv{"expr": `name matches pat && "r" + "1" matches pat`}), bb: kv{"name": "r1", "pat": "^r[0-9]$"}, want: "S"},
		{name: "pipes", tree: nd("Expr", "", kv{"expr": `name | repeat(2) | upper() == "R1R1" && (xs | filter({# > 1}) | map({# * 2}) | sum()) == 10`}), bb: bb, want: "S"},
		{name: "loops in loops", tree: nd("Expr", "", kv{"expr": `reduce(xs, {#acc + #index}, 0) == 3 && all(xs, {let y = # * 2; y > 1}) && ` +
			`len(flatten(map(xs, {filter(xs, {# > 1})}))) == 6 && count(map(xs, {any(xs, {# == 3})})) == 3 && first(sortBy(xs, {-#})) == 3`}), bb: bb, want: "S"},
		{name: "a loop over a map", tree: nd("Expr", "", kv{"expr": `all(values({"a": 1, "b": 2}), {# > 0}) && len(keys({"a": 1})) == 1`}), bb: bb, want: "S"},
		{name: "script", tree: nd("ScriptCondition", "", kv{"code": `m := name .. "/" .. n; l := len(m); m == "r1/3" && l == 4`}), bb: bb, want: "S"},
	})
}

func TestBudgetCompileLimits(t *testing.T) {
	big := "n" + strings.Repeat(" + n", MaxExprNodes)
	ps := compileProblems(t, mainSpec(nd("Expr", "", kv{"expr": big + " > 0"})))
	if len(ps) == 0 || !strings.Contains(ps.Error(), "exceeds maximum allowed nodes") {
		t.Errorf("an expression of %d nodes compiled: %v", 2*MaxExprNodes, ps)
	}
	// The internal functions are not a way around the budget.
	ps = compileProblems(t, mainSpec(nd("Expr", "", kv{"expr": `len(botd_repeat("x", 5)) == 5`})))
	if len(ps) == 0 {
		t.Error("botd_repeat without the environment compiled")
	}
	h := newHarness(t, nd("Expr", "", kv{"expr": `botd_iter(1, 2, 3) == nil`}))
	wantReason(t, tickUntilError(t, h, 1), "without its environment")
}

func TestBudgetSharedWithChildTrees(t *testing.T) {
	// A DynamicSubTree's child agent counts against its parent's tick:
	// twenty child trees of 600 steps are over a tick's 10,000.
	var kids []*NodeDef
	for i := 0; i < 20; i++ {
		kids = append(kids, dyn("", "plan"+strconv.Itoa(i), "d"))
	}
	h := newHarness(t, nd("Sequence", "", nil, kids...),
		withTree("d", nd("Expr", "", kv{"expr": `let r = 1..600; all(r, {true})`})))
	smallTickBudget(h)
	wantReason(t, tickUntilError(t, h, 1), "more than 10000 steps in one tick")
}

func TestBudgetAgentGoesOn(t *testing.T) {
	// Over the budget one tick, within it the next: the agent's machine
	// is as good as new after an evaluation it stopped.
	h := newHarness(t, nd("Expr", "e", kv{"expr": `len(repeat(s, n)) == n && all(1..n, {# > 0})`}), withBB(kv{"s": "x", "n": 1e9}))
	wantReason(t, tickUntilError(t, h, 1), "repeat would make a 954 MiB string")
	slot, _ := h.tree.Slot("n")
	h.a.BB.SetNumber(slot, 1000)
	for i := 0; i < 3; i++ {
		if st := h.tick(); st != Success {
			t.Fatalf("tick %d after the error: %v (%q)", i, st, h.sink.msgs)
		}
	}
}
