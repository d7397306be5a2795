package nodes

import (
	"github.com/botd-project/botd/bt"
	"reflect"
	"strings"
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
		// Formats, as Python's str.format writes them.
		{"fixed", kv{"message": "battery {battery.percent:.0f}%, {raw:.2f}"}, "info: battery 42%, 99.37"},
		{"width and zeros", kv{"message": "[{neg:6.1f}] [{neg:06.1f}] [{raw:07.1f}]"}, "info: [  -3.1] [-003.1] [00099.4]"},
		{"percent", kv{"message": "{ratio:.1%} done"}, "info: 25.0% done"},
		{"defaults of e and g", kv{"message": "{raw:e} {raw:g} {raw:.3g}"}, "info: 9.936508e+01 99.3651 99.4"},
		{"integer", kv{"message": "lap {lap:d} of {laps:3d}"}, "info: lap 2 of   7"},
		{"precision alone", kv{"message": "{raw:.4}"}, "info: 99.37"},
		{"width alone", kv{"message": "[{raw:4}]"}, "info: [99.36507936507927]"},
		{"a text padded, never formatted", kv{"message": "[{mode:6.1f}] [{mode:06}]"}, "info: [  auto] [  auto]"},
		{"an unset key with a format", kv{"message": "{altitude:.1f}"}, "info: <unset>"},
		{"a scoped key is no format", kv{"message": "{Tree:x}|{Tree:x:.1f}"}, "info: <unset>|<unset>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nd("Log", "log", c.params), withBB(kv{"battery.percent": 42.5, "mode": "auto", "armed": true,
				"raw": 99.36507936507927, "neg": -3.14159, "ratio": 0.25, "lap": 2.4, "laps": 7}))
			if st := h.Tick(); st != bt.Success {
				t.Fatalf("%v, want SUCCESS", st)
			}
			if want := []string{c.want}; !reflect.DeepEqual(h.Sink.Msgs, want) {
				t.Errorf("sink got %q, want %q", h.Sink.Msgs, want)
			}
		})
	}
}

func TestLogReadsKeysEachTick(t *testing.T) {
	h := newHarness(t, nd("Log", "log", kv{"message": "n={n}"}), withBB(kv{"n": 1}))
	slot, _ := h.Tree.Slot("n")
	h.Tick()
	h.A.BB.SetNumber(slot, 2)
	h.Tick()
	if want := []string{"info: n=1", "info: n=2"}; !reflect.DeepEqual(h.Sink.Msgs, want) {
		t.Errorf("sink got %q, want %q", h.Sink.Msgs, want)
	}
}

func TestLogWithoutSink(t *testing.T) {
	h := newHarness(t, nd("Log", "log", kv{"message": "dropped {x}"}))
	h.A.Sink = nil
	if st := h.Tick(); st != bt.Success {
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

// A tail that looks like a format but is none is a warning, not a
// silently unset key.
func TestLogFormatWarning(t *testing.T) {
	tree := compileTree(t, nd("Log", "", kv{"message": "{x:.2q} {y:.1f} {Tree:z}"}))
	ws := tree.Warnings()
	if len(ws) != 1 || ws[0].Path != "/trees/main/params/message" ||
		!strings.Contains(ws[0].Message, `{x:.2q}: ".2q" is not a format`) {
		t.Errorf("warnings %v", ws)
	}
}

type discardSink struct{}

func (discardSink) Emit(*bt.Agent, int32, string, string) {}

// With a sink, the message string is a Log's only allocation, formats
// and all; without one, nothing.
func TestLogAllocations(t *testing.T) {
	tree := compileTree(t, nd("Log", "", kv{"message": "battery {b:.0f}% at {x:8.3f}, {mode}, {armed}, {lap:d}"}),
		withBB(kv{"b": 99.36507936507927, "x": -1.5, "mode": "auto", "armed": true, "lap": 3}))
	a := bt.NewAgent(tree, 0, 0)
	a.Sink = discardSink{}
	now := int64(0)
	if n := testing.AllocsPerRun(100, func() { now += ms; a.Tick(now) }); n > 1 {
		t.Errorf("%v allocations per tick with a sink, want 1", n)
	}
	a.Sink = nil
	if n := testing.AllocsPerRun(100, func() { now += ms; a.Tick(now) }); n != 0 {
		t.Errorf("%v allocations per tick without a sink", n)
	}
}
