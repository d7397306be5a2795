package missions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A few hundred bytes of YAML aliases are refused after a bounded amount
// of work, with the path where the budget ran out.
func TestYAMLAliasBombRefused(t *testing.T) {
	bomb, err := os.ReadFile(filepath.Join("testdata", "limits", "alias-bomb.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Load(bomb, Options{})
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
