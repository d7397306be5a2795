package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// botd export writes BehaviorTree.CPP XML that botd reads back into the
// same tree, and that checks and runs as the original does.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "nav2.xml")
	if code, _, errOut := runCmd(t, "export", "-format", "btcpp", "-o", out, nav2Default); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<root BTCPP_format="4" main_tree_to_execute="NavigateToPoseWReplanningAndRecovery">`,
		`<BehaviorTree ID="NavigateToPoseWReplanningAndRecovery">`, `<RecoveryNode name="NavigateRecovery" number_of_retries="6">`,
		`<TreeNodesModel>`, `<Action ID="ComputePathToPose">`, `<Control ID="PipelineSequence"/>`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("export lacks %q", want)
		}
	}
	if code, stdout, _ := runCmd(t, "check", "-substitute", "*=Succeed", out); code != 0 {
		t.Errorf("check of the export: exit %d\n%s", code, stdout)
	}
	_, orig, _ := runCmd(t, "sim", "-trace", "-", "-substitute", "*=Succeed,FollowPath=Running:2,Failure,Failure,Running:2,Success", nav2Default)
	_, again, _ := runCmd(t, "sim", "-trace", "-", "-substitute", "*=Succeed,FollowPath=Running:2,Failure,Failure,Running:2,Success", out)
	if orig != again {
		t.Errorf("the exported tree runs differently")
	}
	// To stdout, and in the other formats.
	code, x, _ := runCmd(t, "export", nav2Default)
	if code != 0 || xml.Unmarshal([]byte(x), new(struct{})) != nil {
		t.Errorf("export to stdout: exit %d", code)
	}
	code, b3, _ := runCmd(t, "export", "-format", "b3", nav2Default)
	var project map[string]any
	if code != 0 || json.Unmarshal([]byte(b3), &project) != nil || project["scope"] != "project" {
		t.Errorf("export -format b3: exit %d\n%.200s", code, b3)
	}
	code, js, _ := runCmd(t, "export", "-format", "botd", nav2Default)
	if code != 0 || !strings.Contains(js, `"format": "botd/mission@1"`) {
		t.Errorf("export -format botd: exit %d", code)
	}
	botdFile := filepath.Join(dir, "nav2.json")
	if err := os.WriteFile(botdFile, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, x2, _ := runCmd(t, "export", botdFile); code != 0 || x2 != x {
		t.Errorf("XML -> botd -> XML changed the XML (exit %d)", code)
	}
}

func TestExportErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
		text string
	}{
		{[]string{"export"}, 2, "usage"},
		{[]string{"export", "-format", "yaml", nav2Default}, 2, "unknown format"},
		{[]string{"export", "testdata/missing.xml"}, 1, "no such file"},
		{[]string{"export", "testdata/invalid.json"}, 0, ""}, // decodes: compile problems do not stop an export
	} {
		code, out, errOut := runCmd(t, tc.args...)
		if code != tc.want || !strings.Contains(strings.ToLower(out+errOut), tc.text) {
			t.Errorf("%v: exit %d\n%s%s", tc.args, code, out, errOut)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.xml")
	if err := os.WriteFile(bad, []byte("<root BTCPP_format=\"4\"><BehaviorTree ID=\"A\"><Sequence></BehaviorTree></root>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "export", bad); code != 1 || !strings.Contains(out, "invalid XML: line 1") {
		t.Errorf("malformed XML: exit %d\n%s", code, out)
	}
}

func TestNodesBTCPP(t *testing.T) {
	code, out, _ := runCmd(t, "nodes", "-format", "btcpp")
	if code != 0 || !strings.Contains(out, `<root BTCPP_format="4">`) || !strings.Contains(out, `<Action ID="MoveTo">`) {
		t.Fatalf("exit %d\n%.300s", code, out)
	}
	if err := xml.Unmarshal([]byte(out), new(struct{})); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCmd(t, "nodes", "-format", "svg"); code != 2 {
		t.Errorf("unknown format: exit %d", code)
	}
}
