package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// botd check, sim and export read the current Behavior3 editor's files;
// export -format b3tree writes one that reads back as the same tree.
func TestB3TreeCommands(t *testing.T) {
	src := "../../missions/testdata/corpus/behavior3-ts/test-sequence.json"
	if code, out, _ := runCmd(t, "check", "-substitute", "*=Succeed", src); code != 0 || !strings.Contains(out, ": ok (") {
		t.Fatalf("check: exit %d\n%s", code, out)
	}
	// Its tree fails (by design) once its stand-ins succeed: not an error.
	if code, out, errOut := runCmd(t, "sim", "-substitute", "*=Succeed", src); code != simFailed || !strings.Contains(out, "FAILURE") {
		t.Fatalf("sim: exit %d\n%s%s", code, out, errOut)
	}
	out := filepath.Join(t.TempDir(), "test-sequence.json") // the same name: the same tree key, so the same node ids
	if code, _, errOut := runCmd(t, "export", "-format", "b3tree", "-o", out, src); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"root": {`) || !strings.Contains(string(data), `"name": "Sequence"`) {
		t.Errorf("export:\n%s", data)
	}
	_, a, _ := runCmd(t, "sim", "-trace", "-", "-substitute", "*=Succeed", src)
	_, b, _ := runCmd(t, "sim", "-trace", "-", "-substitute", "*=Succeed", out)
	if a == "" || a != b {
		t.Errorf("the exported tree runs differently")
	}
}
