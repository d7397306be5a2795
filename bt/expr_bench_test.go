package bt

import "testing"

// The expression nodes on the tick path: an Expr over two keys, a Script
// of three statements and a ScriptCondition, each ticked once per tick.

func benchExprTree(b *testing.B, root *NodeDef) {
	tree := compileTree(b, root, withBB(kv{"battery.percent": 50, "mode": "auto", "n": 0, "name": "r1"}))
	a := NewAgent(tree, 0, 0)
	now := int64(0)
	for i := 0; i < 10; i++ {
		now += 10 * ms
		a.Tick(now)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now += 10 * ms
		a.Tick(now)
	}
}

func BenchmarkTickExpr(b *testing.B) {
	benchExprTree(b, nd("Expr", "", kv{"expr": `battery.percent < 20 && mode == "auto"`}))
}

func BenchmarkTickScript(b *testing.B) {
	benchExprTree(b, nd("Script", "", kv{"code": `n := n + 1; ok := battery.percent > 20; label := "run " .. n`}))
}

func BenchmarkTickScriptCondition(b *testing.B) {
	benchExprTree(b, nd("ScriptCondition", "", kv{"code": `k := n * 2; k >= 0 && len(name) < 10`}))
}

// BenchmarkExprSteps is the cost of a loop: 1000 iterations of a predicate.
func BenchmarkExprSteps(b *testing.B) {
	tree := compileTree(b, nd("Expr", "", kv{"expr": `all(1..1000, {# > 0})`}))
	a := NewAgent(tree, 0, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Tick(int64(i) * 10 * ms)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/iteration")
}
