package missions

import (
	"reflect"
	"testing"

	"github.com/botd-project/botd/bt"
)

const smallMission = `{"format": "botd/mission@1", "id": "2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10", "name": "small",
	"tick_hz": 20, "evaluation": "stored-state", "seed": 7, "blackboard": {"speed": 0.5}, "main": "m",
	"trees": {"m": {"type": "Sequence", "children": [{"type": "Check", "params": {"key": "speed", "op": ">", "value": 0}}, {"type": "Move"}]}}}`

func TestLoad(t *testing.T) {
	m, err := Load([]byte(smallMission), Options{Substitute: map[string]string{"Move": "Succeed"}, Keys: []string{"range.front"}, MinTickHz: 1, MaxTickHz: 50})
	if err != nil {
		t.Fatal(err)
	}
	if m.Doc.Name != "small" || m.Tree.Len() != 3 || m.Tree.Evaluation() != bt.StoredState || m.Tree.Seed() != 7 {
		t.Errorf("got %+v, %d nodes", m.Doc, m.Tree.Len())
	}
	if _, ok := m.Tree.Slot("range.front"); !ok {
		t.Error("Options.Keys did not reach the tree")
	}
	if got := m.Tree.Node(2).Name; got != "Move" {
		t.Errorf("a substituted node is labelled %q, want its original type", got)
	}
}

func TestLoadNeverHalfLoaded(t *testing.T) {
	m, err := Load([]byte(smallMission), Options{})
	if m != nil || err == nil {
		t.Fatalf("mission %v, error %v: an unknown node type must fail the whole load", m, err)
	}
	if got, want := problemLines(err), "UNKNOWN_NODE_TYPE /trees/m/children/1/type: unknown node type \"Move\"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSpec(t *testing.T) {
	d := mustDecode(t, []byte(smallMission))
	subs := map[string]string{"Move": "Succeed"}
	got := d.Spec(Options{Substitute: subs, Keys: []string{"k"}})
	want := &bt.Spec{Trees: d.Trees, Main: "m", Blackboard: d.Blackboard, Evaluation: bt.StoredState, Seed: 7,
		Keys: []string{"k"}, Substitute: subs, Namespace: "2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10", MaxNodes: DefaultLimits().Nodes}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Spec = %+v\nwant %+v", got, want)
	}
	d.ID = ""
	if ns := d.Spec(Options{}).Namespace; ns != "small" {
		t.Errorf("without an id the namespace is %q, want the name", ns)
	}
}

func TestNodeIDsAreStable(t *testing.T) {
	opts := Options{Substitute: map[string]string{"Move": "Succeed"}}
	a, err := Load([]byte(smallMission), opts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Load([]byte(smallMission), opts)
	d := mustDecode(t, []byte(smallMission))
	d.ID = "0e8f1d4c-7b1a-4c1e-9a55-3d2f1e0c9b8a"
	c, err := d.Compile(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < a.Tree.Len(); i++ {
		if a.Tree.Node(i).ID != b.Tree.Node(i).ID {
			t.Errorf("node %d: ids differ between loads", i)
		}
		if a.Tree.Node(i).ID == c.Tree.Node(i).ID {
			t.Errorf("node %d: two missions share an id", i)
		}
	}
}

func TestTickLimits(t *testing.T) {
	for _, tc := range []struct {
		hz       float64
		min, max float64
		want     string
	}{
		{20, 1, 50, ""},
		{0, 1, 50, ""}, // the daemon's default rate
		{50, 1, 50, ""},
		{0.5, 1, 50, "LIMIT_EXCEEDED /tick_hz: 0.5 is below the limit 1\n"},
		{51, 1, 50, "LIMIT_EXCEEDED /tick_hz: 51 is above the limit 50\n"},
		{1000, 0, 0, ""},
	} {
		d := &Document{Format: Format, TickHz: tc.hz, Main: "m", Trees: map[string]*bt.NodeDef{"m": {Type: "Succeed"}}}
		_, err := d.Compile(Options{MinTickHz: tc.min, MaxTickHz: tc.max})
		if got := problemLines(err); got != tc.want {
			t.Errorf("tick_hz %v in [%v, %v]: got %q, want %q", tc.hz, tc.min, tc.max, got, tc.want)
		}
	}
}

func TestCompileChecksFields(t *testing.T) {
	d := &Document{Format: "botd/mission", ID: "x", Revision: -1, Evaluation: "lazy", OnLinkLoss: "go_home", Main: "m",
		Trees: map[string]*bt.NodeDef{"m": {Type: "Succeed"}}}
	_, err := d.Compile(Options{})
	want := "VALIDATION_FAILED /format: unsupported format \"botd/mission\" (want \"botd/mission@1\")\n" +
		"VALIDATION_FAILED /id: \"x\" is not a UUID (want the form 2f6b0c1e-6c1a-4a55-9d0e-1b3f1c8f5a10)\n" +
		"VALIDATION_FAILED /revision: -1 is negative (revisions count from 0)\n" +
		"VALIDATION_FAILED /evaluation: \"lazy\" is not an evaluation mode (want reactive or stored-state)\n" +
		"VALIDATION_FAILED /on_link_loss: \"go_home\" is not continue, hold, abort, land, return_home or a tree of this mission\n"
	if got := problemLines(err); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	d = &Document{Format: Format, OnLinkLoss: "go_home", Main: "m", Trees: map[string]*bt.NodeDef{"m": {Type: "Succeed"}, "go_home": {Type: "Succeed"}}}
	if _, err := d.Compile(Options{}); err != nil {
		t.Errorf("on_link_loss naming a tree: %v", err)
	}
}
