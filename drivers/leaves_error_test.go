package drivers

import (
	"strings"
	"sync"
	"testing"

	"github.com/botd-project/botd/bt"
	"github.com/botd-project/botd/bt/catalog"
)

// Every device leaf that returns ERROR says why (bt's TestEveryErrorSaysWhy
// does the same for the built-ins): here each one runs on an agent that
// has no robot, and a few on a robot with a parameter whose key is not
// set.

// errorSink records the error events by node.
type errorSink struct {
	mu   sync.Mutex
	msgs map[int32][]string
}

func (s *errorSink) Emit(_ *bt.Agent, node int32, level, msg string) {
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

// leafParams makes parameters that compile for a device leaf: the
// required ones at a valid value, and the choices a leaf needs.
func leafParams(nt *bt.NodeType) map[string]any {
	params := map[string]any{}
	for _, p := range nt.Params {
		if !p.Required {
			continue
		}
		switch p.Type {
		case bt.TNumber:
			v := 1.0
			if p.Min != nil && *p.Min > v {
				v = *p.Min
			}
			if p.Max != nil && *p.Max < v {
				v = *p.Max
			}
			params[p.Name] = v
		case bt.TEnum:
			params[p.Name] = p.Enum[0]
		case bt.TNumberList:
			params[p.Name] = []any{47.0, 8.0, 10.0}
		case bt.TBool:
			params[p.Name] = true
		default:
			params[p.Name] = "x"
		}
	}
	switch nt.Name {
	case "Buzzer":
		params["on"] = true
	case "MoveTo":
		params["x"], params["y"] = 1.0, 1.0
	case "GoTo":
		params["x"], params["y"] = 1.0, 1.0
	}
	return params
}

func TestDeviceLeavesSayWhy(t *testing.T) {
	cfg := parse(t, allKinds)
	builtin := catalog.NewRegistry()
	reg := registry(cfg)
	n := 0
	for _, ti := range reg.Catalog() {
		if _, ok := builtin.Lookup(ti.Name); ok {
			continue
		}
		nt, _ := reg.Lookup(ti.Name)
		n++
		t.Run(ti.Name, func(t *testing.T) {
			spec := &bt.Spec{Trees: map[string]*bt.NodeDef{"main": nd(ti.Name, "it", leafParams(nt))}, Main: "main", Keys: cfg.SensorKeys()}
			tree, err := reg.Compile(spec)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			a := bt.NewAgent(tree, 0, 0)
			s := &errorSink{}
			a.Sink = s // and no robot
			if st := a.Tick(1e6); st != bt.Error {
				t.Fatalf("%v without a robot, want ERROR", st)
			}
			if msgs := s.msgs[0]; len(msgs) == 0 || !strings.Contains(msgs[0], "the agent has no robot") {
				t.Errorf("ERROR without saying why: %v", s.msgs)
			}
		})
	}
	if n < 10 {
		t.Errorf("only %d device leaves", n)
	}
}

func TestDeviceLeafKeyReason(t *testing.T) {
	cfg := parse(t, allKinds)
	for _, c := range []struct {
		node *bt.NodeDef
		want string
	}{
		{nd("Drive", "it", kv{"linear": "{speed}", "ms": 100}), `Drive: parameter linear: "speed" is not set (did you mean "sped"?)`},
		{nd("Pwm", "it", kv{"duty": "{word}"}), `Pwm: parameter duty: "word" holds "abc" (a string), not a finite number`},
	} {
		rig := newRig(t, cfg)
		tree := compileTree(t, cfg, nd("Sequence", "", nil, nd("Script", "", kv{"code": "sped := 0.1; word := 'abc'"}), c.node))
		g := newAgentRig(t, rig, tree, 20)
		s := &errorSink{}
		g.agent.Sink = s
		if st := g.tick(); st != bt.Error {
			t.Errorf("%s: %v, want ERROR", c.want, st)
			continue
		}
		if got := s.msgs[2]; len(got) == 0 || got[0] != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
