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
	"github.com/botd-project/botd/telemetry/transport"
)

// replyByID waits for the reply to id and returns it.
func replyByID(t *testing.T, r *mqtttest.Recorder, topic, id string) protocol.ReplyMsg {
	t.Helper()
	var got protocol.ReplyMsg
	mqtttest.Eventually(t, "the reply to "+id, func() bool {
		for _, m := range r.On(topic) {
			if rm, err := protocol.DecodeReply(m.Payload); err == nil && rm.ID == id {
				got = rm
				return true
			}
		}
		return false
	})
	return got
}

// repliesPerID counts the replies by id.
func repliesPerID(t *testing.T, r *mqtttest.Recorder, topic string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, rm := range replies(t, r, topic) {
		n[rm.ID]++
	}
	return n
}

// An e-stop on cmd is obeyed whatever its ts, id or other members: each
// reaches the handler as an e-stop, past a rate limit that is used up,
// and is answered once, ok, with what was wrong in result.malformed.
func TestEStopWhateverItsFields(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.Clock = clockwork.NewFakeClockAt(now)
		c.CommandRate, c.CommandBurst = 0.001, 1
		c.MaxPayload = 1024
	})
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	// Use up the rate limit.
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"first","op":"mission.pause"}`))
	replyByID(t, watch, tp.Reply(), "first")

	cases := []struct {
		payload, id, malformed string
	}{
		{`{"id":"e1","op":"estop"}`, "e1", ""},
		{`{"id":"e2","op":"estop","ts":"2000-01-01T00:00:00Z"}`, "e2", ""}, // stale: obeyed
		{`{"id":"e3","op":"estop","ts":"2999-01-01T00:00:00Z"}`, "e3", ""}, // far ahead: obeyed
		{`{"id":"e4","op":"estop","ts":"noon"}`, "e4", "/ts"},
		{`{"id":"e5","op":"estop","start":"yes","mission_id":7}`, "e5", ""},
		{`{"id":"e6","op":"estop","x":1,"x":2}`, "e6", "/x: duplicate key"},
		{`{"id":"e7","op":"mission.start","op":"estop"}`, "e7", "/op: duplicate key"},
		{`{"op":"estop"}`, "", "missing id"},
		{`{"id":42,"op":"estop"}`, "", "id is not a string"},
		{`{"id":"e10","op":"estop"`, "e10", "unexpected end"},                              // truncated
		{`{"id":"e11","op":"\u0065stop"}`, "e11", ""},                                      // escaped
		{`{"id":"e12","op":"estop","pad":"` + strings.Repeat("p", 2000) + `"}`, "e12", ""}, // over MaxPayload
	}
	for i, c := range cases {
		before := h.cmds.ops(protocol.OpEStop)
		if err := pub.Publish(tp.Cmd(), 1, false, []byte(c.payload)); err != nil {
			t.Fatal(err)
		}
		mqtttest.Eventually(t, "e-stop "+c.payload+" engaged", func() bool { return h.cmds.ops(protocol.OpEStop) > before })
		mqtttest.Eventually(t, "its reply", func() bool { return len(watch.On(tp.Reply())) >= i+2 })
	}
	got := replies(t, watch, tp.Reply())
	if len(got) != len(cases)+1 {
		t.Fatalf("%d replies for %d commands", len(got), len(cases)+1)
	}
	for i, c := range cases {
		r := got[i+1]
		mal, _ := r.Result["malformed"].(string)
		if !r.OK || r.ID != c.id || (c.malformed == "") != (mal == "") || !strings.Contains(mal, c.malformed) {
			t.Errorf("%s: reply id %q ok %v result %v error %+v; want id %q, malformed %q", c.payload, r.ID, r.OK, r.Result, r.Error, c.id, c.malformed)
		}
	}
}

// Any payload on the estop topic engages the e-stop; one with a usable id
// is answered once, one without is not answered at all.
func TestEStopTopic(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	for _, p := range []string{"", "garbage", `{"op":"estop"}`, `{"id":"s1"}`, `{"id":"s2","op":"estop","ts":"1999-01-01T00:00:00Z"}`, `{"id":"s3","op":"mission.start"}`, `{"id":"s2","op":"estop","ts":"1999-01-01T00:00:00Z"}`} {
		before := h.cmds.ops(protocol.OpEStop)
		mqtttest.Eventually(t, "publish "+p, func() bool { return pub.Publish(tp.EStop(), 1, false, []byte(p)) == nil })
		mqtttest.Eventually(t, "e-stop "+p+" engaged", func() bool { return h.cmds.ops(protocol.OpEStop) > before })
	}
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"last","op":"state.request"}`))
	replyByID(t, watch, tp.Reply(), "last")
	// s2 came twice: a repeat is answered again.
	n := repliesPerID(t, watch, tp.Reply())
	if len(n) != 4 || n["s1"] != 1 || n["s2"] != 2 || n["s3"] != 1 || n["last"] != 1 {
		t.Errorf("replies per id %v; want s1 once, s2 twice, s3 once, last once, none without an id", n)
	}
	for _, r := range replies(t, watch, tp.Reply()) {
		if r.ID != "last" && !r.OK {
			t.Errorf("e-stop refused: %+v", r.Error)
		}
	}
	if h.d.Metrics().Dropped.Commands != 0 {
		t.Errorf("dropped %d", h.d.Metrics().Dropped.Commands)
	}
}

// The estop topic is read on a connection of its own: while the command
// intake is stuck and its queue full, an e-stop there still engages at
// once, and so does one on cmd.
func TestEStopPassesAFullQueue(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	release := make(chan struct{})
	handler := &selective{blockingHandler{release: release}}
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.Commands = handler
		c.CommandQueue = 4
	})
	defer close(release)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"slow","op":"mission.load","mission":{"name":"x"}}`))
	mqtttest.Eventually(t, "handler entered", handler.entered)
	for i := range 10 {
		_ = pub.Publish(tp.Cmd(), 1, false, fmt.Appendf(nil, `{"id":"q%d","op":"mission.pause"}`, i))
	}
	mqtttest.Eventually(t, "BUSY replies", func() bool { return len(watch.On(tp.Reply())) >= 6 })
	_ = pub.Publish(tp.EStop(), 1, false, []byte(`{"id":"x1"}`))
	if r := replyByID(t, watch, tp.Reply(), "x1"); !r.OK {
		t.Errorf("e-stop on the estop topic: %+v", r.Error)
	}
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"x2","op":"estop"}`))
	if r := replyByID(t, watch, tp.Reply(), "x2"); !r.OK {
		t.Errorf("e-stop on cmd: %+v", r.Error)
	}
}

// gatedHandler blocks its first call until released, and answers every
// other at once.
type gatedHandler struct {
	release chan struct{}
	once    sync.Once
	in      chan struct{}
	fakeHandler
}

func (g *gatedHandler) Do(ctx context.Context, c protocol.Command) protocol.Reply {
	first := false
	g.once.Do(func() { first = true })
	if first {
		close(g.in)
		select {
		case <-g.release:
		case <-ctx.Done():
		}
	}
	return g.fakeHandler.Do(ctx, c)
}

// A flood while the intake is stuck: the queue takes what it holds, every
// other command is answered BUSY at once, and once the intake moves on
// every command has had exactly one reply. The flood stays under the 1,024
// messages the embedded broker holds for one client (past them it drops,
// which would test the broker, not the daemon).
func TestFloodGetsOneReplyEach(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	g := &gatedHandler{release: make(chan struct{}), in: make(chan struct{})}
	const queue, n = 256, 1000
	h := startDaemon(t, b.URL(), func(c *DaemonConfig) {
		c.Commands = g
		c.CommandQueue = queue
		c.CommandRate, c.CommandBurst = 1e9, 1<<30
	})
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"stuck","op":"mission.pause"}`))
	select {
	case <-g.in:
	case <-time.After(mqtttest.WaitLong):
		t.Fatal("the handler was not called")
	}
	var sent []transport.Delivery
	for i := range n {
		d, err := pub.PublishAsync(tp.Cmd(), 1, false, fmt.Appendf(nil, `{"id":"f%d","op":"mission.pause"}`, i))
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, d)
	}
	for _, d := range sent {
		select {
		case <-d.Done():
		case <-time.After(mqtttest.WaitLong):
			t.Fatal("publish not completed")
		}
	}
	busy := func() int {
		k := 0
		for _, r := range replies(t, watch, tp.Reply()) {
			if !r.OK && r.Error.Code == protocol.ErrBusy {
				k++
			}
		}
		return k
	}
	mqtttest.Eventually(t, "BUSY for what the queue cannot hold", func() bool { return busy() >= n-queue })
	close(g.release)
	mqtttest.Eventually(t, "a reply for every command", func() bool { return len(repliesPerID(t, watch, tp.Reply())) >= n+1 })
	// Replies go out in order from one loop: once the reply to a later
	// command arrived, no earlier reply can still come.
	_ = pub.Publish(tp.Cmd(), 1, false, []byte(`{"id":"after","op":"mission.pause"}`))
	replyByID(t, watch, tp.Reply(), "after")
	per := repliesPerID(t, watch, tp.Reply())
	for i := range n {
		if id := fmt.Sprint("f", i); per[id] != 1 {
			t.Errorf("%s: %d replies", id, per[id])
		}
	}
	if k := busy(); k != n-queue {
		t.Errorf("%d BUSY, want %d", k, n-queue)
	}
	if got := g.count(""); got != queue+2 {
		t.Errorf("handler called %d times, want %d", got, queue+2)
	}
	if m := h.d.Metrics(); m.Dropped.Commands != 0 {
		t.Errorf("%d commands left without a reply", m.Dropped.Commands)
	}
}

// A reply the MQTT callback cannot even queue is counted.
func TestReplyQueueFullIsCounted(t *testing.T) {
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: newFakeSource(0), Commands: &fakeHandler{}, ReplyQueue: 2, CommandQueue: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		d.onCommand("", fmt.Appendf(nil, `{"id":"c%d","op":"mission.pause"}`, i))
	}
	// One queued command, two BUSY replies queued, two dropped.
	if len(d.cmds) != 1 || d.replyQ.len() != 2 || d.Metrics().Dropped.Commands != 2 {
		t.Errorf("queued %d commands, %d replies; dropped %d", len(d.cmds), d.replyQ.len(), d.Metrics().Dropped.Commands)
	}
	if r, _ := d.replyQ.take(); r.ID != "c1" || r.Error == nil || r.Error.Code != protocol.ErrBusy {
		t.Errorf("reply %+v", r)
	}
}

// An id names one command: the same command again gets the same reply,
// another command under it gets ID_REUSED and does nothing; an e-stop's
// id counts too.
func TestIDReused(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	tp := h.d.Topics()
	watch := mqtttest.NewRecorder(t, b.URL(), tp.Reply())
	h.waitUp(t)
	pub := mqtttest.NewPublisher(t, b.URL())
	send := func(p string) protocol.ReplyMsg {
		t.Helper()
		k := len(watch.On(tp.Reply()))
		if err := pub.Publish(tp.Cmd(), 1, false, []byte(p)); err != nil {
			t.Fatal(err)
		}
		mqtttest.Eventually(t, "the reply to "+p, func() bool { return len(watch.On(tp.Reply())) > k })
		return replies(t, watch, tp.Reply())[k]
	}
	first := send(`{"id":"r1","op":"mission.pause","ts":"` + protocol.FormatTS(time.Now()) + `"}`)
	again := send(`{"ts":"` + protocol.FormatTS(time.Now()) + `","op":"mission.pause","id":"r1"}`) // resent with a new ts
	other := send(`{"id":"r1","op":"mission.abort"}`)
	if !first.OK || !again.OK || fmt.Sprint(first.Result) != fmt.Sprint(again.Result) {
		t.Errorf("first %+v, repeat %+v", first.Reply, again.Reply)
	}
	if other.OK || other.Error.Code != protocol.ErrIDReused || other.ID != "r1" {
		t.Errorf("another command under r1: %+v %+v", other.Reply, other.Error)
	}
	send(`{"id":"r2","op":"estop"}`)
	if r := send(`{"id":"r2","op":"estop.reset"}`); r.OK || r.Error.Code != protocol.ErrIDReused {
		t.Errorf("estop.reset under the id of an e-stop: %+v", r.Error)
	}
	if n := h.cmds.ops(protocol.OpMissionAbort) + h.cmds.ops(protocol.OpEStopReset); n != 0 {
		t.Errorf("handler ran %d refused commands", n)
	}
	if n := h.cmds.count("r1"); n != 1 {
		t.Errorf("handler called %d times for r1", n)
	}
}

// The intake queue is bounded in bytes as well as in commands: large
// commands beyond CommandQueueBytes are answered BUSY at once, under
// their id, instead of holding CommandQueue × MaxPayload.
func TestCommandQueueBoundedInBytes(t *testing.T) {
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: mqtttest.Options("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: newFakeSource(0), Commands: &fakeHandler{}, CommandQueueBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", 100<<10)
	const n = 20 // 2 MB, twice the bound; 20 commands, far below CommandQueue
	for i := range n {
		d.onCommand("", fmt.Appendf(nil, `{"id":"c%d","op":"mission.pause","key":%q}`, i, pad))
	}
	queued := 0
	for range len(d.cmds) {
		queued += len((<-d.cmds).payload)
	}
	if queued > 1<<20 || queued == 0 {
		t.Errorf("%d bytes of commands queued, bound %d", queued, 1<<20)
	}
	busy := 0
	for range d.replyQ.len() {
		if r, _ := d.replyQ.take(); r.Error != nil && r.Error.Code == protocol.ErrBusy && strings.HasPrefix(r.ID, "c") {
			busy++
		}
	}
	if busy == 0 || queued/(len(pad)+40)+busy != n {
		t.Errorf("%d bytes queued (%d commands), %d answered BUSY; want all %d", queued, queued/(len(pad)+40), busy, n)
	}
}
