package telemetry

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

func TestParseStrict(t *testing.T) {
	cases := []struct {
		in, code, path string
	}{
		{`{"id":"a","op":"x","v":{"a":[1,{"b":true}],"c":null}}`, "", ""},
		{` {"a":1} `, "", ""},
		{`{"a":1,"a":1}`, protocol.ErrValidation, "/a"},
		{`{"a":{"b":1,"c":[{"d":1,"d":2}]}}`, protocol.ErrValidation, "/a/c/0/d"},
		{`{"a/b":{"~":1,"~":2}}`, protocol.ErrValidation, "/a~1b/~0"},
		{`{"a":1}{"b":2}`, protocol.ErrInvalidJSON, ""},
		{`{"a":1} x`, protocol.ErrInvalidJSON, ""},
		{`{"a":1`, protocol.ErrInvalidJSON, ""},
		{`[{"a":1}]`, protocol.ErrInvalidJSON, ""},
		{`"x"`, protocol.ErrInvalidJSON, ""},
		{``, protocol.ErrInvalidJSON, ""},
		{`{"a":[[[1]]]}`, "", ""},
		{`{"a":[[[[1]]]]}`, protocol.ErrTooLarge, "/a/0/0/0"},
	}
	for _, c := range cases {
		m, prob := parseStrict([]byte(c.in), 4)
		switch {
		case c.code == "" && prob != nil:
			t.Errorf("%s: %+v", c.in, prob)
		case c.code == "" && m == nil:
			t.Errorf("%s: no members", c.in)
		case c.code != "" && (prob == nil || prob.code != c.code || prob.path != c.path):
			t.Errorf("%s: got %+v, want %s at %q", c.in, prob, c.code, c.path)
		}
	}
}

func TestScanTop(t *testing.T) {
	cases := []struct {
		in      string
		estop   bool
		id, why string
	}{
		{`{"id":"a","op":"estop"}`, true, "a", ""},
		{`{"op":"estop.reset","id":"a"}`, false, "a", ""},
		{`{"id":"a","op":"x","value":{"op":"estop","id":"b"}}`, false, "a", ""},
		{`{"id":"a","op":"x","op":"estop"}`, true, "a", ""},
		{`{"id":"a","OP":"estop"}`, true, "a", ""},
		{`{"id":"a","op":"\u0065stop"}`, true, "a", ""},
		{`{"id":"a","op":"estop"`, true, "a", ""},
		{`{"id":"a","op":"estop",]`, true, "a", ""},
		{`{"id":"a","id":"b","op":"estop"}`, true, "", "duplicate id"},
		{`{"id":{"x":1},"op":"estop"}`, true, "", "id is not a string"},
		{`{"id":1}`, false, "", "id is not a string"},
		{`{"id":""}`, false, "", "empty id"},
		{`{"id":"` + strings.Repeat("i", 129) + `"}`, false, "", "id longer than 128 bytes"},
		{"{\"id\":\"\xc3\x28\"}", false, "", "id is not valid UTF-8 (or holds U+FFFD)"},
		{`{"op":"estop"}`, true, "", "missing id"},
		{`estop`, false, "", "not a JSON object"},
		{``, false, "", "not a JSON object"},
	}
	for _, c := range cases {
		got := scanTop([]byte(c.in))
		if got.estop != c.estop || got.id != c.id || got.idProblem != c.why {
			t.Errorf("%s: %+v, want estop %v id %q (%s)", c.in, got, c.estop, c.id, c.why)
		}
	}
}

// The reply cache tells the same command from another under the same id,
// ts aside.
func TestBodyHash(t *testing.T) {
	parse := func(s string) [32]byte {
		m, prob := parseStrict([]byte(s), maxCommandDepth)
		if prob != nil {
			t.Fatal(prob)
		}
		return bodyHash(m)
	}
	a := parse(`{"id":"1","op":"blackboard.set","key":"k","value":1.5,"ts":"2026-11-21T12:00:00Z"}`)
	if b := parse(`{"ts":"2026-11-21T12:00:09Z","value":1.5,"key":"k","op":"blackboard.set","id":"1"}`); a != b {
		t.Error("the same command with another ts and member order hashes differently")
	}
	if b := parse(`{"id":"1","op":"blackboard.set","key":"k","value":2}`); a == b {
		t.Error("another value hashes the same")
	}
}

// What the MQTT callback spends on a command it answers BUSY: finding
// its id.
func BenchmarkScanTop(b *testing.B) {
	p := []byte(`{"id":"6c1d3f0e-8a8b-4f43-9d8e-3e3c3b7d2a11","op":"mission.pause","ts":"2026-11-21T12:00:00.120Z"}`)
	b.ReportAllocs()
	for b.Loop() {
		if scanTop(p).id == "" {
			b.Fatal("no id")
		}
	}
}

// What the intake spends on an ordinary command before the handler:
// strict parse, id, types, reply cache, rate limit, ts.
func BenchmarkHandle(b *testing.B) {
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: b.TempDir(),
		Source: newFakeSource(0), Commands: &fakeHandler{}, CommandRate: 1e12, CommandBurst: 1 << 30, StaleAfter: -1, FutureSkew: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		in := inboundCmd{payload: fmt.Appendf(nil, `{"id":"c-%d","op":"mission.pause","ts":"2026-11-21T12:00:00.120Z"}`, i)}
		if r := d.handle(context.Background(), in); !r.OK {
			b.Fatal(r.Error)
		}
	}
}
