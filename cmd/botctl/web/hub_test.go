package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

func treeMsg(robot, mission string, n int) protocol.TreeMsg {
	m := protocol.TreeMsg{Header: hdr(robot, 1), TreeInfo: protocol.TreeInfo{Mission: mission}}
	for i := range n {
		m.Nodes = append(m.Nodes, protocol.TreeNode{Index: int32(i), ID: fmt.Sprint("n", i), Type: "Sequence", Name: fmt.Sprint("node ", i), Parent: int32(i) - 1})
	}
	return m
}

func keyframe(robot, mission string, seq uint64, letters string) protocol.StatusMsg {
	return protocol.StatusMsg{Header: hdr(robot, seq), Mission: mission, Tick: seq * 10, Keyframe: letters}
}

func delta(robot, mission string, seq uint64, changes ...protocol.NodeStatus) protocol.StatusMsg {
	return protocol.StatusMsg{Header: hdr(robot, seq), Mission: mission, Tick: seq * 10, Changes: changes}
}

func TestStreamWithoutRobot(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	_, ts := newTestServer(t, f, func(o *Options) { o.Robot = "rover-1" })
	st := openStream(t, ts.URL+"/api/stream")
	var hello helloFrame
	st.next("hello").decode(t, &hello)
	if hello.Robot != "" || hello.Preselect != "rover-1" {
		t.Fatalf("hello %+v", hello)
	}
	var robots []robotSummary
	st.next("robots").decode(t, &robots)
	if len(robots) != 1 || robots[0].ID != "rover-1" || !robots[0].Online {
		t.Fatalf("robots %+v", robots)
	}
	// A change of the list is pushed.
	f.setRobots(online("rover-1", nil), online("rover-2", nil))
	st.next("robots").decode(t, &robots)
	if len(robots) != 2 {
		t.Fatalf("robots %+v", robots)
	}
	if w, _ := f.counts(); w != 0 {
		t.Fatalf("%d watches without a robot", w)
	}
	res, _ := get(t, ts.URL+"/api/stream?robot=not%20a%20robot", nil)
	if res.StatusCode != 400 {
		t.Fatalf("bad robot: %s", res.Status)
	}
}

func TestStreamCarriesEverything(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	_, ts := newTestServer(t, f, nil)
	st := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st.next("telemetry") // end of the (empty) snapshot
	h := f.h(t, "rover-1")

	h.Connection(protocol.ConnectionMsg{Header: hdr("rover-1", 1), State: protocol.ConnOnline})
	var conn protocol.ConnectionMsg
	st.next("connection").decode(t, &conn)
	if conn.State != protocol.ConnOnline {
		t.Fatalf("connection %+v", conn)
	}

	h.Factsheet(protocol.FactsheetMsg{Header: hdr("rover-1", 1), Version: "1.2.3"})
	var fs factsheetFrame
	st.next("factsheet").decode(t, &fs)
	if fs.Version != "1.2.3" {
		t.Fatalf("factsheet %+v", fs)
	}

	h.State(protocol.StateMsg{Header: hdr("rover-1", 1), State: protocol.State{Mode: protocol.ModePaused}})
	var state protocol.StateMsg
	st.next("state").decode(t, &state)
	if state.Mode != protocol.ModePaused {
		t.Fatalf("state %+v", state)
	}

	h.Tree(treeMsg("rover-1", "m1", 3))
	var tree protocol.TreeMsg
	st.next("tree").decode(t, &tree)
	if tree.Mission != "m1" || len(tree.Nodes) != 3 {
		t.Fatalf("tree %+v", tree)
	}
	var sf statusFrame
	st.next("status").decode(t, &sf)
	if sf.Keyframe != "III" || sf.Known {
		t.Fatalf("status with the tree: %+v", sf)
	}

	h.Status(keyframe("rover-1", "m1", 1, "RSI"))
	st.next("status").decode(t, &sf)
	if sf.Keyframe != "RSI" || !sf.Known {
		t.Fatalf("keyframe %+v", sf)
	}
	h.Status(delta("rover-1", "m1", 2, protocol.NodeStatus{Node: 2, Status: 'F'}))
	sf = statusFrame{}
	st.next("status").decode(t, &sf)
	if sf.Keyframe != "" || len(sf.Changes) != 1 || sf.Changes[0] != (protocol.NodeStatus{Node: 2, Status: 'F'}) {
		t.Fatalf("delta %+v", sf)
	}

	h.Blackboard(protocol.BlackboardMsg{Header: hdr("rover-1", 1), Values: []protocol.BlackboardValue{{Key: "k", Value: 1.5, AgeMs: 20}}})
	var bb protocol.BlackboardMsg
	st.next("blackboard").decode(t, &bb)
	if len(bb.Values) != 1 || bb.Values[0].Key != "k" {
		t.Fatalf("blackboard %+v", bb)
	}

	ev := protocol.EventMsg{Header: hdr("rover-1", 1), ID: "e1", Event: protocol.Event{Kind: "log", Level: "info", Message: "hello"}}
	h.Event(ev)
	h.Event(ev) // a resend: shown once
	ev2 := ev
	ev2.ID, ev2.Message = "e2", "again"
	h.Event(ev2)
	var got protocol.EventMsg
	st.next("event").decode(t, &got)
	if got.ID != "e1" {
		t.Fatalf("event %+v", got)
	}
	st.next("event").decode(t, &got)
	if got.ID != "e2" {
		t.Fatalf("the resent event came twice: %+v", got)
	}

	h.Metrics(protocol.MetricsMsg{Header: hdr("rover-1", 1), Tick: protocol.TickSummary{Hz: 20, LastUs: 42}})
	var mm protocol.MetricsMsg
	st.next("metrics").decode(t, &mm)
	if mm.Tick.LastUs != 42 {
		t.Fatalf("metrics %+v", mm)
	}

	h.Reply(protocol.ReplyMsg{Header: hdr("rover-1", 1), Reply: protocol.Reply{ID: "c1", Error: &protocol.ReplyError{Code: "NO_MISSION"}}})
	var rep protocol.ReplyMsg
	st.next("reply").decode(t, &rep)
	if rep.ID != "c1" {
		t.Fatalf("reply %+v", rep)
	}

	// What could not be decoded is shown, not swallowed.
	h.Error("botd/v1/rover-1/state", fmt.Errorf("%w: json: cannot unmarshal string into mode", protocol.ErrBadPayload))
	var p problemFrame
	st.next("problem").decode(t, &p)
	if p.Topic != "botd/v1/rover-1/state" || !strings.Contains(p.Error, "cannot unmarshal") {
		t.Fatalf("problem %+v", p)
	}

	// A second tab gets it all as a snapshot.
	st2 := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	for _, name := range []string{"connection", "factsheet", "state", "tree", "status", "blackboard", "events", "metrics_history", "problems", "telemetry"} {
		e := st2.next(name, "hello", "robots")
		for e.Event == "hello" || e.Event == "robots" {
			e = st2.next(name, "hello", "robots")
		}
		switch name {
		case "status":
			e.decode(t, &sf)
			if sf.Keyframe != "RSF" || !sf.Known {
				t.Fatalf("snapshot status %+v", sf)
			}
		case "events":
			var evs []protocol.EventMsg
			e.decode(t, &evs)
			if len(evs) != 2 {
				t.Fatalf("snapshot events %+v", evs)
			}
		case "blackboard":
			e.decode(t, &bb)
			if bb.Values[0].AgeMs < 20 {
				t.Fatalf("snapshot blackboard ages went back: %+v", bb)
			}
		case "telemetry":
			var tf telemetryFrame
			e.decode(t, &tf)
			if tf.Problems != 1 {
				t.Fatalf("snapshot telemetry %+v", tf)
			}
		}
	}
	if w, _ := f.counts(); w != 1 {
		t.Fatalf("%d watches for two tabs of one robot", w)
	}

	// GET /api/robots/{robot} has the same view.
	res, body := get(t, ts.URL+"/api/robots/rover-1", nil)
	if res.StatusCode != 200 || !strings.Contains(body, `"keyframe":"RSF"`) || !strings.Contains(body, `"tabs":2`) {
		t.Fatalf("snapshot: %s %s", res.Status, body)
	}
	if res, _ := get(t, ts.URL+"/api/robots/rover-9", nil); res.StatusCode != 404 {
		t.Fatalf("snapshot of an unwatched robot: %s", res.Status)
	}
	if res, _ := get(t, ts.URL+"/api/robots/bad%20id", nil); res.StatusCode != 400 {
		t.Fatalf("snapshot of a bad id: %s", res.Status)
	}
}

// statusGapAfterNewTree serves rover-1 to a tab, sends it a new tree
// (which asks for one keyframe), the keyframe and two deltas with one lost
// between them, and returns once the tab's telemetry shows the gap.
func statusGapAfterNewTree(t *testing.T, f *fakeGround) (*httptest.Server, *stream, ground.RobotHandlers, telemetryFrame) {
	t.Helper()
	s, ts := newTestServer(t, f, nil)
	s.hub.retry.Store(int64(0))
	st := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st.next("telemetry")
	h := f.h(t, "rover-1")

	h.Tree(treeMsg("rover-1", "m1", 4))
	eventually(t, "a keyframe request for the new tree", func() bool { return f.count(protocol.OpStateRequest) == 1 })
	h.Status(keyframe("rover-1", "m1", 10, "RIII"))
	h.Status(delta("rover-1", "m1", 11, protocol.NodeStatus{Node: 1, Status: 'R'}))
	h.Status(delta("rover-1", "m1", 13, protocol.NodeStatus{Node: 2, Status: 'S'})) // 12 was lost
	var tf telemetryFrame
	for tf.StatusGaps == 0 {
		st.next("telemetry").decode(t, &tf)
	}
	return ts, st, h, tf
}

// A lost status delta must not leave a wrongly coloured tree: the hub
// asks the robot for a keyframe.
func TestStatusGapRequestsKeyframe(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	ts, st, h, tf := statusGapAfterNewTree(t, f)
	if tf.StatusGaps != 1 || !tf.AwaitingKeyframe {
		t.Fatalf("telemetry %+v", tf)
	}
	eventually(t, "a keyframe request after the gap", func() bool { return f.count(protocol.OpStateRequest) == 2 })
	for _, c := range f.commands() {
		if c.Robot != "rover-1" || (c.Cmd.Op != protocol.OpStateRequest && c.Cmd.Op != protocol.OpEventsRequest) {
			t.Fatalf("unexpected command %+v", c)
		}
	}
	h.Status(keyframe("rover-1", "m1", 14, "SSSS"))
	for tf.AwaitingKeyframe || tf.StatusGaps != 1 {
		st.next("telemetry").decode(t, &tf)
	}
	res, body := get(t, ts.URL+"/api/robots/rover-1", nil)
	if res.StatusCode != 200 || !strings.Contains(body, `"keyframe":"SSSS"`) {
		t.Fatalf("snapshot after the keyframe: %s", body)
	}
	// A daemon restart (seq back to 1) also asks for a keyframe.
	h.Status(delta("rover-1", "m1", 1, protocol.NodeStatus{Node: 0, Status: 'R'}))
	eventually(t, "a keyframe request after a restart", func() bool { return f.count(protocol.OpStateRequest) == 3 })
}

func TestKeyframeRequestsArePaced(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	release := make(chan struct{})
	f.reply = func(_ string, c protocol.Command) (protocol.Reply, error) {
		<-release
		return protocol.Reply{ID: c.ID, OK: true}, nil
	}
	s, ts := newTestServer(t, f, nil)
	s.hub.retry.Store(int64(time.Hour))
	st := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st.next("telemetry")
	h := f.h(t, "rover-1")
	h.Tree(treeMsg("rover-1", "m1", 2))
	for seq := uint64(1); seq < 50; seq += 2 { // a gap every time
		h.Status(delta("rover-1", "m1", seq, protocol.NodeStatus{Node: 0, Status: 'R'}))
	}
	eventually(t, "the first request", func() bool { return f.count(protocol.OpStateRequest) == 1 })
	close(release)
	time.Sleep(20 * time.Millisecond)
	if n := f.count(protocol.OpStateRequest); n != 1 {
		t.Fatalf("%d state.request for one burst of gaps", n)
	}
}

func TestWatchErrorEndsTheStream(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	f.watchErr = errors.New("broker says no")
	_, ts := newTestServer(t, f, nil)
	st := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	e := st.next("fatal")
	if !strings.Contains(e.Data, "broker says no") {
		t.Fatalf("fatal %s", e.Data)
	}
	if !st.ended(waitLong) {
		t.Fatal("the stream goes on after a fatal event")
	}
	f.mu.Lock()
	f.watchErr = nil
	f.mu.Unlock()
	st2 := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st2.next("telemetry") // the next tab tries again, and succeeds
}

func TestLingerThenUnwatch(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	s, ts := newTestServer(t, f, nil)
	s.hub.linger.Store(int64(30 * time.Millisecond))
	st := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st.next("telemetry")
	st.close()
	eventually(t, "the watch to end after the last tab", func() bool { _, stops := f.counts(); return stops == 1 })
	st2 := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st2.next("telemetry")
	if w, _ := f.counts(); w != 2 {
		t.Fatalf("%d watches, want a new one", w)
	}
	// A tab that comes back in time keeps the watch.
	s.hub.linger.Store(int64(time.Hour))
	st2.close()
	st3 := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st3.next("telemetry")
	if w, stops := f.counts(); w != 2 || stops != 1 {
		t.Fatalf("watches %d stops %d", w, stops)
	}
}

func TestSlowTabIsDropped(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	h := newHub(f, slog.New(slog.DiscardHandler), time.Now)
	defer h.close()
	sub, _, err := h.subscribe(context.Background(), "rover-1")
	if err != nil {
		t.Fatal(err)
	}
	fast, _, err := h.subscribe(context.Background(), "rover-1")
	if err != nil {
		t.Fatal(err)
	}
	hs := f.h(t, "rover-1")
	for i := range subscriberBuf + 10 {
		hs.Metrics(protocol.MetricsMsg{Header: hdr("rover-1", uint64(i+1))})
		select {
		case <-fast.ch:
		default:
		}
	}
	select {
	case <-sub.gone:
	default:
		t.Fatal("a tab that does not read is not dropped")
	}
	select {
	case <-fast.gone:
		t.Fatal("a tab that reads was dropped")
	default:
	}
	h.unsubscribe("rover-1", sub)
	h.unsubscribe("rover-1", sub) // twice is harmless
}

func TestHubClose(t *testing.T) {
	f := newFakeGround(online("rover-1", nil), online("rover-2", nil))
	h := newHub(f, slog.New(slog.DiscardHandler), time.Now)
	a, _, err := h.subscribe(context.Background(), "rover-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.subscribe(context.Background(), "rover-2"); err != nil {
		t.Fatal(err)
	}
	h.close()
	h.close()
	select {
	case <-a.gone:
	default:
		t.Fatal("tabs stay after close")
	}
	if w, s := f.counts(); w != 2 || s != 2 {
		t.Fatalf("watches %d stops %d", w, s)
	}
	if _, _, err := h.subscribe(context.Background(), "rover-1"); err == nil {
		t.Fatal("subscribe after close works")
	}
	if h.goBackground(func(context.Context) {}) {
		t.Fatal("background work starts after close")
	}
}

// The dashboard asks a robot for its kept events when it starts watching
// it and shows them before the live ones, in seq order, each once.
func TestHubEventHistory(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	asked := make(chan uint64, 4)
	f.reply = func(robot string, c protocol.Command) (protocol.Reply, error) {
		if c.Op == protocol.OpEventsRequest {
			asked <- c.SinceSeq
			return protocol.Reply{ID: c.ID, OK: true, Result: map[string]any{"count": 3.0, "first_seq": 4.0, "to_seq": 6.0, "last_seq": 6.0, "boot": 2.0}}, nil
		}
		return protocol.Reply{ID: c.ID, OK: true}, nil
	}
	_, ts := newTestServer(t, f, nil)
	st := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st.next("telemetry") // the end of the snapshot: the robot is watched
	h := f.h(t, "rover-1")
	select {
	case since := <-asked:
		if since != 0 {
			t.Fatalf("events.request since %d, want 0", since)
		}
	case <-time.After(waitLong):
		t.Fatal("no events.request")
	}
	evt := func(seq uint64, boot uint64) protocol.EventMsg {
		m := protocol.EventMsg{Header: hdr("rover-1", seq), ID: fmt.Sprint("e", seq), Event: protocol.Event{Kind: "log", Level: "info", Message: fmt.Sprint("n", seq)}}
		m.Boot = boot
		return m
	}
	h.Event(evt(7, 2)) // live, before the replay came: waits
	h.Event(evt(4, 1))
	h.Event(evt(5, 1))
	h.Event(evt(5, 1)) // a duplicate
	h.Event(evt(6, 2))
	h.Event(evt(7, 2)) // the live one again, replayed
	h.Event(evt(8, 2))
	var seqs []uint64
	for len(seqs) < 5 {
		var m protocol.EventMsg
		st.next("event").decode(t, &m)
		seqs = append(seqs, m.Seq)
	}
	// The tabs learn what the robot answered (in the snapshot, or as a
	// frame if it came later).
	eventually(t, "the history answer in the snapshot", func() bool {
		_, body := get(t, ts.URL+"/api/robots/rover-1", nil)
		return strings.Contains(body, `"history":{"count":3,"first_seq":4,"to_seq":6,"last_seq":6,"boot":2}`)
	})
	if fmt.Sprint(seqs) != "[4 5 6 7 8]" {
		t.Fatalf("events %v, want 4 to 8 once each", seqs)
	}
}

// A robot watched before it (or the broker) was there: the first history
// request gets no answer; the robot coming online asks again.
func TestHubHistoryAgainWhenTheRobotComes(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	var mu sync.Mutex
	answer := false
	f.reply = func(robot string, c protocol.Command) (protocol.Reply, error) {
		mu.Lock()
		defer mu.Unlock()
		if c.Op == protocol.OpEventsRequest && !answer {
			return protocol.Reply{}, fmt.Errorf("no reply")
		}
		return protocol.Reply{ID: c.ID, OK: true, Result: map[string]any{"count": 0.0, "last_seq": 7.0, "boot": 1.0}}, nil
	}
	_, ts := newTestServer(t, f, nil)
	st := openStream(t, ts.URL+"/api/stream?robot=rover-1")
	st.next("telemetry")
	eventually(t, "the first request", func() bool { return f.count(protocol.OpEventsRequest) == 1 })
	eventually(t, "its failure shown", func() bool {
		_, body := get(t, ts.URL+"/api/robots/rover-1", nil)
		return strings.Contains(body, `"error":"no reply"`)
	})
	mu.Lock()
	answer = true
	mu.Unlock()
	f.h(t, "rover-1").Connection(protocol.ConnectionMsg{Header: hdr("rover-1", 2), State: protocol.ConnOnline})
	eventually(t, "the history asked again and answered", func() bool {
		_, body := get(t, ts.URL+"/api/robots/rover-1", nil)
		return f.count(protocol.OpEventsRequest) == 2 && strings.Contains(body, `"history":{"count":0,"last_seq":7,"boot":1}`)
	})
}

// A gap found while the keyframe request for the new tree is still out
// is asked for when that request ends: the robot sends no further status
// (its tree stopped changing) that would ask for it.
func TestStatusGapWhileAKeyframeRequestIsOut(t *testing.T) {
	f := newFakeGround(online("rover-1", nil))
	release := make(chan struct{})
	f.reply = func(_ string, c protocol.Command) (protocol.Reply, error) {
		if c.Op == protocol.OpStateRequest {
			<-release
		}
		return protocol.Reply{ID: c.ID, OK: true}, nil
	}
	statusGapAfterNewTree(t, f)
	if n := f.count(protocol.OpStateRequest); n != 1 {
		t.Fatalf("%d keyframe requests while one was out", n)
	}
	close(release)
	eventually(t, "a keyframe request after the one out ended", func() bool { return f.count(protocol.OpStateRequest) == 2 })
}
