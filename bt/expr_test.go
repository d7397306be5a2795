package bt

import (
	"strings"
	"testing"
)

func TestExpr(t *testing.T) {
	bb := kv{"battery.percent": 15, "mode": "auto", "armed": true, "speed": 0.3, "pose.x": 2, "pose.y": -1}
	runTickCases(t, []tickCase{
		{name: "dotted key", tree: nd("Expr", "e", kv{"expr": "battery.percent < 20"}), bb: bb, want: "S"},
		{name: "false is FAILURE", tree: nd("Expr", "e", kv{"expr": "battery.percent >= 20"}), bb: bb, want: "F"},
		{name: "strings and bools", tree: nd("Expr", "e", kv{"expr": `mode == "auto" && armed`}), bb: bb, want: "S"},
		{name: "arithmetic over two dotted keys", tree: nd("Expr", "e", kv{"expr": "pose.x * pose.x + pose.y * pose.y > 4.5"}), bb: bb, want: "S"},
		{name: "not", tree: nd("Expr", "e", kv{"expr": "!armed || speed > 1"}), bb: bb, want: "F"},
		{name: "undefined name is ERROR", tree: nd("Expr", "e", kv{"expr": "altitude > 10"}), bb: bb, want: "E"},
		{name: "undefined dotted name is ERROR", tree: nd("Expr", "e", kv{"expr": "battery.voltage > 10"}), bb: bb, want: "E"},
		// Short-circuit: the undefined name is never read.
		{name: "undefined name not evaluated", tree: nd("Expr", "e", kv{"expr": "armed || altitude > 10"}), bb: bb, want: "S"},
		{name: "code alias", tree: nd("Expr", "e", kv{"code": "speed == 0.3"}), bb: bb, want: "S"},
	})
}

func TestExprUndefinedNameReported(t *testing.T) {
	h := newHarness(t, nd("Expr", "e", kv{"expr": "altitude > 10"}))
	if st := h.tick(); st != Error {
		t.Fatalf("%v, want ERROR", st)
	}
	if len(h.sink.msgs) != 1 || !strings.HasPrefix(h.sink.msgs[0], "error: expr:") || !strings.Contains(h.sink.msgs[0], "altitude") {
		t.Errorf("sink got %q, want one error naming altitude", h.sink.msgs)
	}
	// Once the key is written, the same node works.
	slot, ok := h.tree.Slot("altitude")
	if !ok {
		t.Fatal("altitude has no slot")
	}
	h.a.BB.SetNumber(slot, 12)
	if st := h.tick(); st != Success {
		t.Errorf("after writing altitude: %v, want SUCCESS", st)
	}
}

func TestExprKeys(t *testing.T) {
	// Dotted names are whole keys: "battery.percent" gets a slot, shared
	// with a Check on the same key; "battery" alone does not.
	tree := compileTree(t, nd("Sequence", "", nil,
		nd("Expr", "", kv{"expr": "battery.percent < 20 && mode == 'auto'"}),
		nd("Check", "", kv{"key": "battery.percent", "op": "<", "value": 20})))
	if _, ok := tree.Slot("battery.percent"); !ok {
		t.Error("no slot for battery.percent")
	}
	if _, ok := tree.Slot("mode"); !ok {
		t.Error("no slot for mode")
	}
	if _, ok := tree.Slot("battery"); ok {
		t.Error("battery got a slot of its own")
	}
	if n := len(tree.Keys()); n != 2 {
		t.Errorf("%d keys %v, want 2", n, tree.Keys())
	}
}

func TestExprCompileErrors(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		sc("ok", "S"),
		nd("Expr", "", kv{"expr": "battery.percent < "}),
		nd("Expr", "", kv{"expr": "1 + 2"}),
		nd("Expr", "", kv{"expr": 42}),
		nd("Expr", "", nil),
	)))
	wantProblems(t, ps,
		"/trees/main/children/1/params/expr", "unexpected token",
		"/trees/main/children/2/params/expr", "bool",
		"/trees/main/children/3/params/expr", "want a string, got the number 42",
		"/trees/main/children/4/params/expr", `missing required parameter "expr"`,
	)
	for _, p := range ps {
		if strings.Contains(p.Message, "\n") {
			t.Errorf("%s: message spans lines", p.Path)
		}
	}
}
