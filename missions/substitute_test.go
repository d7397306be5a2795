package missions

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseSubstitutions(t *testing.T) {
	got, err := ParseSubstitutions(" ComputePathToPose=Succeed, FollowPath = Running ,")
	want := map[string]string{"ComputePathToPose": "Succeed", "FollowPath": "Running"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, %v", got, err)
	}
	if got, err := ParseSubstitutions(""); err != nil || len(got) != 0 {
		t.Errorf("empty rules: %v, %v", got, err)
	}
	for rule, msg := range map[string]string{
		"ComputePathToPose":     `substitution "ComputePathToPose": want Type=Replacement`,
		"A=":                    `substitution "A=": empty type name`,
		"=Succeed":              `substitution "=Succeed": empty type name`,
		"A=Succeed,A=Fail":      `substitution for "A" given twice (Succeed and Fail)`,
		"A=Succeed,,B":          `substitution "B": want Type=Replacement`,
		"A=Succeed,A=Succeed,C": `substitution "C": want Type=Replacement`,
	} {
		if _, err := ParseSubstitutions(rule); err == nil || err.Error() != msg {
			t.Errorf("%q: error %v, want %s", rule, err, msg)
		}
	}
}

func TestLoadSubstitutionFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := map[string]string{"ComputePathToPose": "Succeed", "FollowPath": "Running"}
	for name, body := range map[string]string{
		"subs.json": `{"ComputePathToPose": "Succeed", "FollowPath": "Running"}`,
		"subs.txt":  "# Nav2 stand-ins\nComputePathToPose=Succeed\n\n  FollowPath = Running\n",
	} {
		got, err := LoadSubstitutionFile(write(name, body))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, %v", name, got, err)
		}
	}
	bad := write("bad.txt", "A=Succeed\nB\n")
	if _, err := LoadSubstitutionFile(bad); err == nil || err.Error() != bad+`: line 2: substitution "B": want Type=Replacement` {
		t.Errorf("got %v", err)
	}
	badJSON := write("bad.json", `{"A": 1}`)
	if _, err := LoadSubstitutionFile(badJSON); err == nil {
		t.Error("a JSON value that is not a string was accepted")
	}
	if _, err := LoadSubstitutionFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file was accepted")
	}
}
