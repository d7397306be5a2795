package btcpp

import (
	"github.com/botd-project/botd/bt"
	"reflect"
	"testing"
)

// loopRecord is an Observer-free way to see what a loop wrote: a leaf
// that appends the value of "val" to the agent's probe.
var recordType = bt.NodeType{
	Name: "Record", Kind: bt.Leaf,
	Params: []bt.Param{{Name: "key", Type: bt.TKey, Required: true}, {Name: "status", Type: bt.TString}},
	New: func(b *bt.Builder) bt.Behavior {
		st := bt.Success
		if v, ok := b.Raw("status"); ok && v == "F" {
			st = bt.Failure
		}
		return record{key: b.KeyParam("key"), st: st}
	},
}

type record struct {
	key bt.Slot
	st  bt.Status
}

type recorded struct{ values []any }

func (r record) Tick(a *bt.Agent, n *bt.Node) bt.Status {
	if rec, ok := a.Env.(*recorded); ok {
		rec.values = append(rec.values, a.BB.Get(r.key).Interface())
	}
	return r.st
}

func runLoop(t *testing.T, root *bt.NodeDef, bb kv, ticks int) (string, []any) {
	t.Helper()
	reg := testRegistry()
	reg.Register(recordType)
	tree, err := reg.Compile(mainSpec(root, withBB(bb)))
	if err != nil {
		t.Fatal(err)
	}
	a := bt.NewAgent(tree, 0, 0)
	rec := &recorded{}
	a.Env = rec
	var got []byte
	for i := 1; i <= ticks; i++ {
		st := a.Tick(int64(i) * 10 * ms)
		got = append(got, st.Letter())
		if st != bt.Running {
			break
		}
	}
	return string(got), rec.values
}

// LoopInt, LoopDouble, LoopString and LoopBool as BehaviorTree.CPP has
// them (gtest_loop.cpp): one element per tick, then the if_empty status.
func TestLoop(t *testing.T) {
	for _, tc := range []struct {
		name   string
		root   *bt.NodeDef
		bb     kv
		status string
		values []any
	}{
		{"StaticIntQueue", nd("LoopInt", "", kv{"queue": "1;2;3;4;5", "value": "{val}"}, nd("Record", "", kv{"key": "val"})),
			nil, "RRRRRS", []any{1.0, 2.0, 3.0, 4.0, 5.0}},
		{"StaticDoubleQueue", nd("LoopDouble", "", kv{"queue": "1.5;2.5", "value": "{val}"}, nd("Record", "", kv{"key": "val"})),
			nil, "RRS", []any{1.5, 2.5}},
		{"StaticStringQueue", nd("LoopString", "", kv{"queue": "hello;world", "value": "{val}"}, nd("Record", "", kv{"key": "val"})),
			nil, "RRS", []any{"hello", "world"}},
		{"BoolQueue", nd("LoopBool", "", kv{"queue": "true;false;1", "value": "{val}"}, nd("Record", "", kv{"key": "val"})),
			nil, "RRRS", []any{true, false, true}},
		{"EmptyQueue_ReturnsSuccess", nd("LoopInt", "", kv{"queue": "{q}", "value": "{val}"}, nd("Record", "", kv{"key": "val"})),
			kv{"q": []any{}}, "S", nil},
		{"EmptyQueue_ReturnsFailure", nd("LoopInt", "", kv{"queue": "", "if_empty": "FAILURE"}, nd("Record", "", kv{"key": "val"})),
			nil, "F", nil},
		// BT.CPP creates the entry of a queue key nobody set, empty, and
		// throws when it casts it to a queue.
		{"a queue key that is not set", nd("LoopInt", "", kv{"queue": "{q}", "if_empty": "FAILURE"}, nd("Record", "", kv{"key": "val"})),
			nil, "E", nil},
		{"ChildFailure_StopsLoop", nd("LoopInt", "", kv{"queue": "1;2;3;4;5", "value": "{val}"}, nd("Record", "", kv{"key": "val", "status": "F"})),
			nil, "F", []any{1.0}},
		{"DynamicQueueFromBlackboard", nd("LoopInt", "", kv{"queue": "{q}", "value": "{val}"}, nd("Record", "", kv{"key": "val"})),
			kv{"q": []any{10.0, 20.0}}, "RRS", []any{10.0, 20.0}},
		{"queue string on the blackboard", nd("LoopString", "", kv{"queue": "{q}", "value": "{val}"}, nd("Record", "", kv{"key": "val"})),
			kv{"q": "a;b"}, "RRS", []any{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, values := runLoop(t, tc.root, tc.bb, 10)
			if st != tc.status || !reflect.DeepEqual(values, tc.values) {
				t.Errorf("statuses %s values %v, want %s %v", st, values, tc.status, tc.values)
			}
		})
	}
}

// LoopNode.RestartAfterCompletion: a new activation starts the queue over.
func TestLoopRestart(t *testing.T) {
	runTickCases(t, []tickCase{{
		Name:   "RestartAfterCompletion",
		Tree:   nd("LoopInt", "loop", kv{"queue": "1;2;3", "value": "{val}"}, sc("child", "S")),
		Want:   "RRRSRRRS",
		Counts: map[string]counts{"child": {6, 6, 6, 0}},
	}})
}

func TestLoopProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("LoopInt", "", kv{"queue": "1;x"}, sc("a", "S")),
		nd("LoopInt", "", kv{"queue": "1.5"}, sc("b", "S")),
		nd("LoopBool", "", kv{"queue": "maybe"}, sc("c", "S")))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/queue", `element 1: "x" is not a number`,
		"/trees/main/children/1/params/queue", "not a whole number",
		"/trees/main/children/2/params/queue", "not a boolean")
}
