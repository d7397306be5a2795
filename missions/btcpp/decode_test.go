package btcpp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/missions"
)

// missions.Decode reads a document that starts with '<' as BT.CPP XML
// once this package is linked (missions' TestDecodeDetectsFormat has
// botd's own formats).
func TestDecodeDetectsFormat(t *testing.T) {
	d, err := missions.Decode([]byte(`<root BTCPP_format="4"><BehaviorTree ID="solo"><Sleep msec="5"/></BehaviorTree></root>`))
	if err != nil {
		t.Fatal(err)
	}
	want := &bt.NodeDef{Type: "Wait", Params: map[string]any{"ms": 5.0}}
	if d.Main != "solo" || !reflect.DeepEqual(d.Trees["solo"], want) || d.Format != missions.Format {
		t.Errorf("got main %q, trees %v", d.Main, d.Trees)
	}
}

// XML nesting is bounded as JSON's and YAML's is (missions'
// TestDecodeLimitsNesting).
func TestDecodeLimitsNesting(t *testing.T) {
	in := "<root>" + strings.Repeat("<Inverter>", 1000) + strings.Repeat("</Inverter>", 1000) + "</root>"
	_, err := missions.Decode([]byte(in))
	if got := problemLines(err); !strings.HasPrefix(got, "TOO_LARGE ") || !strings.Contains(got, "nesting deeper than 256 levels") {
		t.Errorf("got %q", got)
	}
}

// An attribute is a string under the limit on strings (missions'
// TestLimits).
func TestLimits(t *testing.T) {
	doc := `<root BTCPP_format="4"><BehaviorTree ID="` + strings.Repeat("n", 300) + `"><AlwaysSuccess/></BehaviorTree></root>`
	if _, err := missions.Load([]byte(doc), missions.Options{}); err != nil {
		t.Fatalf("the default limits refuse it: %v", err)
	}
	_, err := missions.Load([]byte(doc), missions.Options{Limits: missions.Limits{StringBytes: 256}})
	if want := "a string of 300 bytes"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
}

// TestInvalidMissions loads every file in testdata/invalid and compares
// the problems, one "CODE path: message" line each, with the expected
// ones written after the file's "-- want --" line (as missions' test of
// the same name, whose daemon limits these are).
func TestInvalidMissions(t *testing.T) {
	opts := missions.Options{Registry: catalog.NewRegistry(), MinTickHz: 1, MaxTickHz: 100}
	for _, path := range files(t, filepath.Join("testdata", "invalid", "*")) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, want := readGolden(t, path)
			m, err := missions.Load(in, opts)
			if err == nil || m != nil {
				t.Fatalf("Load accepted an invalid mission (mission %v, error %v)", m != nil, err)
			}
			checkGolden(t, path, in, want, []byte(problemLines(err)))
		})
	}
}

// A Nav2 tree loads with every unknown node substituted: the actions by
// a leaf, its decorators (here GoalUpdater-like unknown ones) by
// pass-throughs, and the substituted nodes keep their ports in the
// document.
func TestLoadWithSubstitutions(t *testing.T) {
	xml := `<root BTCPP_format="4"><BehaviorTree ID="Main">
	  <PipelineSequence>
	    <MyDecorator rate="2"><ComputePathToPose goal="{goal}" path="{path}"/></MyDecorator>
	    <FollowPath path="{path}" controller_id="FollowPath"/>
	  </PipelineSequence></BehaviorTree></root>`
	subs, err := missions.ParseSubstitutions("*=Succeed,FollowPath=Running:2,Success")
	if err != nil {
		t.Fatal(err)
	}
	m, err := missions.Load([]byte(xml), missions.Options{Substitutions: subs})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for i := 0; i < m.Tree.Len(); i++ {
		types = append(types, m.Tree.Node(i).Type.Name)
	}
	if want := []string{"PipelineSequence", "PassThrough", "Succeed", "Stub"}; !reflect.DeepEqual(types, want) {
		t.Errorf("compiled types %v, want %v", types, want)
	}
	if p := m.Doc.Trees["Main"].Children[1].Params; p["controller_id"] != "FollowPath" {
		t.Errorf("the substituted node lost its ports: %v", p)
	}
	a := bt.NewAgent(m.Tree, 0, 0)
	var got []bt.Status
	for k := int64(1); k <= 3; k++ {
		got = append(got, a.Tick(k*50e6))
	}
	if want := []bt.Status{bt.Running, bt.Running, bt.Success}; !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

// BehaviorTree.CPP's own substitution file is a rule file
// missions.LoadSubstitutionFile reads when this package is linked.
func TestLoadSubstitutionFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rule := func(pattern, typ string, params map[string]any) bt.Substitution {
		return bt.Substitution{Pattern: pattern, With: bt.NodeDef{Type: typ, Params: params}}
	}
	btcpp := write("btcpp.json", `{
	  "TestNodeConfigs": {
	    "NavOK": {"return_status": "SUCCESS", "async_delay": 2000, "post_script": "arrived := true"},
	    "Broken": {"return_status": "FAILURE"}
	  },
	  "SubstitutionRules": {"NavigateToPose": "NavOK", "Spin*": "Broken", "ClearEntireCostmap": "AlwaysSuccess"}
	}`)
	got, err := missions.LoadSubstitutionFile(btcpp)
	wantBTCPP := missions.Substitutions{
		rule("NavigateToPose", "TestNode", map[string]any{"return_status": "SUCCESS", "async_delay": 2000.0, "post_script": "arrived := true"}),
		rule("Spin*", "TestNode", map[string]any{"return_status": "FAILURE"}),
		rule("ClearEntireCostmap", "AlwaysSuccess", nil),
	}
	if err != nil || !reflect.DeepEqual(got, wantBTCPP) {
		t.Errorf("BT.CPP substitution file: got %v, %v", got, err)
	}
	for name, body := range map[string]string{
		"badcfg.json":    `{"TestNodeConfigs": {"X": {"return_status_script": "SUCCESS"}}, "SubstitutionRules": {"A": "X"}}`,
		"nostatus.json":  `{"TestNodeConfigs": {"X": {"async_delay": 1}}, "SubstitutionRules": {"A": "X"}}`,
		"rules.json":     `{"SubstitutionRules": ["A"]}`,
		"configs.json":   `{"TestNodeConfigs": 1, "SubstitutionRules": {"A": "X"}}`,
		"notstring.json": `{"SubstitutionRules": {"A": 1}}`,
	} {
		if _, err := missions.LoadSubstitutionFile(write(name, body)); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
}
