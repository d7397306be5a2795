package bt

import (
	"fmt"
	"time"
)

// Compile a tree once and tick an agent on it with virtual time.
func ExampleRegistry_Compile() {
	tree, err := NewRegistry().Compile(&Spec{
		Main: "main",
		Trees: map[string]*NodeDef{
			"main": {Type: "Sequence", Name: "root", Children: []*NodeDef{
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
	a := NewAgent(tree, 0, 0)
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
	_, err := NewRegistry().Compile(&Spec{
		Main: "main",
		Trees: map[string]*NodeDef{
			"main": {Type: "Sequence", Children: []*NodeDef{
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
	tree, err := NewRegistry().Compile(&Spec{
		Main: "main",
		Trees: map[string]*NodeDef{
			"main": {Type: "Priority", Name: "root", Children: []*NodeDef{
				{Type: "Sequence", Name: "work", Children: []*NodeDef{
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
	a := NewAgent(tree, 0, 0)
	a.SetObserver(ObserverFunc(func(a *Agent, node int32, ev Event, st Status) {
		line := fmt.Sprintf("  %s %v", a.Tree().Node(int(node)).Name, ev)
		if ev == EventTick {
			line += " " + st.String()
		}
		fmt.Println(line)
	}))
	ok, _ := tree.Slot("ok")
	fmt.Println("tick 1")
	a.Tick(int64(time.Second))
	a.BB.Set(ok, BoolValue(false))
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
