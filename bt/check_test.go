package bt

import (
	"fmt"
	"testing"
)

func TestCheckNumbers(t *testing.T) {
	ops := []struct {
		op                   string
		less, equal, greater Status
	}{
		{"<", Success, Failure, Failure},
		{"<=", Success, Success, Failure},
		{">", Failure, Failure, Success},
		{">=", Failure, Success, Success},
		{"==", Failure, Success, Failure},
		{"!=", Success, Failure, Success},
	}
	for _, o := range ops {
		for _, c := range []struct {
			left float64
			want Status
		}{{19.5, o.less}, {20, o.equal}, {20.5, o.greater}} {
			name := fmt.Sprintf("%v %s 20", c.left, o.op)
			t.Run(name, func(t *testing.T) {
				// As a constant and through other_key.
				for _, params := range []kv{
					{"key": "v", "op": o.op, "value": 20},
					{"key": "v", "op": o.op, "other_key": "limit"},
					{"key": "v", "op": o.op, "value": "{limit}"},
				} {
					h := newHarness(t, nd("Check", "c", params), withBB(kv{"v": c.left, "limit": 20}))
					if st := h.tick(); st != c.want {
						t.Errorf("%v: %v, want %v", params, st, c.want)
					}
				}
			})
		}
	}
}

func TestCheck(t *testing.T) {
	runTickCases(t, []tickCase{
		{name: "default op is ==", tree: nd("Check", "c", kv{"key": "v", "value": 3}), bb: kv{"v": 3}, want: "S"},
		{name: "missing key is ERROR", tree: nd("Check", "c", kv{"key": "v", "op": "<", "value": 3}), want: "E"},
		{name: "missing other key is ERROR", tree: nd("Check", "c", kv{"key": "v", "op": "<", "other_key": "w"}), bb: kv{"v": 1}, want: "E"},
		{name: "missing referenced value key is ERROR", tree: nd("Check", "c", kv{"key": "v", "value": "{w}"}), bb: kv{"v": 1}, want: "E"},
		{name: "string ==", tree: nd("Check", "c", kv{"key": "mode", "value": "auto"}), bb: kv{"mode": "auto"}, want: "S"},
		{name: "string == differs", tree: nd("Check", "c", kv{"key": "mode", "op": "==", "value": "auto"}), bb: kv{"mode": "manual"}, want: "F"},
		{name: "string !=", tree: nd("Check", "c", kv{"key": "mode", "op": "!=", "value": "auto"}), bb: kv{"mode": "manual"}, want: "S"},
		{name: "string != same", tree: nd("Check", "c", kv{"key": "mode", "op": "!=", "value": "auto"}), bb: kv{"mode": "auto"}, want: "F"},
		{name: "bool ==", tree: nd("Check", "c", kv{"key": "armed", "value": true}), bb: kv{"armed": true}, want: "S"},
		{name: "bool == differs", tree: nd("Check", "c", kv{"key": "armed", "value": true}), bb: kv{"armed": false}, want: "F"},
		{name: "bool !=", tree: nd("Check", "c", kv{"key": "armed", "op": "!=", "value": true}), bb: kv{"armed": false}, want: "S"},
		{name: "strings through other_key", tree: nd("Check", "c", kv{"key": "a", "other_key": "b"}), bb: kv{"a": "x", "b": "x"}, want: "S"},
		{name: "bools through other_key", tree: nd("Check", "c", kv{"key": "a", "op": "!=", "other_key": "b"}), bb: kv{"a": true, "b": false}, want: "S"},
		// Pinned: values of different kinds are never equal.
		{name: "string key == number", tree: nd("Check", "c", kv{"key": "v", "value": 1}), bb: kv{"v": "1"}, want: "F"},
		{name: "string key != number", tree: nd("Check", "c", kv{"key": "v", "op": "!=", "value": 1}), bb: kv{"v": "1"}, want: "S"},
		{name: "bool key == number", tree: nd("Check", "c", kv{"key": "v", "value": 1}), bb: kv{"v": true}, want: "F"},
		// Pinned: ordering a value that is not a number is a type error.
		{name: "string key < number is ERROR", tree: nd("Check", "c", kv{"key": "v", "op": "<", "value": 1}), bb: kv{"v": "low"}, want: "E"},
		{name: "bool key < number is ERROR", tree: nd("Check", "c", kv{"key": "v", "op": "<", "value": 1}), bb: kv{"v": false}, want: "E"},
		{name: "string other_key ordered is ERROR", tree: nd("Check", "c", kv{"key": "a", "op": ">", "other_key": "b"}), bb: kv{"a": "x", "b": "y"}, want: "E"},
	})
}

func TestCheckDottedKey(t *testing.T) {
	h := newHarness(t, nd("Check", "c", kv{"key": "battery.percent", "op": "<", "value": 20}), withBB(kv{"battery.percent": 15}))
	if st := h.tick(); st != Success {
		t.Errorf("%v, want SUCCESS", st)
	}
}

// A sample is stale when it is older than max_age_ms (now - stamp >
// max_age): stale data fails the check, whatever its value.
func TestCheckMaxAge(t *testing.T) {
	h := newHarness(t, nd("Check", "c", kv{"key": "range", "op": "<", "value": 0.4, "max_age_ms": 500}))
	slot, _ := h.tree.Slot("range")
	h.a.BB.SetNumberAt(slot, 0.2, 0)
	h.step = 250 * ms
	// 250ms, 500ms: fresh enough (exactly 500ms old is not older than
	// 500ms). 750ms: stale.
	if got := h.run(3); got != "SSF" {
		t.Errorf("aging sample: %s, want SSF", got)
	}
	// A fresh sample with a failing value still fails; a fresh passing one
	// passes again.
	h.a.BB.SetNumberAt(slot, 0.9, h.now)
	if got := h.run(1); got != "F" {
		t.Errorf("fresh high reading: %s, want F", got)
	}
	h.a.BB.SetNumberAt(slot, 0.1, h.now)
	if got := h.run(1); got != "S" {
		t.Errorf("fresh low reading: %s, want S", got)
	}
	// A missing key is still ERROR, not a stale FAILURE.
	h.a.BB.Delete(slot)
	if got := h.run(1); got != "E" {
		t.Errorf("deleted key: %s, want E", got)
	}
}

func TestCheckMaxAgeOtherKey(t *testing.T) {
	h := newHarness(t, nd("Check", "c", kv{"key": "a", "op": "<", "other_key": "b", "max_age_ms": 100}))
	a, _ := h.tree.Slot("a")
	b, _ := h.tree.Slot("b")
	h.a.BB.SetNumberAt(a, 1, 1000*ms)
	h.a.BB.SetNumberAt(b, 2, 0)
	h.now = 1000 * ms
	h.step = 0
	if st := h.tick(); st != Failure {
		t.Errorf("fresh key, stale other_key: %v, want FAILURE", st)
	}
	h.a.BB.SetNumberAt(b, 2, 950*ms)
	if st := h.tick(); st != Success {
		t.Errorf("both fresh: %v, want SUCCESS", st)
	}
}

// max_age_ms written "{key}" is read from the blackboard.
func TestCheckMaxAgeFromKey(t *testing.T) {
	h := newHarness(t, nd("Check", "c", kv{"key": "range", "op": "<", "value": 1, "max_age_ms": "{max_age}"}),
		withBB(kv{"max_age": 300}))
	slot, _ := h.tree.Slot("range")
	h.a.BB.SetNumberAt(slot, 0.5, 0)
	h.step = 100 * ms
	if got := h.run(4); got != "SSSF" {
		t.Errorf("max_age_ms from a key (300ms): %s, want SSSF", got)
	}
	age, _ := h.tree.Slot("max_age")
	h.a.BB.Delete(age)
	if got := h.run(1); got != "E" {
		t.Errorf("missing max_age key: %s, want ERROR", got)
	}
}

func TestCheckProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Check", "", kv{"op": "<", "value": 1}),
		nd("Check", "", kv{"key": "v", "op": "<", "value": "low"}),
		nd("Check", "", kv{"key": "v", "op": ">=", "value": true}),
		nd("Check", "", kv{"key": "v", "value": 1, "other_key": "w"}),
		nd("Check", "", kv{"key": "v", "op": "<"}),
		nd("Check", "", kv{"key": "v", "op": "=~", "value": 1}),
		nd("Check", "", kv{"key": "v", "value": []any{1}}),
		nd("Check", "", kv{"key": "has space", "value": 1}),
		nd("Check", "", kv{"key": "v", "value": 1, "max_age_ms": -1}),
	)))
	wantProblems(t, ps,
		"/trees/main/children/0/params/key", `missing required parameter "key"`,
		"/trees/main/children/1/params/op", "< compares numbers; a string value can only be compared with == or !=",
		"/trees/main/children/2/params/op", ">= compares numbers; a boolean value",
		"/trees/main/children/3/params/other_key", "give either value or other_key, not both",
		"/trees/main/children/4/params/value", "missing value (or other_key)",
		"/trees/main/children/5/params/op", `"=~" is not one of <, <=, >, >=, ==, !=`,
		"/trees/main/children/6/params/value", "want a number, boolean or string",
		"/trees/main/children/7/params/key", `blackboard key "has space" contains a space`,
		"/trees/main/children/8/params/max_age_ms", "-1 is below the limit 0",
	)
}
