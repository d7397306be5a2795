package btcpp

import (
	"strings"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/missions"
)

// BehaviorTree.CPP 4 loads a file whose port values it can convert only
// when the node runs, and an IfThenElse or WhileDoElse of the wrong size,
// and throws when such a node is ticked. botd loads it too, warns (with
// the XML line) and fails the node with the reason when it runs; a node
// that never runs changes nothing.
func TestBTCPPRuntimeFaults(t *testing.T) {
	m, err := missions.LoadFile("testdata/btcpp-runtime/runtime_values.xml", missions.Options{})
	if err != nil {
		t.Fatalf("BehaviorTree.CPP loads the file, botd refuses it:\n%s", problemLines(err))
	}
	var notes []string
	for _, n := range m.Notes {
		if n.Code != bt.CodeWarning {
			t.Errorf("note %v: code %s, want %s", n, n.Code, bt.CodeWarning)
		}
		notes = append(notes, missions.ProblemText(n))
	}
	for i, want := range []string{
		`line 7: <Delay> delay_msec: want a number`,
		`line 8: <SubTree> gate: want "{key}" or a value, got "{{current_gate}}"`,
		`line 9: <SetBlackboard> output_key: empty blackboard key`,
		`line 10: <WhileDoElse>: WhileDoElse takes at most 3 children, got 4`,
		`line 12: <Delay> delay_msec: want a number`,
	} {
		if i >= len(notes) || !strings.HasPrefix(notes[i], want) {
			t.Errorf("note %d: want %q..., the notes are\n%s", i, want, strings.Join(notes, "\n"))
		}
	}
	if len(notes) != 5 {
		t.Errorf("%d notes, want 5:\n%s", len(notes), strings.Join(notes, "\n"))
	}
	// The document is the file as written: an export gives it back.
	if d := m.Doc.Trees["Main"].Children[1]; d.Type != "Delay" || d.Params["ms"] != "10,000" {
		t.Errorf("the document's second Delay is %s %v, want the file's", d.Type, d.Params)
	}
	st, _, log := runVirtual(m, 20, 5)
	if st != bt.Error {
		t.Fatalf("the mission ends %v, want ERROR at the second Delay (log %q)", st, log)
	}
	if len(log) != 1 || !strings.Contains(log[0], `<Delay> delay_msec: want a number or "{key}", got the string "10,000"`) {
		t.Errorf("the reason is %q, want the Delay's", log)
	}
}

// A node of a BT.CPP file named like one of botd's device leaves, on a
// robot without that device, is the file's own node: it loads, standing
// in as the wildcard rule says (with a note), or failing when it runs.
// A botd mission that names the leaf is still refused.
func TestBTCPPDeviceLeafStandsIn(t *testing.T) {
	reg := catalog.NewRegistry()
	reg.Register(bt.NodeType{Name: "Land", Kind: bt.Leaf, New: func(b *bt.Builder) bt.Behavior {
		b.Errorf("", "the robot config has no mavlink_vehicle device")
		return nil
	}})
	file := "testdata/btcpp-runtime/land.xml"
	m, err := missions.LoadFile(file, missions.Options{Registry: reg, Substitutions: starSucceed(t)})
	if err != nil {
		t.Fatalf("with '*=Succeed': %s", problemLines(err))
	}
	if len(m.Notes) != 1 || !strings.HasPrefix(missions.ProblemText(m.Notes[0]), "line 6: <Land> is named like botd's Land leaf, which cannot run here") ||
		!strings.Contains(m.Notes[0].Message, "stands in as Succeed") {
		t.Errorf("notes %v, want the Land's stand-in", m.Notes)
	}
	if st, _, log := runVirtual(m, 20, 5); st != bt.Success {
		t.Errorf("the mission ends %v (%q), want SUCCESS", st, log)
	}
	subs, err := missions.ParseSubstitutions("TakeOff=Succeed")
	if err != nil {
		t.Fatal(err)
	}
	m, err = missions.LoadFile(file, missions.Options{Registry: reg, Substitutions: subs})
	if err != nil {
		t.Fatalf("without a wildcard rule: %s", problemLines(err))
	}
	if st, _, log := runVirtual(m, 20, 5); st != bt.Error || len(log) != 1 || !strings.Contains(log[0], "mavlink_vehicle") {
		t.Errorf("the mission ends %v (%q), want ERROR at Land saying why", st, log)
	}
	yaml := []byte("format: botd/mission@1\nmain: m\ntrees:\n  m: {type: Land}\n")
	if _, err := missions.Load(yaml, missions.Options{Registry: reg}); err == nil {
		t.Error("a botd mission's Land loads on a robot without a vehicle")
	}
}

// What BehaviorTree.CPP refuses when it loads a file stays refused: an
// unknown port, a Delay without a child, a recursive SubTree.
func TestBTCPPLoadTimeProblemsStay(t *testing.T) {
	for name, in := range map[string]string{
		"unknown port":   `<Delay delay_ms="10"><AlwaysSuccess/></Delay>`,
		"Delay no child": `<Delay delay_msec="10"/>`,
		"TryCatch of 1":  `<TryCatch><AlwaysSuccess/></TryCatch>`,
		"recursion":      `<SubTree ID="Main"/>`,
		"bad script":     `<Script code="x := := 1"/>`,
	} {
		doc := "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"Main\">\n" + in + "\n</BehaviorTree>\n</root>\n"
		if _, err := missions.Load([]byte(doc), missions.Options{}); err == nil {
			t.Errorf("%s: loads", name)
		} else if !strings.Contains(err.Error(), "line 3: ") {
			t.Errorf("%s: the problem names no line: %v", name, err)
		}
	}
}

// Problems of a BT.CPP file name the line of the element each is about,
// in file order, whatever the tree IDs.
func TestBTCPPProblemLines(t *testing.T) {
	doc := `<root BTCPP_format="4">
<BehaviorTree ID="Z">
  <Sequence>
    <Mystery/>
    <Timeout msec="-1"><AlwaysSuccess/></Timeout>
  </Sequence>
</BehaviorTree>
<BehaviorTree ID="A">
  <Inverter><Bogus/></Inverter>
</BehaviorTree>
</root>`
	_, err := missions.Load([]byte(doc), missions.Options{})
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(problemLines(err)), "\n") {
		_, msg, _ := strings.Cut(l, ": ")
		got = append(got, msg)
	}
	want := []string{`line 4: <Mystery>: unknown node type "Mystery"`, `line 5: <Timeout> msec: -1 is below the limit 0`, `line 9: <Bogus>: unknown node type "Bogus"`}
	if len(got) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: %q, want %q...", i, got[i], want[i])
		}
	}
}

func TestProblemText(t *testing.T) {
	if s := missions.ProblemText(bt.Problem{Path: "/trees/m", Message: "line 3: <X>: no"}); s != "line 3: <X>: no" {
		t.Errorf("located: %q", s)
	}
	if s := missions.ProblemText(bt.Problem{Path: "/trees/m", Message: "no"}); s != "/trees/m: no" {
		t.Errorf("not located: %q", s)
	}
}
