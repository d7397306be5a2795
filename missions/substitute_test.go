package missions

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/botd-project/botd/bt"
)

func rule(pattern, typ string, params map[string]any) bt.Substitution {
	return bt.Substitution{Pattern: pattern, With: bt.NodeDef{Type: typ, Params: params}}
}

func stubRule(pattern, script string) bt.Substitution {
	return rule(pattern, "Stub", map[string]any{"script": script})
}

func TestParseSubstitutions(t *testing.T) {
	for in, want := range map[string]Substitutions{
		" ComputePathToPose=Succeed, FollowPath = Running ,": {rule("ComputePathToPose", "Succeed", nil), rule("FollowPath", "Running", nil)},
		"*=Succeed,FollowPath=Running:3,Success,Spin=2s": {
			rule("*", "Succeed", nil), stubRule("FollowPath", "Running:3,Success"), stubRule("Spin", "Running:2s,Success")},
		"/trees/main/children/0=Fail,@plan=Failure,Success": {rule("/trees/main/children/0", "Fail", nil), stubRule("@plan", "Failure,Success")},
		"Nav2Thing=MyDeviceLeaf":                            {rule("Nav2Thing", "MyDeviceLeaf", nil)},
		"A=Succeed,A=Succeed":                               {rule("A", "Succeed", nil)},
		"":                                                  nil,
		"ComputePath=Success, , ,":                          {stubRule("ComputePath", "Success")},
	} {
		got, err := ParseSubstitutions(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %v, %v; want %v", in, got, err, want)
		}
	}
	for rules, msg := range map[string]string{
		"ComputePathToPose": `substitution "ComputePathToPose": want Pattern=Replacement`,
		"A=":                `substitution "A=": empty pattern or replacement`,
		"=Succeed":          `substitution "=Succeed": empty pattern or replacement`,
		"A=Succeed,A=Fail":  `substitution for "A" given twice (Succeed and Fail)`,
		"A=Succeed,,B":      `substitution "A=Succeed,B": "Succeed,B" is neither a node type nor a status script (Running:3,Success)`,
		"A=Running:x":       `substitution "A=Running:x": "Running:x" is neither a node type nor a status script (Running:3,Success)`,
	} {
		if _, err := ParseSubstitutions(rules); err == nil || err.Error() != msg {
			t.Errorf("%q: error %v, want %s", rules, err, msg)
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
	want := Substitutions{rule("ComputePathToPose", "Succeed", nil), stubRule("FollowPath", "Running:3,Success")}
	for name, body := range map[string]string{
		"subs.json": `{"ComputePathToPose": "Succeed", "FollowPath": "Running:3,Success"}`,
		"subs.txt":  "# Nav2 stand-ins\nComputePathToPose=Succeed\n\n  FollowPath = Running:3,Success\n",
	} {
		got, err := LoadSubstitutionFile(write(name, body))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, %v", name, got, err)
		}
	}
	// A format's own rule files are its package's (missions/btcpp reads
	// BehaviorTree.CPP's).
	bad := write("bad.txt", "A=Succeed\nB\n")
	if _, err := LoadSubstitutionFile(bad); err == nil || err.Error() != bad+`: line 2: substitution "B": want Pattern=Replacement` {
		t.Errorf("got %v", err)
	}
	for name, body := range map[string]string{
		"bad.json": `{"A": 1}`,
	} {
		if _, err := LoadSubstitutionFile(write(name, body)); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
	if _, err := LoadSubstitutionFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file was accepted")
	}
}
