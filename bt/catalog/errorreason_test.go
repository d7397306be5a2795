package catalog

import (
	"strings"
	"sync"
	"testing"

	"github.com/botd-project/botd/bt"
)

// A node that returns ERROR says why (an "error" event): the runner, botd
// sim and botctl show the reason. Every built-in node type is listed here
// once: with missions that drive it to ERROR, or as a type that returns
// ERROR only when a child did (the child says why), or as one that never
// returns ERROR. A new node type fails the test until it is listed, and a
// case whose node returns ERROR without an error event of its own fails.

// errorCase drives the node named "it" to ERROR within a few ticks.
type errorCase struct {
	what string
	root *bt.NodeDef
	bb   kv
}

func it(typ string, params kv, children ...*bt.NodeDef) *bt.NodeDef {
	return nd(typ, "it", params, children...)
}

func errorCases() map[string][]errorCase {
	s := func() *bt.NodeDef { return nd("Succeed", "", nil) }
	r := func() *bt.NodeDef { return nd("Running", "", nil) }
	missing := kv{"present": 1.0, "word": "abc"}
	return map[string][]errorCase{
		"Barrier": {{what: "count not set", root: it("Barrier", kv{"count": "{nokey}"})},
			{what: "count below 1", root: it("Barrier", kv{"count": "{zero}"}), bb: kv{"zero": 0.0}}},
		"Check": {
			{what: "key not set", root: it("Check", kv{"key": "range.fornt", "op": ">", "value": 1.0}), bb: kv{"range.front": 2.0}},
			{what: "key not set (string)", root: it("Check", kv{"key": "nokey", "value": "x"})},
			{what: "other key not set", root: it("Check", kv{"key": "present", "op": "<", "other_key": "nokey"}), bb: missing},
			{what: "ordering a string", root: it("Check", kv{"key": "word", "op": "<", "other_key": "present"}), bb: missing},
			{what: "max_age_ms not set", root: it("Check", kv{"key": "present", "op": "<", "value": 3.0, "max_age_ms": "{nokey}"}), bb: missing},
		},
		"Cooldown": {{what: "ms not set", root: it("Cooldown", kv{"ms": "{nokey}"}, s())}},
		"Delay":    {{what: "ms not set", root: it("Delay", kv{"ms": "{nokey}"}, s())}},
		"DistanceController": {{what: "distance not set", root: it("DistanceController", kv{"distance": "{nokey}"}, s()),
			bb: kv{"pose.x": 0.0, "pose.y": 0.0}}},
		"Error": {{what: "always", root: it("Error", nil)}},
		"Fault": {{what: "always, its child never ticked", root: it("Fault", kv{"reason": "delay_msec: \"10,000\" is not a number"}, s())},
			{what: "a leaf", root: it("Fault", kv{"reason": "no vehicle"})}},
		"Expr": {{what: "key not set", root: it("Expr", kv{"expr": "nokey > 1"})},
			{what: "over the step budget", root: it("Expr", kv{"expr": "let r = 1..1000; all(r, {all(r, {true})})"})}},
		"IsBatteryLow":      {{what: "min not set", root: it("IsBatteryLow", kv{"min_battery": "{nokey}"}), bb: kv{"battery.percent": 50.0}}},
		"LoopBool":          {{what: "queue of numbers", root: it("LoopBool", kv{"queue": "{q}"}, s()), bb: kv{"q": []any{1.0, 2.0}}}},
		"LoopDouble":        {{what: "queue of strings", root: it("LoopDouble", kv{"queue": "{q}"}, s()), bb: kv{"q": []any{"a"}}}},
		"LoopInt":           {{what: "queue of strings", root: it("LoopInt", kv{"queue": "{q}"}, s()), bb: kv{"q": []any{"a"}}}},
		"LoopString":        {{what: "queue not a list", root: it("LoopString", kv{"queue": "{q}"}, s()), bb: kv{"q": map[string]any{"a": 1.0}}}},
		"MaxTime":           {{what: "ms not set", root: it("MaxTime", kv{"ms": "{nokey}"}, r())}},
		"PathExpiringTimer": {{what: "seconds not set", root: it("PathExpiringTimer", kv{"seconds": "{nokey}", "path": "{path}"}), bb: kv{"path": []any{[]any{0.0, 0.0}}}}},
		"PathLongerOnApproach": {
			{what: "not a path", root: it("PathLongerOnApproach", kv{"path": "{path}"}, s()), bb: kv{"path": "nowhere"}},
			{what: "factor not set", root: it("PathLongerOnApproach", kv{"path": "{path}", "length_factor": "{nokey}"}, s())},
		},
		"PersistentSequence": {{what: "index not set", root: it("PersistentSequence", kv{"current_child_idx": "{idx}"}, s())},
			{what: "index negative", root: it("PersistentSequence", kv{"current_child_idx": "{idx}"}, s()), bb: kv{"idx": -1.0}}},
		"PrePost": {{what: "condition fails", root: it("PrePost", kv{"skip_if": "nokey"}, s())},
			{what: "not a boolean", root: it("PrePost", kv{"success_if": "1"}, s())},
			{what: "statement fails", root: it("PrePost", kv{"on_success": "x = nokey"}, s())}},
		"Precondition": {{what: "condition fails", root: it("Precondition", kv{"if": "nokey"}, s())},
			{what: "not a boolean", root: it("Precondition", kv{"if": "1"}, s())}},
		"RateController": {{what: "hz not set", root: it("RateController", kv{"hz": "{nokey}"}, s())}},
		"Regulator":      {{what: "hz not set", root: it("Regulator", kv{"hz": "{nokey}"}, s())}},
		"Repeat":         {{what: "count not set", root: it("Repeat", kv{"num_cycles": "{nokey}"}, s())}},
		"RetryUntilSuccessful": {{what: "count not set", root: it("RetryUntilSuccessful", kv{"num_attempts": "{nokey}"},
			nd("Fail", "", nil))}},
		"Script":          {{what: "key not set", root: it("Script", kv{"code": "x := nokey + 1"})}},
		"ScriptCondition": {{what: "not a boolean", root: it("ScriptCondition", kv{"code": "1 + 1"})}},
		"Stub":            {{what: "scripted ERROR", root: it("Stub", kv{"script": "Success,Error"})}},
		"TestNode":        {{what: "post_script fails", root: it("TestNode", kv{"post_script": "x = nokey"})}},
		// Its first tick in an activation only notes the time.
		"TimeExpired": {{what: "seconds not set", root: nd("Priority", "", nil, it("TimeExpired", kv{"seconds": "{nokey}"}), r())}},
		"Timeout":     {{what: "msec not set", root: it("Timeout", kv{"msec": "{nokey}"}, r())}},
		"Wait":        {{what: "ms not set", root: it("Wait", kv{"ms": "{nokey}"})}},
	}
}

// passesErrors are the types that return ERROR only when a child (or a
// child tree) did: the child gave the reason.
var passesErrors = strings.Fields(`AsyncFallback AsyncSequence BlackboardCheckBool BlackboardCheckDouble
	BlackboardCheckInt BlackboardCheckString DynamicSubTree Failer Gate GoalUpdatedController GoalUpdater
	IfThenElse Inverter KeepRunningUntilFailure Limiter MemPriority MemSequence Monitor NonblockingSequence
	Parallel ParallelAll ParallelNode PassThrough PauseResumeController PipelineSequence Priority RandomPriority
	RandomSequence RecoveryNode RepeatUntilFailure RepeatUntilSuccess Repeater RoundRobin RunOnce Sequence
	SequenceWithMemory SingleTrigger SkipUnlessUpdated SpeedController StateMachine SubTree Succeeder
	Switch2 Switch3 Switch4 Switch5 Switch6 TryCatch WaitValueUpdate WhileDoElse`)

// neverErrors are the types that never return ERROR (StandIn's status
// is SUCCESS, FAILURE or RUNNING).
var neverErrors = strings.Fields(`Fail GlobalUpdatedGoal GoalUpdated IsBatteryCharging Log Running Set Succeed
	StandIn UnsetBlackboard WasEntryUpdated`)

// errSink records the error events by node.
type errSink struct {
	mu   sync.Mutex
	msgs map[int32][]string
}

func (s *errSink) Emit(a *bt.Agent, node int32, level, msg string) {
	if level != "error" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.msgs == nil {
		s.msgs = map[int32][]string{}
	}
	s.msgs[node] = append(s.msgs[node], msg)
}

func TestEveryErrorSaysWhy(t *testing.T) {
	cases := errorCases()
	listed := map[string]int{}
	for name := range cases {
		listed[name]++
	}
	for _, name := range passesErrors {
		listed[name]++
	}
	for _, name := range neverErrors {
		listed[name]++
	}
	for _, ti := range NewRegistry().Catalog() {
		switch listed[ti.Name] {
		case 0:
			t.Errorf("node type %s is not listed: give it a case that drives it to ERROR (and make it say why), "+
				"or list it as passing its children's errors or as never returning ERROR", ti.Name)
		case 1:
		default:
			t.Errorf("node type %s is listed %d times", ti.Name, listed[ti.Name])
		}
		delete(listed, ti.Name)
	}
	for name := range listed {
		t.Errorf("%s is listed but not registered", name)
	}
	for typ, list := range cases {
		for _, c := range list {
			t.Run(typ+"/"+c.what, func(t *testing.T) {
				var opts []specOpt
				if c.bb != nil {
					opts = append(opts, withBB(c.bb))
				}
				tree := compileTree(t, c.root, opts...)
				h := harnessFor(t, tree, 0)
				sink := &errSink{}
				h.A.Sink = sink
				node := h.Idx("it")
				for range 5 {
					h.Tick()
					if h.A.Status(node) == bt.Error {
						break
					}
				}
				if st := h.A.Status(node); st != bt.Error {
					t.Fatalf("%s: %v, want ERROR", typ, st)
				}
				msgs := sink.msgs[node]
				if len(msgs) == 0 || msgs[len(msgs)-1] == "" {
					t.Fatalf("%s returned ERROR without saying why (error events: %v)", typ, sink.msgs)
				}
				t.Logf("%s", msgs[len(msgs)-1])
			})
		}
	}
}

// The reason names the key, what it held and what was wanted, and
// guesses the key meant.
func TestKeyProblem(t *testing.T) {
	for _, c := range []struct {
		root *bt.NodeDef
		bb   kv
		want string
	}{
		{it("Check", kv{"key": "range.fornt", "op": ">", "value": 1.0}), kv{"range.front": 2.0},
			`Check: "range.fornt" is not set (did you mean "range.front"?)`},
		{it("Check", kv{"key": "speed", "op": ">", "value": 1.0}), kv{"range.front": 2.0}, `Check: "speed" is not set`},
		{it("Check", kv{"key": "mode", "op": "<", "value": 1.0}), kv{"mode": "auto"},
			`Check: < compares numbers, and "mode" holds "auto" (a string)`},
		{it("Regulator", kv{"hz": "{rate}"}, nd("Succeed", "", nil)), kv{"rate": "fast"},
			`Regulator: hz: "rate" holds "fast" (a string), not a rate over 0 Hz`},
		{it("Regulator", kv{"hz": "{rate}"}, nd("Succeed", "", nil)), kv{"rate": -1.0},
			`Regulator: hz: "rate" holds -1, not a rate over 0 Hz`},
	} {
		h := newHarness(t, c.root, withBB(c.bb))
		sink := &errSink{}
		h.A.Sink = sink
		if st := h.Tick(); st != bt.Error {
			t.Errorf("%s: %v, want ERROR", c.want, st)
			continue
		}
		if got := sink.msgs[h.Idx("it")]; len(got) != 1 || got[0] != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// BehaviorTree.CPP's Script with empty code does nothing and succeeds;
// a ScriptCondition needs a condition.
func TestScriptEmptyCode(t *testing.T) {
	for _, code := range []string{"", "  "} {
		h := newHarness(t, nd("Script", "s", kv{"code": code}))
		if st := h.Tick(); st != bt.Success {
			t.Errorf("Script code=%q: %v, want SUCCESS", code, st)
		}
	}
	h := newHarness(t, nd("ScriptCondition", "s", kv{"code": ""}))
	sink := &errSink{}
	h.A.Sink = sink
	if st := h.Tick(); st != bt.Error || len(sink.msgs[0]) == 0 {
		t.Errorf("ScriptCondition code=\"\": %v %v, want ERROR with a reason", st, sink.msgs)
	}
}
