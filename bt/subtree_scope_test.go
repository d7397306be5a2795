package bt

import (
	"reflect"
	"testing"
)

// SubTree blackboards as BehaviorTree.CPP has them (gtest_subtree.cpp).
// The Record leaf (loop_test.go) notes the value of a key as its node sees
// it.
func TestSubTreeBlackboards(t *testing.T) {
	say := func(key string) *NodeDef { return nd("Record", "", kv{"key": key}) }
	for _, tc := range []struct {
		name   string
		main   *NodeDef
		sub    *NodeDef
		bb     kv
		status string
		values []any
	}{
		{
			// SubtreePlusA: a port remapped to a caller's key, a literal
			// port, and autoremap.
			name: "SubtreePlusA",
			main: nd("MemSequence", "", nil,
				nd("Script", "", kv{"code": "myParam = 'Hello'"}),
				nd("SubTree", "", kv{"tree": "sub", "autoremap": false, "param": "{myParam}"}),
				nd("SubTree", "", kv{"tree": "sub", "autoremap": false, "param": "World"}),
				nd("Script", "", kv{"code": "param = 'Auto remapped'"}),
				nd("SubTree", "", kv{"tree": "sub", "autoremap": true})),
			sub:    say("param"),
			status: "S",
			values: []any{"Hello", "World", "Auto remapped"},
		},
		{
			// SubtreePlusB: autoremap with a remapped and a literal port.
			name: "SubtreePlusB",
			main: nd("MemSequence", "", nil,
				nd("Script", "", kv{"code": "myParam = 'Hello World'; param3 = 'Auto remapped'"}),
				nd("SubTree", "", kv{"tree": "sub", "autoremap": true, "param1": "{myParam}", "param2": "Straight Talking"})),
			sub:    nd("MemSequence", "", nil, say("param1"), say("param2"), say("param3")),
			status: "S",
			values: []any{"Hello World", "Straight Talking", "Auto remapped"},
		},
		{
			// GoodRemapping: an input port and an output port.
			name: "GoodRemapping",
			main: nd("MemSequence", "", nil,
				nd("Script", "", kv{"code": " thoughts = 'hello' "}),
				nd("SubTree", "", kv{"tree": "sub", "autoremap": false, "in_arg": "{thoughts}", "out_arg": "{greetings}"}),
				say("greetings")),
			sub:    nd("Set", "", kv{"key": "out_arg", "value": "{in_arg}"}),
			status: "S",
			values: []any{"hello"},
		},
		{
			// Without autoremap the subtree's keys are its own: what it
			// writes is not the caller's, and it does not see the caller's.
			name: "own blackboard",
			main: nd("MemSequence", "", nil,
				nd("SubTree", "", kv{"tree": "sub", "autoremap": false}),
				say("x")),
			sub:    nd("MemSequence", "", nil, say("x"), nd("Script", "", kv{"code": "x := 2"})),
			bb:     kv{"x": 1},
			status: "S",
			values: []any{nil, 1.0},
		},
		{
			// PrivateAutoRemapping: keys starting with '_' stay private.
			name: "PrivateAutoRemapping",
			main: nd("MemSequence", "", nil,
				nd("SubTree", "", kv{"tree": "sub"}),
				say("public_value"), say("_private_value")),
			sub: nd("MemSequence", "", nil,
				nd("Set", "", kv{"key": "public_value", "value": "hello"}),
				nd("Set", "", kv{"key": "_private_value", "value": "world"})),
			status: "S",
			values: []any{"hello", nil},
		},
		{
			// LiteralNumericPortsPreserveType.
			name: "LiteralNumericPortsPreserveType",
			main: nd("SubTree", "", kv{"tree": "sub", "autoremap": false, "int_val": 42, "dbl_val": 3.14, "str_val": "hello",
				"remapped_val": "{from_parent}"}),
			sub: nd("MemSequence", "", nil,
				nd("ScriptCondition", "", kv{"code": " int_val + 1 == 43 "}),
				nd("ScriptCondition", "", kv{"code": " dbl_val > 3.0 "}),
				nd("ScriptCondition", "", kv{"code": " remapped_val + 1 == 101 "})),
			bb:     kv{"from_parent": 100},
			status: "S",
		},
		{
			name: "{=} remaps to the same name, @ is the global key",
			main: nd("MemSequence", "", nil,
				nd("SubTree", "", kv{"tree": "sub", "autoremap": false, "goal": "{=}"})),
			sub:    nd("MemSequence", "", nil, say("goal"), say("@mode"), say("mode")),
			bb:     kv{"goal": "dock", "mode": "auto"},
			status: "S",
			values: []any{"dock", "auto", nil},
		},
		{
			name: "nested scopes",
			main: nd("SubTree", "", kv{"tree": "mid", "autoremap": false, "a": "{top}"}),
			sub:  say("deep"),
			bb:   kv{"top": "T"},
			// mid calls sub with deep <- a, which is top.
			status: "S",
			values: []any{"T"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []specOpt{withBB(tc.bb), withTree("sub", tc.sub)}
			if tc.name == "nested scopes" {
				opts = append(opts, withTree("mid", nd("SubTree", "", kv{"tree": "sub", "autoremap": false, "deep": "{a}"})))
			}
			reg := testRegistry()
			reg.Register(recordType)
			tree, err := reg.Compile(mainSpec(tc.main, opts...))
			if err != nil {
				t.Fatal(err)
			}
			a := NewAgent(tree, 0, 0)
			rec := &recorded{}
			a.Env = rec
			st := a.Tick(10 * ms)
			if string(st.Letter()) != tc.status || !reflect.DeepEqual(rec.values, tc.values) {
				t.Errorf("status %v values %#v, want %s %#v", st, rec.values, tc.status, tc.values)
			}
		})
	}
}

func TestSubTreePortProblems(t *testing.T) {
	spec := mainSpec(nd("MemSequence", "", nil,
		nd("SubTree", "", kv{"tree": "sub", "autoremap": false, "bad port": "{x}", "half": "{x"}),
		nd("SubTree", "", kv{"tree": "sub", "autoremap": "yes"})),
		withTree("sub", sc("a", "S")))
	wantProblems(t, compileProblems(t, spec),
		"/trees/main/children/0/params/bad port", "contains a space",
		"/trees/main/children/0/params/half", `want "{key}" or a value`,
		"/trees/main/children/1/params/autoremap", "want a boolean")
}
