package telemetry

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/botd-project/botd/missions"
)

func hasTopic(r *recorder, topic string, pred func(rmsg) bool) func() bool {
	return func() bool {
		return slices.ContainsFunc(r.on(topic), pred)
	}
}

func any_(rmsg) bool { return true }

// showsStatus matches a status message that carries node's new letter:
// in a delta, or in a keyframe (which takes the Source's pending changes
// with it when it comes first).
func showsStatus(node int32, letter byte) func(rmsg) bool {
	return func(m rmsg) bool {
		s, err := DecodeStatus(m.payload)
		if err != nil {
			return false
		}
		if s.IsKeyframe() {
			return int(node) < len(s.Keyframe) && s.Keyframe[node] == letter
		}
		return slices.Contains(s.Changes, NodeStatus{node, letter})
	}
}

// A ground station that subscribes after the daemon published finds
// connection, factsheet, state and tree retained.
func TestRetainedTopicsForLateSubscriber(t *testing.T) {
	b := startTestBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	tp := h.d.Topics()
	early := newRecorder(t, b.URL(), tp.Tree())
	eventually(t, "tree published", hasTopic(early, tp.Tree(), any_))

	late := newRecorder(t, b.URL(), tp.Connection(), tp.Factsheet(), tp.State(), tp.Tree())
	for _, topic := range []string{tp.Connection(), tp.Factsheet(), tp.State(), tp.Tree()} {
		eventually(t, "retained "+topic, hasTopic(late, topic, func(m rmsg) bool { return m.retained }))
	}
	c, err := DecodeConnection(late.on(tp.Connection())[0].payload)
	if err != nil || c.State != ConnOnline || c.Robot != "rover-1" || c.Seq == 0 {
		t.Errorf("connection: %+v %v", c, err)
	}
	f, err := DecodeFactsheet(late.on(tp.Factsheet())[0].payload)
	if err != nil || f.Version != "test" || f.Limits.TelemetryHz != 10 || f.Limits.MaxCommandBytes != 256<<10 || f.Limits.CommandBurst != 40 {
		t.Errorf("factsheet: %+v %v", f, err)
	}
	tr, err := DecodeTree(late.on(tp.Tree())[0].payload)
	if err != nil || tr.Mission != "m1" || len(tr.Nodes) != 4 {
		t.Errorf("tree: %+v %v", tr, err)
	}
	if _, err := DecodeState(late.on(tp.State())[0].payload); err != nil {
		t.Error(err)
	}

	// A clean stop leaves OFFLINE retained (the will is discarded).
	h.stop(t)
	after := newRecorder(t, b.URL(), tp.Connection())
	eventually(t, "retained OFFLINE", hasTopic(after, tp.Connection(), func(m rmsg) bool {
		off, err := DecodeConnection(m.payload)
		return m.retained && err == nil && off.State == ConnOffline && off.Seq == c.Seq+1
	}))
}

// Killing the daemon's TCP connection without a DISCONNECT makes the
// broker publish the retained last will; the daemon then reconnects and
// says ONLINE again.
func TestLastWillOnBrokenConnection(t *testing.T) {
	b := startTestBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	tp := h.d.Topics()
	watch := newRecorder(t, b.URL(), tp.Connection())
	eventually(t, "ONLINE", hasTopic(watch, tp.Connection(), func(m rmsg) bool { return state(m) == ConnOnline }))

	h.gate.set(true) // no reconnect yet
	h.gate.sever()
	eventually(t, "last will", hasTopic(watch, tp.Connection(), func(m rmsg) bool { return state(m) == ConnBroken }))
	eventually(t, "link down reported", func() bool { l, _ := h.links.last(); return !l.Broker })

	late := newRecorder(t, b.URL(), tp.Connection())
	eventually(t, "retained CONNECTION_BROKEN", hasTopic(late, tp.Connection(), func(m rmsg) bool {
		c, err := DecodeConnection(m.payload)
		return m.retained && err == nil && c.State == ConnBroken && c.Seq == 0
	}))

	watch.reset()
	h.gate.set(false)
	eventually(t, "ONLINE after reconnect", hasTopic(watch, tp.Connection(), func(m rmsg) bool { return state(m) == ConnOnline }))
}

func state(m rmsg) string {
	c, err := DecodeConnection(m.payload)
	if err != nil {
		return ""
	}
	return c.State
}

// The embedded broker restarts on the same port (forgetting everything):
// the daemon reconnects, republishes its retained topics, and follows
// with a status keyframe; deltas resume after it.
func TestKeyframeAfterBrokerRestart(t *testing.T) {
	b := startTestBroker(t, "")
	addr := b.Addr()
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	tp := h.d.Topics()

	b.Close()
	eventually(t, "link down", func() bool { return !h.d.currentConn().IsUp() })
	h.src.setStatus(1, 'R') // while down: coalesced by the Source
	h.src.setStatus(2, 'S')

	h.gate.set(true) // let the watcher subscribe first
	b2 := startTestBroker(t, addr)
	watch := newRecorder(t, b2.URL(), tp.Status(), tp.State())
	h.gate.set(false)

	eventually(t, "keyframe after reconnect", hasTopic(watch, tp.Status(), func(m rmsg) bool {
		s, err := DecodeStatus(m.payload)
		return err == nil && s.Keyframe == "IRSI"
	}))
	late := newRecorder(t, b2.URL(), tp.State(), tp.Tree(), tp.Factsheet())
	for _, topic := range []string{tp.State(), tp.Tree(), tp.Factsheet()} {
		eventually(t, "republished "+topic, hasTopic(late, topic, func(m rmsg) bool { return m.retained }))
	}

	h.src.setStatus(3, 'F')
	eventually(t, "status after keyframe", hasTopic(watch, tp.Status(), showsStatus(3, 'F')))
}

// Deltas carry only changes, never an empty list; seq rises by one per
// message.
func TestStatusDeltasAndSeq(t *testing.T) {
	b := startTestBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	tp := h.d.Topics()
	watch := newRecorder(t, b.URL(), tp.Status())
	h.waitUp(t)
	for i := range 4 {
		h.src.setStatus(int32(i), 'R')
		eventually(t, "status", hasTopic(watch, tp.Status(), showsStatus(int32(i), 'R')))
	}
	var last uint64
	for _, m := range watch.on(tp.Status()) {
		s, err := DecodeStatus(m.payload)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsKeyframe() && len(s.Changes) == 0 {
			t.Errorf("empty delta published: %s", m.payload)
		}
		if last != 0 && s.Seq != last+1 {
			t.Errorf("seq %d after %d", s.Seq, last)
		}
		last = s.Seq
	}
}

// state.request republishes everything with a keyframe, and is also
// forwarded to the command handler, whose reply is the one reply.
func TestStateRequest(t *testing.T) {
	b := startTestBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	tp := h.d.Topics()
	watch := newRecorder(t, b.URL(), tp.Status(), tp.Factsheet(), tp.Reply())
	watch.reset()
	h.src.setMode(missions.ModeRunning)
	g := newTestGround(t, b.URL(), nil)
	r, err := g.Send(context.Background(), "rover-1", missions.Command{Op: missions.OpStateRequest})
	if err != nil || !r.OK {
		t.Fatalf("reply %+v %v", r, err)
	}
	eventually(t, "keyframe", hasTopic(watch, tp.Status(), func(m rmsg) bool {
		s, _ := DecodeStatus(m.payload)
		return s.IsKeyframe()
	}))
	eventually(t, "factsheet again", hasTopic(watch, tp.Factsheet(), func(m rmsg) bool { return !m.retained }))
	if n := h.cmds.count(r.ID); n != 1 {
		t.Errorf("handler called %d times", n)
	}
	eventually(t, "one reply", func() bool { return len(watch.on(tp.Reply())) >= 1 })
	var reply ReplyMsg
	_ = json.Unmarshal(watch.on(tp.Reply())[0].payload, &reply)
	if reply.ID != r.ID || reply.Robot != "rover-1" {
		t.Errorf("reply %+v", reply)
	}
}

// Events without a broker are not lost, and the sink never blocks: a
// full queue counts a drop.
func TestEventSinkNeverBlocks(t *testing.T) {
	h := &harness{src: newFakeSource(0)}
	d, err := NewDaemon(DaemonConfig{Robot: "r", Conn: testConn("tcp://127.0.0.1:1"), StateDir: t.TempDir(),
		Source: h.src, Commands: &fakeHandler{}, EventQueue: 2})
	if err != nil {
		t.Fatal(err)
	}
	sink := d.EventSink()
	for range 5 { // not running: nothing drains the queue
		sink(missions.Event{Kind: "log", Message: "x"})
	}
	if m := d.Metrics(); m.Dropped.Events != 3 || m.Queues.Events != 2 {
		t.Errorf("metrics %+v", m)
	}
}
