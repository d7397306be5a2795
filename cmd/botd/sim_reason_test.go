package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// typoMission ends with ERROR on a Check of a mistyped key.
const typoMission = `{"format": "botd/mission@1", "name": "typo", "main": "main", "trees": {"main": {"type": "Sequence", "children": [
  {"type": "Script", "params": {"code": "range.front := 3"}},
  {"type": "Script", "params": {"code": ""}},
  {"type": "Check", "name": "sonar clear", "params": {"key": "range.fornt", "op": ">", "value": 1}}]}}}`

// botd sim prints why the mission ended with ERROR, with the final
// status, and the trace has the node's message.
func TestSimErrorReason(t *testing.T) {
	f := filepath.Join(t.TempDir(), "typo.json")
	if err := os.WriteFile(f, []byte(typoMission), 0o644); err != nil {
		t.Fatal(err)
	}
	const why = `sonar clear (Check): "range.fornt" is not set (did you mean "range.front"?)`
	code, out, errOut := runCmd(t, "sim", f)
	if code != 2 || !strings.Contains(out, `mission "typo": ERROR after 1 tick (0.050 s virtual, 1 agent): `+why+"\n") {
		t.Errorf("exit %d, output %q, want the reason with the status", code, out)
	}
	if !strings.Contains(errOut, `node=3 error: Check: "range.fornt" is not set`) {
		t.Errorf("log %q", errOut)
	}
	code, out, _ = runCmd(t, "sim", "-agents", "2", f)
	if code != 2 || !strings.Contains(out, "0 SUCCESS, 0 FAILURE, 2 ERROR, 0 still RUNNING after 1 tick ") || !strings.Contains(out, "agents): agent 0: "+why) {
		t.Errorf("2 agents: exit %d, output %q", code, out)
	}

	code, out, errOut = runCmd(t, "sim", "-trace", "-", f)
	if code != 2 || !strings.Contains(errOut, why) {
		t.Fatalf("trace run: exit %d, summary %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var tick struct {
		Events []struct {
			Node    int    `json:"node"`
			Event   string `json:"event"`
			Level   string `json:"level"`
			Message string `json:"message"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &tick); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range tick.Events {
		if e.Event == "message" {
			found = e.Node == 3 && e.Level == "error" && strings.Contains(e.Message, `"range.fornt" is not set`)
		}
	}
	if !found {
		t.Errorf("no error message in the trace's last tick: %s", lines[len(lines)-1])
	}
}

// A mission that ends well prints no reason.
func TestSimNoReasonOnSuccess(t *testing.T) {
	code, out, _ := runCmd(t, "sim", "testdata/small.json")
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(out), "after 3 ticks (0.300 s virtual, 1 agent)") {
		t.Errorf("exit %d, output %q", code, out)
	}
}
