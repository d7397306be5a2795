package bt

import (
	"reflect"
	"testing"
)

func TestLog(t *testing.T) {
	cases := []struct {
		name   string
		params kv
		want   string
	}{
		{"plain", kv{"message": "hello"}, "info: hello"},
		{"level", kv{"message": "careful", "level": "warning"}, "warning: careful"},
		{"substitution", kv{"message": "battery at {battery.percent}% in {mode} mode"}, "info: battery at 42.5% in auto mode"},
		{"whole message from a key", kv{"message": "{mode}"}, "info: auto"},
		{"bool", kv{"message": "armed={armed}"}, "info: armed=true"},
		{"unset key", kv{"message": "alt={altitude}!"}, "info: alt=<unset>!"},
		{"braces that are no key stay", kv{"message": "{not a key} and {} and {"}, "info: {not a key} and {} and {"},
		{"adjacent keys", kv{"message": "{mode}{armed}", "level": "debug"}, "debug: autotrue"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nd("Log", "log", c.params), withBB(kv{"battery.percent": 42.5, "mode": "auto", "armed": true}))
			if st := h.tick(); st != Success {
				t.Fatalf("%v, want SUCCESS", st)
			}
			if want := []string{c.want}; !reflect.DeepEqual(h.sink.msgs, want) {
				t.Errorf("sink got %q, want %q", h.sink.msgs, want)
			}
		})
	}
}

func TestLogReadsKeysEachTick(t *testing.T) {
	h := newHarness(t, nd("Log", "log", kv{"message": "n={n}"}), withBB(kv{"n": 1}))
	slot, _ := h.tree.Slot("n")
	h.tick()
	h.a.BB.SetNumber(slot, 2)
	h.tick()
	if want := []string{"info: n=1", "info: n=2"}; !reflect.DeepEqual(h.sink.msgs, want) {
		t.Errorf("sink got %q, want %q", h.sink.msgs, want)
	}
}

func TestLogWithoutSink(t *testing.T) {
	h := newHarness(t, nd("Log", "log", kv{"message": "dropped {x}"}))
	h.a.Sink = nil
	if st := h.tick(); st != Success {
		t.Errorf("%v, want SUCCESS", st)
	}
}

func TestLogProblems(t *testing.T) {
	ps := compileProblems(t, mainSpec(nd("Sequence", "", nil,
		nd("Log", "", nil),
		nd("Log", "", kv{"message": "x", "level": "fatal"}))))
	wantProblems(t, ps,
		"/trees/main/children/0/params/message", `missing required parameter "message"`,
		"/trees/main/children/1/params/level", `"fatal" is not one of debug, info, warning, error`)
}
