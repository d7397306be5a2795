package bt_test

import (
	"fmt"
	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
	"time"
)

// Compile a tree once and tick an agent on it with virtual time.
func ExampleRegistry_Compile() {
	tree, err := catalog.NewRegistry().Compile(&bt.Spec{
		Main: "main",
		Trees: map[string]*bt.NodeDef{
			"main": {Type: "Sequence", Name: "root", Children: []*bt.NodeDef{
				{Type: "Check", Params: map[string]any{"key": "battery", "op": ">", "value": 20}},
				{Type: "Wait", Params: map[string]any{"ms": 100}},
			}},
		},
		Blackboard: map[string]any{"battery": 80},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	a := bt.NewAgent(tree, 0, 0)
	for k := int64(1); k <= 3; k++ {
		now := k * int64(50*time.Millisecond)
		fmt.Printf("t=%dms %v\n", now/1e6, a.Tick(now))
	}
	// Output:
	// t=50ms RUNNING
	// t=100ms RUNNING
	// t=150ms SUCCESS
}

// Every problem of a mission is reported at once, with its JSON path.
func ExampleProblems() {
	_, err := catalog.NewRegistry().Compile(&bt.Spec{
		Main: "main",
		Trees: map[string]*bt.NodeDef{
			"main": {Type: "Sequence", Children: []*bt.NodeDef{
				{Type: "wait", Params: map[string]any{"ms": 10}},
				{Type: "Wait", Params: map[string]any{"ms": -5}},
				{Type: "Inverter"},
			}},
		},
	})
	fmt.Println(err)
	// Output:
	// 3 problems:
	//   /trees/main/children/0/type: unknown node type "wait" (did you mean "Wait"?)
	//   /trees/main/children/1/params/ms: -5 is below the limit 0
	//   /trees/main/children/2: Inverter takes exactly 1 child, got 0
}

// An observer sees every lifecycle event in order: here a guard that
// starts failing makes the Priority move on, and the running branch it
// left is halted.
func ExampleObserverFunc() {
	tree, err := catalog.NewRegistry().Compile(&bt.Spec{
		Main: "main",
		Trees: map[string]*bt.NodeDef{
			"main": {Type: "Priority", Name: "root", Children: []*bt.NodeDef{
				{Type: "Sequence", Name: "work", Children: []*bt.NodeDef{
					{Type: "Check", Name: "ok?", Params: map[string]any{"key": "ok", "value": true}},
					{Type: "Running", Name: "drive"},
				}},
				{Type: "Succeed", Name: "stop"},
			}},
		},
		Blackboard: map[string]any{"ok": true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	a := bt.NewAgent(tree, 0, 0)
	a.SetObserver(bt.ObserverFunc(func(a *bt.Agent, node int32, ev bt.Event, st bt.Status) {
		line := fmt.Sprintf("  %s %v", a.Tree().Node(int(node)).Name, ev)
		if ev == bt.EventTick {
			line += " " + st.String()
		}
		fmt.Println(line)
	}))
	ok, _ := tree.Slot("ok")
	fmt.Println("tick 1")
	a.Tick(int64(time.Second))
	a.BB.Set(ok, bt.BoolValue(false))
	fmt.Println("tick 2")
	a.Tick(2 * int64(time.Second))
	// Output:
	// tick 1
	//   root open
	//   work open
	//   ok? open
	//   ok? tick SUCCESS
	//   ok? close
	//   drive open
	//   drive tick RUNNING
	//   work tick RUNNING
	//   root tick RUNNING
	// tick 2
	//   ok? open
	//   ok? tick FAILURE
	//   ok? close
	//   work tick FAILURE
	//   drive halt
	//   work close
	//   stop open
	//   stop tick SUCCESS
	//   stop close
	//   root tick SUCCESS
	//   root close
}

// Agents sharing one tree take turns through a Gate: the second agent is
// refused while the first is inside (and logs instead), and gets in as
// soon as the first has left, in the same tick.
func ExampleNodeType_gate() {
	tree, err := catalog.NewRegistry().Compile(&bt.Spec{
		Main: "main",
		Trees: map[string]*bt.NodeDef{
			"main": {Type: "Priority", Children: []*bt.NodeDef{
				{Type: "Gate", Params: map[string]any{"max": 1}, Children: []*bt.NodeDef{
					{Type: "Wait", Params: map[string]any{"ms": 100}},
				}},
				{Type: "Log", Params: map[string]any{"message": "gate busy"}},
			}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, b := bt.NewAgent(tree, 0, 0), bt.NewAgent(tree, 1, 0)
	for k := int64(1); k <= 3; k++ {
		now := k * int64(50*time.Millisecond)
		fmt.Printf("t=%dms agent 0: %v, agent 1: %v\n", now/1e6, a.Tick(now), b.Tick(now))
	}
	// Output:
	// t=50ms agent 0: RUNNING, agent 1: SUCCESS
	// t=100ms agent 0: RUNNING, agent 1: SUCCESS
	// t=150ms agent 0: SUCCESS, agent 1: RUNNING
}

// A state machine whose states run trees; the transition conditions are
// expressions over the blackboard.
func ExampleNodeType_stateMachine() {
	tree, err := catalog.NewRegistry().Compile(&bt.Spec{
		Main: "main",
		Trees: map[string]*bt.NodeDef{
			"main": {Type: "StateMachine", Params: map[string]any{
				"initial": "search",
				"states": map[string]any{
					"search":   map[string]any{"tree": "spiral"},
					"approach": map[string]any{"tree": "approach"},
					"docked":   map[string]any{"result": "SUCCESS"},
				},
				"transitions": []any{
					map[string]any{"from": "search", "to": "approach", "when": "beacon == true"},
					map[string]any{"from": "approach", "to": "docked", "when": "contact == true"},
				},
				"state_key": "state",
			}},
			"spiral":   {Type: "Running"},
			"approach": {Type: "Running"},
		},
		Blackboard: map[string]any{"beacon": false, "contact": false},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	a := bt.NewAgent(tree, 0, 0)
	beacon, _ := tree.Slot("beacon")
	contact, _ := tree.Slot("contact")
	state, _ := tree.Slot("state")
	for k := int64(1); k <= 4; k++ {
		switch k {
		case 2:
			a.BB.Set(beacon, bt.BoolValue(true))
		case 4:
			a.BB.Set(contact, bt.BoolValue(true))
		}
		st := a.Tick(k)
		fmt.Printf("tick %d: %v in %v\n", k, st, a.BB.Get(state))
	}
	// Output:
	// tick 1: RUNNING in search
	// tick 2: RUNNING in approach
	// tick 3: RUNNING in approach
	// tick 4: SUCCESS in docked
}

// A tree injected into a DynamicSubTree's slot for every agent is validated
// first, and runs from the next time the node opens.
func ExampleTree_InjectAll() {
	reg := catalog.NewRegistry()
	tree, err := reg.Compile(&bt.Spec{
		Main: "main",
		Trees: map[string]*bt.NodeDef{
			"main": {Type: "Repeater", Params: map[string]any{"count": 2}, Children: []*bt.NodeDef{
				{Type: "DynamicSubTree", Params: map[string]any{"slot": "task", "default": "idle"}},
			}},
			"idle": {Type: "Log", Params: map[string]any{"message": "nothing to do"}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = reg.CompileSlotTree(tree, "task", &bt.Spec{Main: "t", Trees: map[string]*bt.NodeDef{
		"t": {Type: "Wait"},
	}})
	fmt.Println(err)
	task, err := reg.CompileSlotTree(tree, "task", &bt.Spec{Main: "t", Trees: map[string]*bt.NodeDef{
		"t": {Type: "Log", Params: map[string]any{"message": "working on {job}"}},
	}, Blackboard: map[string]any{"job": "survey"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	a := bt.NewAgent(tree, 0, 0)
	a.Sink = printSink{}
	a.Tick(1)
	if err := tree.InjectAll("task", task); err != nil {
		fmt.Println(err)
	}
	a.Tick(2)
	fmt.Println(tree.Slots())
	// Output:
	// /trees/t/params/ms: missing required parameter "ms" (number)
	// nothing to do
	// working on survey
	// [task]
}

type printSink struct{}

func (printSink) Emit(_ *bt.Agent, _ int32, _, msg string) { fmt.Println(msg) }
