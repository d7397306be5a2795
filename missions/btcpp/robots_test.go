package btcpp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/missions"
)

// BT.CPP 3's Parallel names its thresholds success_threshold and
// failure_threshold (aerostack2's and the ROS 2 book's trees); they read
// as BT.CPP 4's success_count and failure_count, which the export writes,
// so a format 3 file exports to format 4 and reads back the same.
func TestBTCPP3ParallelThresholds(t *testing.T) {
	in := []byte(`<root main_tree_to_execute="Main"><BehaviorTree ID="Main">
  <Parallel success_threshold="1" failure_threshold="2"><AlwaysSuccess/><AlwaysFailure/><AlwaysFailure/></Parallel>
</BehaviorTree></root>`)
	m, err := missions.Load(in, missions.Options{})
	if err != nil {
		t.Fatal(problemLines(err))
	}
	root := m.Doc.Trees["Main"]
	want := map[string]any{"success_count": 1.0, "failure_count": 2.0}
	if root.Type != "ParallelNode" || !reflect.DeepEqual(root.Params, want) {
		t.Fatalf("Parallel reads as %s %v, want ParallelNode %v", root.Type, root.Params, want)
	}
	out, err := Export(m.Doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `success_count="1"`) || strings.Contains(string(out), "threshold") {
		t.Errorf("export:\n%s", out)
	}
	m2, err := missions.Load(out, missions.Options{})
	if err != nil {
		t.Fatal(problemLines(err))
	}
	if !reflect.DeepEqual(m.Doc.Trees, m2.Doc.Trees) {
		t.Errorf("the export reads back as another document:\n%s", out)
	}
}
