package btcpp

import (
	"bytes"
	"encoding/xml"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/missions"
)

// compiledTable compiles a document with every unknown node stood in for
// and returns its node table (the first line of a trace): what "the same
// compiled tree" means for a round trip.
func compiledTable(t *testing.T, d *missions.Document, ids bool) string {
	t.Helper()
	subs, _ := missions.ParseSubstitutions("*=Succeed")
	m, err := d.Compile(missions.Options{Substitutions: subs})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	var b strings.Builder
	for i := 0; i < m.Tree.Len(); i++ {
		n := m.Tree.Node(i)
		id := ""
		if ids {
			id = n.ID
		}
		b.WriteString(strings.Join([]string{id, n.Type.Name, n.Name, n.Path}, " ") + "\n")
	}
	return b.String()
}

// roundTripBTCPP exports d to XML and reads it back.
func roundTripBTCPP(t *testing.T, d *missions.Document) (*missions.Document, []byte) {
	t.Helper()
	x, err := Export(d, nil)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if err := xml.Unmarshal(x, new(struct{})); err != nil {
		t.Fatalf("the export is not well-formed XML: %v\n%s", err, x)
	}
	d2, err := missions.Decode(x)
	if err != nil {
		t.Fatalf("the export does not import: %v\n%s", err, x)
	}
	return d2, x
}

// A BehaviorTree.CPP file exported again and read back is the same
// document: the same trees with the same node types and parameters, so
// the same compiled tree, ids included.
func TestBTCPPRoundTripFromXML(t *testing.T) {
	paths := []string{"testdata/golden/decode/btcpp_builtins.golden", "testdata/golden/decode/btcpp_nav2_follow_point.golden",
		"testdata/golden/decode/btcpp_nav2_replanning_recovery.golden", "testdata/golden/decode/btcpp_talk_v3_style.golden"}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, _ := readGolden(t, path)
			d1 := mustDecode(t, in)
			d2, x := roundTripBTCPP(t, d1)
			if !reflect.DeepEqual(d1.Trees, d2.Trees) || d1.Main != d2.Main {
				j1, _ := d1.JSON()
				j2, _ := d2.JSON()
				t.Fatalf("the round trip changed the document\n--- before ---\n%s\n--- after ---\n%s\n--- XML ---\n%s", j1, j2, x)
			}
			if a, b := compiledTable(t, d1, true), compiledTable(t, d2, true); a != b {
				t.Errorf("compiled trees differ:\n%s\n%s", a, b)
			}
			// And a second export writes the same bytes.
			if _, x2 := roundTripBTCPP(t, d2); !bytes.Equal(x, x2) {
				t.Errorf("the second export differs:\n%s\n%s", x, x2)
			}
		})
	}
}

// A botd mission exported to XML and read back compiles to the same tree
// (parameters come back under their BT.CPP names, aliases as the
// canonical types; the mission's name and settings are not in the format,
// so the generated node ids differ).
func TestBTCPPRoundTripFromBotd(t *testing.T) {
	for _, path := range files(t, filepath.Join("testdata", "golden", "btcppexport", "*.golden")) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			in, _ := readGolden(t, path)
			d1 := mustDecode(t, in)
			d2, x := roundTripBTCPP(t, d1)
			if a, b := compiledTable(t, d1, false), compiledTable(t, d2, false); a != b {
				t.Errorf("compiled trees differ:\n%s\n%s\n%s", a, b, x)
			}
			d3, _ := roundTripBTCPP(t, d2)
			if !reflect.DeepEqual(d2.Trees, d3.Trees) {
				t.Error("a second round trip changed the document")
			}
		})
	}
}

func TestBTCPPExportModel(t *testing.T) {
	d := mustDecode(t, []byte(`<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence>
	  <MyGate rate="2"><MyAction goal="{g}" speed="0.5"/></MyGate>
	  <MyAction goal="{h}" extra="x"/>
	  <MyControl><AlwaysSuccess/><AlwaysFailure/></MyControl>
	  <RateController hz="2"><AlwaysSuccess/></RateController>
	</Sequence></BehaviorTree></root>`))
	x, err := Export(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<Decorator ID="MyGate">`, `<Control ID="MyControl"/>`,
		`<Action ID="MyAction">` + "\n" + `      <input_port name="goal"/>` + "\n" + `      <input_port name="speed" type="double"/>` + "\n" + `      <input_port name="extra"/>`,
		`<Decorator ID="RateController">` + "\n" + `      <input_port name="hz" type="double" default="10">rate (Hz)</input_port>`,
	} {
		if !strings.Contains(string(x), want) {
			t.Errorf("export lacks %q:\n%s", want, x)
		}
	}
	if strings.Contains(string(x), `ID="Sequence"`) || strings.Contains(string(x), `ID="AlwaysSuccess"`) {
		t.Errorf("a BT.CPP built-in is declared:\n%s", x)
	}
}

func TestBTCPPNodesModel(t *testing.T) {
	x := NodesModel(catalog.NewRegistry())
	var root struct {
		Format string `xml:"BTCPP_format,attr"`
		Model  struct {
			Nodes []struct {
				XMLName xml.Name
				ID      string `xml:"ID,attr"`
			} `xml:",any"`
		} `xml:"TreeNodesModel"`
	}
	if err := xml.Unmarshal(x, &root); err != nil || root.Format != "4" {
		t.Fatalf("%v %q", err, root.Format)
	}
	got := map[string]string{}
	for _, n := range root.Model.Nodes {
		got[n.ID] = n.XMLName.Local
	}
	for id, kind := range map[string]string{"RecoveryNode": "Control", "RateController": "Decorator", "Check": "Condition",
		"Stub": "Action", "BotdParallel": "Control", "GoalUpdated": "Condition"} {
		if got[id] != kind {
			t.Errorf("%s is declared as %q, want %s", id, got[id], kind)
		}
	}
	for _, builtin := range []string{"Sequence", "MemSequence", "Wait", "Sleep", "Repeat", "Parallel", "SubTree"} {
		if _, ok := got[builtin]; ok {
			t.Errorf("%s is declared", builtin)
		}
	}
}
