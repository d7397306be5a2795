package telemetry

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// Command intake takes outside input: whatever arrives, it answers once,
// and only a well-formed command reaches the handler, or an e-stop,
// which is obeyed however malformed. Delivered twice, anything but an
// e-stop gets the same reply again and reaches the handler at most once
// (the reply cache, replycache.go).
func FuzzCommandIntake(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","op":"estop"}`, `{"id":"a","op":"mission.load","mission":{"name":"x"},"start":true}`,
		`{"id":1,"op":"estop"}`, `{"id":"a","op":"estop","ts":"2026-11-21T12:00:00Z"}`, `{`, `[]`, `null`, `"x"`,
		`{"id":"a","op":"x","agent":"1"}`, `{"id":"a","op":"x","tree":[1,2]}`,
		`{"id":"a","op":"state.request","op":"mission.abort"}`, `{"id":"a","OP":"mission.abort"}`, `{"op":"\u0065stop"}`,
		"{\"id\":\"\xff\",\"op\":\"x\"}", `{"id":"a","op":"x","value":{"k":1,"k":2}}`,
		"\xef\xbb\xbf{\"id\":\"a\",\"op\":\"estop\"}", "\xef\xbb\xbf{\"id\":\"a\",\"op\":\"x\"}",
	} {
		f.Add([]byte(s))
	}
	f.Add(utf16Bytes(`{"id":"a","op":"estop"}`, false, true))
	f.Add(utf16Bytes(`{"id":"a","op":"estop"`, true, false))
	f.Add(utf16Bytes(`{"id":"a","op":"mission.pause"}`, false, false))
	h := &fakeHandler{}
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: f.TempDir(),
		Source: newFakeSource(0), Commands: h, MaxPayload: 4096, CommandRate: 1e9, CommandBurst: 1 << 30, StaleAfter: -1})
	if err != nil {
		f.Fatal(err)
	}
	intake := []string{protocol.ErrInvalidJSON, protocol.ErrValidation, protocol.ErrTooLarge, protocol.ErrStaleCommand, protocol.ErrRateLimited}
	f.Fuzz(func(t *testing.T, payload []byte) {
		d.replies = newReplyCache(4) // independent inputs
		before := h.count("")
		in := inboundCmd{size: len(payload)}
		if len(payload) <= d.cfg.MaxPayload {
			in.payload = payload
		}
		r := d.handle(context.Background(), in)
		called := h.count("") - before
		if r.OK == (r.Error != nil) {
			t.Fatalf("reply %+v", r)
		}
		if called > 1 {
			t.Fatalf("handler called %d times", called)
		}
		text, _ := utf8Text(payload)
		isEStop := scanTop(text).estop // in any encoding (encoding.go)
		if called == 1 && h.lastOp() == protocol.OpEStop {
			// Obeyed whatever else is wrong with it.
			if !isEStop || !r.OK {
				t.Fatalf("e-stop %q: reply %+v", payload, r)
			}
			return
		}
		if isEStop && len(payload) <= d.cfg.MaxPayload {
			t.Fatalf("e-stop %q not obeyed: %+v", payload, r.Error)
		}
		if called == 1 {
			var c protocol.Command
			if json.Unmarshal(payload, &c) != nil || c.ID == "" || c.Op == "" || r.ID != c.ID {
				t.Fatalf("handler got %q", payload)
			}
		} else if r.Error == nil || !slices.Contains(intake, r.Error.Code) {
			t.Fatalf("refused with %+v without reaching the handler", r.Error)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
		again := d.handle(context.Background(), in)
		if n := h.count("") - before; n != called {
			t.Fatalf("a redelivery of %q reached the handler (%d calls)", payload, n)
		}
		// A refusal for the time names the robot's clock, which has moved
		// on: its code and path are the same.
		if !same(again, r) && (r.Error == nil || r.Error.Code != protocol.ErrStaleCommand || again.Error == nil ||
			again.Error.Code != r.Error.Code || again.Error.Path != r.Error.Path || again.ID != r.ID) {
			t.Fatalf("redelivery of %q: %+v, first %+v", payload, again, r)
		}
	})
}

func FuzzDecodeStatus(f *testing.F) {
	for _, s := range []string{
		`{"robot":"r","seq":1,"ts":"2026-11-21T12:00:00.120Z","mission":"m","tick":3,"changes":[[0,"R"],[5,"S"]]}`,
		`{"robot":"r","seq":1,"ts":"2026-11-21T12:00:00.120Z","mission":"m","tick":3,"keyframe":"RRSIF"}`,
		`{"robot":"r","seq":1,"ts":"2026-11-21T12:00:00Z","changes":[[-1,"E"]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := protocol.DecodeStatus(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode it: %v", b, err)
		}
		m2, err := protocol.DecodeStatus(again)
		if err != nil || m2.Keyframe != m.Keyframe || !slices.Equal(m2.Changes, m.Changes) {
			t.Fatalf("round trip %q → %q: %v", b, again, err)
		}
	})
}
