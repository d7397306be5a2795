package btcpp

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/missions"
)

var update = flag.Bool("update", false, "rewrite the expected part of golden files")

// goldenSep separates a golden file's input from its expected output
// (STYLE.md habit 8).
const goldenSep = "-- want --\n"

// readGolden splits a golden file into input and expected output.
func readGolden(t *testing.T, path string) (in, want []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("\n"+goldenSep))
	if i < 0 {
		t.Fatalf("%s: no %q line", path, strings.TrimSpace(goldenSep))
	}
	return data[:i+1], data[i+1+len(goldenSep):]
}

// checkGolden compares got with the expected part, or rewrites it with -update.
func checkGolden(t *testing.T, path string, in, want, got []byte) {
	t.Helper()
	if *update {
		out := append(append(append([]byte{}, in...), goldenSep...), got...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: output differs (go test -run %s -update to accept)\n--- got ---\n%s\n--- want ---\n%s", path, t.Name(), got, want)
	}
}

// problemLines renders an error as one "CODE path: message" line per
// problem, the form the expected problems are written in.
func problemLines(err error) string {
	if err == nil {
		return ""
	}
	var ps bt.Problems
	if !errors.As(err, &ps) {
		return "NOT PROBLEMS: " + err.Error() + "\n"
	}
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s %s: %s\n", p.Code, p.Path, p.Message)
	}
	return b.String()
}

// files lists files matching a pattern, failing when there are none.
func files(t testing.TB, pattern string) []string {
	t.Helper()
	out, err := filepath.Glob(pattern)
	if err != nil || len(out) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	return out
}

func mustDecode(t testing.TB, data []byte) *missions.Document {
	t.Helper()
	d, err := missions.Decode(data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return d
}

// runVirtual ticks one agent at hz until the root completes or limit
// seconds pass; tick k happens at k/hz seconds.
func runVirtual(m *missions.Mission, hz, limit float64) (bt.Status, float64, []string) {
	sink := &logSink{}
	a := bt.NewAgent(m.Tree, 0, 0)
	a.Sink = sink
	for k := 1; float64(k) <= limit*hz; k++ {
		now := int64(float64(k) * 1e9 / hz)
		if st := a.Tick(now); st != bt.Running {
			return st, float64(now) / 1e9, sink.lines
		}
	}
	return bt.Running, limit, sink.lines
}

type logSink struct{ lines []string }

func (s *logSink) Emit(_ *bt.Agent, _ int32, level, msg string) {
	s.lines = append(s.lines, level+": "+msg)
}

// splitGolden returns a golden file's input part.
func splitGolden(data []byte) (in, want []byte, ok bool) {
	for i := 0; i+len(goldenSep) < len(data); i++ {
		if data[i] == '\n' && string(data[i+1:i+1+len(goldenSep)]) == goldenSep {
			return data[:i+1], data[i+1+len(goldenSep):], true
		}
	}
	return nil, nil, false
}
