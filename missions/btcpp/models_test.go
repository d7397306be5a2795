package btcpp

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/missions"
)

// An imported file's <TreeNodesModel> survives botd: exported back, each
// entry is as declared (a Condition stays a Condition, an output port an
// output, port types and descriptions kept, SubTree models and entries no
// tree uses included), and the export reads back to the same trees and
// exports to the same bytes (botd -> Groot2 -> botd loses nothing).
func TestBTCPPRoundTripKeepsModels(t *testing.T) {
	d, err := missions.DecodeFile("testdata/btcpp-roundtrip/models.xml", missions.Limits{}, nil)
	if err != nil {
		t.Fatal(problemLines(err))
	}
	out, err := Export(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<Condition ID="IsDoorOpen">`, `<input_port name="door" type="std::string" description="which door"/>`,
		`<output_port name="path" type="nav_msgs::msg::Path"/>`, `<inout_port name="path" type="nav_msgs::msg::Path"/>`,
		`<Decorator ID="RetryOnce"/>`, `<Control ID="NotUsedHere"/>`,
		`<SubTree ID="Move">`, `<input_port name="target" default="{goal}"/>`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the export lacks %s:\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte(`<Action ID="IsDoorOpen"`)) {
		t.Errorf("the Condition is written as an Action:\n%s", out)
	}
	back, err := missions.Decode(out)
	if err != nil {
		t.Fatalf("the export does not load: %s\n%s", problemLines(err), out)
	}
	if !reflect.DeepEqual(back.Trees, d.Trees) || back.Main != d.Main {
		t.Errorf("the export reads back to other trees:\n%s", out)
	}
	again, err := Export(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, out) {
		t.Errorf("a second round trip changes the file:\n%s\nthen\n%s", out, again)
	}
	// Both compile to the same tree.
	subs := starSucceed(t)
	m1, err1 := d.Compile(missions.Options{Substitutions: subs})
	m2, err2 := back.Compile(missions.Options{Substitutions: subs})
	if err1 != nil || err2 != nil || m1.Tree.Len() != m2.Tree.Len() {
		t.Errorf("compiled: %v %v", err1, err2)
	}
	// A document from elsewhere has no file's model: botd's own is written.
	if strings.Contains(string(mustExport(t, mustDecode(t, []byte("format: botd/mission@1\nmain: m\ntrees:\n  m: {type: Succeed}\n")))), "TreeNodesModel") {
		t.Error("a botd mission of BT.CPP built-ins gets a model")
	}
}

func mustExport(t *testing.T, d *missions.Document) []byte {
	t.Helper()
	out, err := Export(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
