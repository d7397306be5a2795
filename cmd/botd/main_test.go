package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// checkedOK reports whether botd check's output says file is valid: its
// "ok" line and nothing but warnings ("FILE: warning: ..." or, at a
// parameter, "FILE: /path: warning: ...").
func checkedOK(out, file string) bool {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], file+": ok (") {
		return false
	}
	for _, l := range lines[1:] {
		rest, ok := strings.CutPrefix(l, file+": ")
		if !ok {
			return false
		}
		if path, _, found := strings.Cut(rest, ": warning: "); !strings.HasPrefix(rest, "warning: ") && (!found || !strings.HasPrefix(path, "/")) {
			return false
		}
	}
	return true
}

// botd -h lists every flag of the daemon.
func TestHelpListsEveryFlag(t *testing.T) {
	code, out, _ := runCmd(t, "-h")
	if code != 0 {
		t.Fatalf("botd -h: exit %d", code)
	}
	fs, _ := daemonFlags(io.Discard)
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(out, "-"+f.Name+" ") {
			t.Errorf("botd -h does not list -%s:\n%s", f.Name, out)
		}
	})
}

func TestCheck(t *testing.T) {
	// One file or many: the same lines, each naming its file.
	code, out, _ := runCmd(t, "check", "testdata/small.json")
	if code != 0 || !strings.HasPrefix(out, "testdata/small.json: ok (") {
		t.Fatalf("valid mission: exit %d, output %q", code, out)
	}
	code, out, _ = runCmd(t, "check", "testdata/invalid.json")
	if code != 1 {
		t.Fatalf("invalid mission: exit %d, want 1", code)
	}
	for _, want := range []string{
		"testdata/invalid.json: /trees/main/children/0/type: unknown node type \"Sequense\" (did you mean \"Sequence\"?)",
		"testdata/invalid.json: /trees/main/children/1/params/ms: ",
		"testdata/invalid.json: /trees/main/children/2/params/tree: recursive subtree",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(line, "testdata/invalid.json: /") || strings.Count(line, ": ") < 2 {
			t.Errorf("line %q is not 'file: path: message'", line)
		}
	}
	code, out, _ = runCmd(t, "check", "testdata/small.json", "testdata/invalid.json")
	if code != 1 || !strings.Contains(out, "testdata/small.json: ok") || !strings.Contains(out, "testdata/invalid.json: /trees/main/children/0/type") {
		t.Fatalf("two files: exit %d\n%s", code, out)
	}
	if code, _, _ := runCmd(t, "check", "testdata/does-not-exist.json"); code != 1 {
		t.Fatalf("missing file: exit %d, want 1", code)
	}
}

// exampleConfigs names the config an example mission needs beyond the
// default simulated rover (a UAV mission needs a MAVLink vehicle).
var exampleConfigs = map[string]string{"survey.json": "../../configs/uav-sim.yaml"}

func TestCheckExampleMissions(t *testing.T) {
	files, _ := filepath.Glob("../../configs/missions/*")
	if len(files) == 0 {
		t.Fatal("no example missions")
	}
	var rover []string
	for _, f := range files {
		cfg, ok := exampleConfigs[filepath.Base(f)]
		if !ok {
			rover = append(rover, f)
			continue
		}
		if code, out, _ := runCmd(t, "check", "-config", cfg, f); code != 0 {
			t.Errorf("%s with %s: exit %d\n%s", f, cfg, code, out)
		}
		if code, _, _ := runCmd(t, "check", f); code != 1 {
			t.Errorf("%s on the simulated rover: exit %d, want 1 (it needs its config)", f, code)
		}
	}
	code, out, _ := runCmd(t, append([]string{"check"}, rover...)...)
	if code != 0 {
		t.Fatalf("example missions: exit %d\n%s", code, out)
	}
}

func TestSimExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"testdata/small.json"}, 0},
		{[]string{"testdata/fail.json"}, 1},
		{[]string{"-ticks", "50", "testdata/forever.yaml"}, 1},
		{[]string{"testdata/forever.yaml", "-ticks", "5"}, 1}, // flags may follow the file
		{[]string{"testdata/error.json"}, 2},
		{[]string{"testdata/invalid.json"}, 2},
		{[]string{"-agents", "3", "testdata/small.json"}, 0},
		{[]string{"-ticks", "0", "testdata/small.json"}, 2},
	} {
		code, out, errOut := runCmd(t, append([]string{"sim"}, tc.args...)...)
		if code != tc.want {
			t.Errorf("sim %v: exit %d, want %d\n%s%s", tc.args, code, tc.want, out, errOut)
		}
	}
}

func TestSimExampleMissionsSucceed(t *testing.T) {
	files, _ := filepath.Glob("../../configs/missions/*")
	for _, f := range files {
		if _, ok := exampleConfigs[filepath.Base(f)]; ok {
			continue // botd sim has no MAVLink vehicle: TestDaemonUAVSimSurvey flies the survey
		}
		if code, out, errOut := runCmd(t, "sim", f); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", f, code, out, errOut)
		}
	}
}

type traceNode struct {
	Index  int    `json:"index"`
	ID     string `json:"id"`
	Type   string `json:"type"`
	Name   string `json:"name"`
	Parent int    `json:"parent"`
}

type traceEvent struct {
	Node   int    `json:"node"`
	Event  string `json:"event"`
	Status string `json:"status"`
}

type traceTick struct {
	Tick   int          `json:"tick"`
	TimeMs float64      `json:"time_ms"`
	Agent  int          `json:"agent"`
	Root   string       `json:"root"`
	Events []traceEvent `json:"events"`
}

func readTrace(t *testing.T, data string) ([]traceNode, []traceTick) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(data))
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() {
		t.Fatal("empty trace")
	}
	var head struct {
		Nodes []traceNode `json:"nodes"`
	}
	if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
		t.Fatalf("first line: %v", err)
	}
	var ticks []traceTick
	for sc.Scan() {
		var tk traceTick
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&tk); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		ticks = append(ticks, tk)
	}
	return head.Nodes, ticks
}

// The trace of MISSIONS.md section 8: the node table, then one line per
// tick with the events in order. At 10 Hz a 200 ms Wait opened at tick 1
// (100 ms) completes at tick 3 (300 ms).
func TestSimTrace(t *testing.T) {
	code, out, _ := runCmd(t, "sim", "-trace", "-", "testdata/small.json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	nodes, ticks := readTrace(t, out)
	wantNodes := []traceNode{{0, "", "Priority", "root", -1}, {1, "", "Fail", "guard", 0}, {2, "", "Wait", "wait", 0}}
	if len(nodes) != len(wantNodes) {
		t.Fatalf("nodes %+v", nodes)
	}
	for i, n := range nodes {
		if len(n.ID) != 36 {
			t.Errorf("node %d id %q is not a UUID", i, n.ID)
		}
		n.ID = ""
		if n != wantNodes[i] {
			t.Errorf("node %d = %+v, want %+v", i, n, wantNodes[i])
		}
	}
	if len(ticks) != 3 {
		t.Fatalf("%d tick lines, want 3", len(ticks))
	}
	want := []string{
		"1 100 RUNNING 0:open 1:open 1:tick:FAILURE 1:close 2:open 2:tick:RUNNING 0:tick:RUNNING",
		"2 200 RUNNING 1:open 1:tick:FAILURE 1:close 2:tick:RUNNING 0:tick:RUNNING",
		"3 300 SUCCESS 1:open 1:tick:FAILURE 1:close 2:tick:SUCCESS 2:close 0:tick:SUCCESS 0:close",
	}
	for i, tk := range ticks {
		var b strings.Builder
		b.WriteString(strings.Join([]string{itoa(tk.Tick), ftoa(tk.TimeMs), tk.Root}, " "))
		for _, e := range tk.Events {
			b.WriteString(" " + itoa(e.Node) + ":" + e.Event)
			if e.Status != "" {
				b.WriteString(":" + e.Status)
			}
		}
		if b.String() != want[i] {
			t.Errorf("tick line %d:\n got %s\nwant %s", i+1, b.String(), want[i])
		}
	}
}

func TestSimTraceFileAndAgents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	code, out, _ := runCmd(t, "sim", "testdata/small.json", "-agents", "2", "-trace", path, "-hz", "20")
	if code != 0 || !strings.Contains(out, "SUCCESS") {
		t.Fatalf("exit %d: %s", code, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, ticks := readTrace(t, string(data))
	// At 20 Hz the Wait opened at 50 ms completes at 250 ms: tick 5.
	if len(ticks) != 10 {
		t.Fatalf("%d lines, want 10 (5 ticks x 2 agents)", len(ticks))
	}
	for i, tk := range ticks {
		if tk.Agent != i%2 || tk.Tick != i/2+1 || tk.TimeMs != float64(50*(i/2+1)) {
			t.Errorf("line %d: tick %d agent %d time %v", i, tk.Tick, tk.Agent, tk.TimeMs)
		}
	}
}

func TestNodesDoc(t *testing.T) {
	var out bytes.Buffer
	hw, err := simHardware()
	if err != nil {
		t.Fatal(err)
	}
	writeCatalogMarkdown(&out, newRegistry(hw).Catalog())
	path := "../../docs/NODES.md"
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, out.Bytes()) {
		t.Fatal("docs/NODES.md is out of date: run go test ./cmd/botd -run TestNodesDoc -update")
	}
	code, js, _ := runCmd(t, "nodes", "-json")
	var cat []map[string]any
	if code != 0 || json.Unmarshal([]byte(js), &cat) != nil || len(cat) < 30 {
		t.Fatalf("nodes -json: exit %d, %d types", code, len(cat))
	}
}

func TestUsage(t *testing.T) {
	if code, _, errOut := runCmd(t, "bogus"); code != 2 || !strings.Contains(errOut, "Usage") {
		t.Fatalf("unknown command: exit %d\n%s", code, errOut)
	}
	if code, out, _ := runCmd(t, "version"); code != 0 || !strings.HasPrefix(out, "botd ") {
		t.Fatalf("version: %d %q", code, out)
	}
}
