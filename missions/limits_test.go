package missions

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// yamlBomb is a 10-level "billion laughs": each level repeats the one
// below ten times, so a few hundred bytes stand for 10^10 nodes.
func yamlBomb() string {
	var b strings.Builder
	b.WriteString("format: botd/mission@1\nmain: m\nx0: &x0 {type: Succeed}\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "x%d: &x%d {type: Sequence, children: [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*x%d", i-1)
		}
		b.WriteString("]}\n")
	}
	b.WriteString("trees: {m: *x10}\n")
	return b.String()
}

// A few hundred bytes of YAML aliases are refused after a bounded amount
// of work, with the path where the budget ran out.
func TestYAMLAliasBombRefused(t *testing.T) {
	bomb := yamlBomb()
	if len(bomb) > 1000 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	start := time.Now()
	_, err := Load([]byte(bomb), Options{})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "YAML aliases expand to more than 10000 values") {
		t.Fatalf("err %v", err)
	}
	t.Logf("refused in %v", took) // a figure for the note, not an assertion
}

// Each budget is checked and reported with the code TOO_LARGE (or the
// compiler's limit code) and where it ran out; a smaller configured budget
// refuses what the default accepts.
func TestLimits(t *testing.T) {
	seq := func(n int) string {
		var kids []string
		for range n {
			kids = append(kids, `{"type":"Succeed"}`)
		}
		return `{"format":"botd/mission@1","main":"m","trees":{"m":{"type":"Sequence","children":[` + strings.Join(kids, ",") + `]}}}`
	}
	for _, tc := range []struct {
		name, doc string
		lim       Limits
		want      string
	}{
		{"document bytes", seq(10), Limits{DocumentBytes: 100}, "above the limit of 100"},
		{"values", seq(50), Limits{Values: 60}, "more than 60 values"},
		{"depth", `{"format":"botd/mission@1","main":"m","trees":{"m":{"type":"Inverter","children":[{"type":"Inverter","children":[{"type":"Succeed"}]}]}}}`, Limits{Depth: 6}, "nesting deeper than 6 levels"},
		{"string", `{"format":"botd/mission@1","name":"` + strings.Repeat("n", 300) + `","main":"m","trees":{"m":{"type":"Succeed"}}}`, Limits{StringBytes: 256}, "/name: a string of 300 bytes, above the limit of 256"},
		{"yaml string", "format: botd/mission@1\nname: " + strings.Repeat("n", 300) + "\nmain: m\ntrees: {m: {type: Succeed}}\n", Limits{StringBytes: 256}, "/name: a string of 300 bytes"},
		{"xml attribute", `<root BTCPP_format="4"><BehaviorTree ID="` + strings.Repeat("n", 300) + `"><AlwaysSuccess/></BehaviorTree></root>`, Limits{StringBytes: 256}, "a string of 300 bytes"},
		{"nodes", seq(20), Limits{Nodes: 10}, "the expanded tree has more than 10 nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Load([]byte(tc.doc), Options{}); err != nil {
				t.Fatalf("the default limits refuse it: %v", err)
			}
			_, err := Load([]byte(tc.doc), Options{Limits: tc.lim})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}
