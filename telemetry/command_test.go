package telemetry

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// replies collects replies by arrival.
func replies(t *testing.T, r *mqtttest.Recorder, topic string) []protocol.ReplyMsg {
	t.Helper()
	var out []protocol.ReplyMsg
	for _, m := range r.On(topic) {
		rm, err := protocol.DecodeReply(m.Payload)
		if err != nil {
			t.Fatalf("reply: %v: %s", err, m.Payload)
		}
		out = append(out, rm)
	}
	return out
}

// Every refused command gets exactly one reply with the right code and
// never reaches the command handler.
func TestCommandRefusals(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.MaxPayload = 2048
		c.Clock = clockwork.NewFakeClockAt(now)
	})
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())

	cases := []struct {
		payload, id, code, path string
	}{
		{`{"id":"a1","op":"mission.pause"`, "", protocol.ErrInvalidJSON, ""},
		{`not json`, "", protocol.ErrInvalidJSON, ""},
		{`["id","op"]`, "", protocol.ErrInvalidJSON, ""},
		{`{"id":"a2","op":"mission.load","start":"yes"}`, "a2", protocol.ErrValidation, "/start"},
		{`{"op":"mission.pause"}`, "", protocol.ErrValidation, "/id"},
		{`{"id":"a3"}`, "a3", protocol.ErrValidation, "/op"},
		{`{"id":"a4","op":"mission.pause","ts":"noon"}`, "a4", protocol.ErrValidation, "/ts"},
		{`{"id":"a5","op":"mission.pause","ts":"2026-11-21T11:59:00.000Z"}`, "a5", protocol.ErrStaleCommand, "/ts"},
		{`{"id":"a6","op":"mission.load","mission":"` + strings.Repeat("x", 3000) + `"}`, "a6", protocol.ErrTooLarge, ""}, // the id read from its head
		// encoding/json would take the last of two members silently.
		{`{"id":"a7","op":"state.request","op":"mission.abort"}`, "a7", protocol.ErrValidation, "/op"},
		{`{"id":"a8","op":"blackboard.set","key":"k","value":{"a":1,"a":2}}`, "a8", protocol.ErrValidation, "/value/a"},
		{`{"id":"a9","op":"state.request","OP":"mission.abort"}`, "a9", protocol.ErrValidation, "/OP"},
		{`{"id":"x","id":"y","op":"mission.pause"}`, "", protocol.ErrValidation, "/id"},
		// An id is a non-empty string of valid UTF-8, at most 128 bytes.
		{`{"id":7,"op":"mission.pause"}`, "", protocol.ErrValidation, "/id"},
		{`{"id":["b1"],"op":"mission.pause"}`, "", protocol.ErrValidation, "/id"},
		{`{"id":"","op":"mission.pause"}`, "", protocol.ErrValidation, "/id"},
		{`{"id":"` + strings.Repeat("b", 129) + `","op":"mission.pause"}`, "", protocol.ErrValidation, "/id"},
		{"{\"id\":\"b\xff\",\"op\":\"mission.pause\"}", "", protocol.ErrValidation, "/id"},
		{`{"id":"b\ud800","op":"mission.pause"}`, "", protocol.ErrValidation, "/id"},
		// A ts far ahead of the robot's clock.
		{`{"id":"a10","op":"mission.pause","ts":"2999-01-01T00:00:00.000Z"}`, "a10", protocol.ErrStaleCommand, "/ts"},
		{`{"id":"a11","op":"mission.pause","ts":"2026-11-21T12:05:01.000Z"}`, "a11", protocol.ErrStaleCommand, "/ts"},
		{`{"id":"a12","op":"mission.pause"} {}`, "", protocol.ErrInvalidJSON, ""},
		{`{"id":"a13","op":"mission.pause","v":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, "a13", protocol.ErrTooLarge, "/v" + strings.Repeat("/0", 259)},
	}
	for _, c := range cases {
		if err := pub.Publish(tp.Cmd(), 1, false, []byte(c.payload)); err != nil {
			t.Fatal(err)
		}
	}
	// A fresh command (and one without ts) still goes through; so does one
	// a little ahead of the robot's clock.
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"ok1","op":"mission.pause","ts":"2026-11-21T12:04:45.000Z"}`))
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"ok2","op":"mission.pause"}`))

	mqtttest.Eventually(t, "all replies", func() bool { return len(watch.On(tp.Reply())) >= len(cases)+2 })
	got := replies(t, watch, tp.Reply())
	if len(got) != len(cases)+2 {
		t.Fatalf("%d replies for %d commands", len(got), len(cases)+2)
	}
	for i, c := range cases {
		r := got[i]
		if r.OK || r.Error == nil || r.Error.Code != c.code || r.Error.Path != c.path || r.ID != c.id {
			t.Errorf("%.40s: reply %+v %+v, want %s %s id %q", c.payload, r.Reply, r.Error, c.code, c.path, c.id)
		}
	}
	if !got[len(cases)].OK || !got[len(cases)+1].OK {
		t.Errorf("valid commands refused: %+v %+v", got[len(cases)].Error, got[len(cases)+1].Error)
	}
	if n := h.cmds.count(""); n != 2 {
		t.Errorf("handler called %d times, want 2", n)
	}
}

// With the clock standing still, a flood gets the burst through and
// RATE_LIMITED for the rest; none of those reach the handler.
func TestCommandFlood(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) { c.Clock = clockwork.NewFakeClockAt(now) })
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	const n = 100
	for i := range n {
		if err := pub.Publish(tp.Cmd(), 1, false, fmt.Appendf(nil, `{"id":"f%d","op":"mission.pause"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	mqtttest.Eventually(t, "100 replies", func() bool { return len(watch.On(tp.Reply())) >= n })
	limited := 0
	for _, r := range replies(t, watch, tp.Reply()) {
		if !r.OK && r.Error.Code == protocol.ErrRateLimited {
			limited++
		}
	}
	if limited != n-40 || h.cmds.count("") != 40 {
		t.Errorf("%d rate limited, %d handled; want %d and 40", limited, h.cmds.count(""), n-40)
	}
	if m := h.d.Metrics(); m.Dropped.Commands != 0 {
		t.Errorf("dropped %d commands", m.Dropped.Commands)
	}
}

// QoS 1 delivers at least once: the same id gets the same reply again,
// and the handler runs once.
func TestDuplicateCommandID(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	cmd := []byte(`{"id":"dup-1","op":"mission.pause"}`)
	for range 3 {
		if err := pub.Publish(tp.Cmd(), 1, false, cmd); err != nil {
			t.Fatal(err)
		}
	}
	mqtttest.Eventually(t, "3 replies", func() bool { return len(watch.On(tp.Reply())) >= 3 })
	got := replies(t, watch, tp.Reply())
	for _, r := range got {
		if r.ID != "dup-1" || !r.OK || fmt.Sprint(r.Result["call"]) != "1" {
			t.Errorf("reply %+v", r.Reply)
		}
	}
	if got[0].Seq == got[1].Seq {
		t.Error("replies share a seq")
	}
	if n := h.cmds.count("dup-1"); n != 1 {
		t.Errorf("handler called %d times", n)
	}
}

// The command handler sees the parsed command and runs outside the MQTT
// client's goroutine (a slow one does not stall the connection).
func TestSlowHandlerDoesNotStallClient(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	release := make(chan struct{})
	slow := &blockingHandler{release: release}
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) { c.Commands = slow })
	h.waitUp(t)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Status())
	pub := mqtttest.NewPublisher(t, b.URL())
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"s1","op":"mission.load","mission":{"name":"x"}}`))
	mqtttest.Eventually(t, "handler entered", func() bool { return slow.entered() })
	h.src.setStatus(0, 'R') // telemetry keeps flowing
	mqtttest.Eventually(t, "status while the handler blocks", hasTopic(watch, tp.Status(), showsStatus(0, 'R')))
	close(release)
}

type blockingHandler struct {
	release chan struct{}
	mu      sync.Mutex
	in      bool
	got     []byte
}

func (b *blockingHandler) Do(ctx context.Context, c protocol.Command) protocol.Reply {
	b.mu.Lock()
	b.in = true
	b.got = c.Mission
	b.mu.Unlock()
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return protocol.Reply{ID: c.ID, OK: true}
}

func (b *blockingHandler) entered() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.in
}

// selective blocks mission.load until released and answers the rest at once.
type selective struct{ blockingHandler }

func (s *selective) Do(ctx context.Context, c protocol.Command) protocol.Reply {
	if c.Op == protocol.OpMissionLoad {
		return s.blockingHandler.Do(ctx, c)
	}
	return protocol.Reply{ID: c.ID, OK: true}
}

// An e-stop is not queued behind a slow command, and is never rate-limited.
func TestEStopOvertakesASlowCommand(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	release := make(chan struct{})
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.Commands = &selective{blockingHandler{release: release}}
		c.CommandRate, c.CommandBurst = 0.001, 1
	})
	defer close(release)
	h.waitUp(t)
	tp := h.d.Topics()
	replies := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	pub := mqtttest.NewPublisher(t, b.URL())
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"slow","op":"mission.load","mission":{"name":"x"}}`))
	for i := 0; i < 3; i++ {
		_ = pub.Publish(tp.Cmd(), 1, false, []byte(fmt.Sprintf(`{"id":"stop-%d","op":"estop"}`, i)))
	}
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf(`"id":"stop-%d","ok":true`, i)
		mqtttest.Eventually(t, "the e-stop reply "+id, func() bool {
			for _, m := range replies.On(tp.Reply()) {
				if strings.Contains(string(m.Payload), id) {
					return true
				}
			}
			return false
		})
	}
}
