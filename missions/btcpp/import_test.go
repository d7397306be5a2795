package btcpp

import (
	"reflect"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"github.com/botd-project/botd/missions"
)

func TestBTCPPBuiltinsCompile(t *testing.T) {
	in, _ := readGolden(t, "testdata/golden/decode/btcpp_builtins.golden")
	subs := map[string]string{"ComputePath": "Succeed", "PathValid": "Succeed", "ClearCostmap": "Succeed"}
	if _, err := missions.Load(in, missions.Options{Registry: catalog.NewRegistry(), Substitute: subs}); err != nil {
		t.Errorf("every built-in of the file compiles; got\n%s", problemLines(err))
	}
}

// TestBTCPPNamesMap checks that every BT.CPP built-in the importer
// renames becomes a canonical botd type that takes the renamed ports, and
// that the BT.CPP and Nav2 built-ins it keeps by name are registered under
// that name.
func TestBTCPPNamesMap(t *testing.T) {
	reg := catalog.NewRegistry()
	for name, m := range btcppBuiltins {
		to, ok := reg.Lookup(m.to)
		if !ok || to.Name != m.to {
			t.Errorf("%s maps to %q, which is not a canonical type", name, m.to)
			continue
		}
		for from, toParam := range m.ports {
			if p := to.Param(toParam); p == nil {
				t.Errorf("%s: port %q maps to %q, which %s does not take", name, from, toParam, m.to)
			}
		}
	}
	for _, name := range []string{
		"SequenceWithMemory", "ParallelAll", "IfThenElse", "WhileDoElse", "Switch2", "Switch6", "Inverter",
		"Repeat", "RetryUntilSuccessful", "KeepRunningUntilFailure", "Timeout", "Precondition",
		"LoopInt", "LoopDouble", "LoopString", "LoopBool", "Script", "ScriptCondition", "UnsetBlackboard",
		"WasEntryUpdated", "WaitValueUpdate", "TestNode",
		"PipelineSequence", "RecoveryNode", "RoundRobin", "RateController", "DistanceController", "SpeedController",
		"GoalUpdated", "GlobalUpdatedGoal", "GoalUpdater", "GoalUpdatedController", "SingleTrigger",
		"PathExpiringTimer", "TimeExpired", "IsBatteryLow", "IsBatteryCharging", "NonblockingSequence", "PersistentSequence",
	} {
		if nt, ok := reg.Lookup(name); !ok || nt.Name != name {
			t.Errorf("%s is not registered under its own name", name)
		}
		if _, renamed := btcppBuiltins[name]; renamed {
			t.Errorf("%s is both renamed and kept", name)
		}
	}
}

func TestAttrValue(t *testing.T) {
	for in, want := range map[string]any{
		"1": 1.0, "-0.5": -0.5, "1e3": 1000.0, ".25": 0.25, "+2": 2.0,
		"true": true, "false": false, "True": true, "FALSE": false, "yes": "yes",
		"{goal}": "{goal}", "0x10": "0x10", "inf": "inf", "NaN": "NaN", "1e999": "1e999",
		"1;2;3": "1;2;3", "": "", "GridBased": "GridBased", " 1": " 1",
	} {
		if got := attrValue(in); got != want {
			t.Errorf("attrValue(%q) = %#v, want %#v", in, got, want)
		}
	}
}

func TestBTCPPMainTree(t *testing.T) {
	for _, tc := range []struct{ xml, main string }{
		{`<root BTCPP_format="4"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree><BehaviorTree ID="B"><AlwaysSuccess/></BehaviorTree></root>`, "A"},
		{`<root BTCPP_format="4" main_tree_to_execute="B"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree><BehaviorTree ID="B"><A/></BehaviorTree></root>`, "B"},
		{`<?xml version="1.0"?><root><BehaviorTree ID="Only"><Sleep msec="5"/></BehaviorTree></root>`, "Only"},
	} {
		d := mustDecode(t, []byte(tc.xml))
		if d.Main != tc.main {
			t.Errorf("main = %q, want %q in %s", d.Main, tc.main, tc.xml)
		}
		if _, err := d.Compile(missions.Options{}); err != nil {
			t.Errorf("%s: %v", tc.xml, err)
		}
	}
	// An element named after a tree of the document runs that tree.
	d := mustDecode(t, []byte(`<root BTCPP_format="4" main_tree_to_execute="B"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree><BehaviorTree ID="B"><A name="run a"/></BehaviorTree></root>`))
	want := &bt.NodeDef{Type: "SubTree", Name: "run a", Params: map[string]any{"tree": "A", "autoremap": false}}
	if !reflect.DeepEqual(d.Trees["B"], want) {
		t.Errorf("tree B = %+v, want %+v", d.Trees["B"], want)
	}
}
