package telemetry

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
	"github.com/botd-project/botd/telemetry/protocol"
)

// A ground station lists the robot, watches its topics with typed
// callbacks, and gets the reply to what it sends.
func TestGroundSendRoundTrip(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	g := newTestGround(t, b.URL(), nil)
	roundTrip(t, g, h)

	mqtttest.Eventually(t, "robot listed", func() bool {
		rs := g.Robots()
		return len(rs) == 1 && rs[0].ID == "rover-1" && rs[0].Connection == protocol.ConnOnline && rs[0].State != nil
	})

	var mu sync.Mutex
	seen := map[string]int{}
	count := func(k string) {
		mu.Lock()
		seen[k]++
		mu.Unlock()
	}
	stop, err := g.Watch("rover-1", ground.RobotHandlers{
		Connection: func(protocol.ConnectionMsg) { count("connection") },
		Factsheet:  func(protocol.FactsheetMsg) { count("factsheet") },
		State:      func(protocol.StateMsg) { count("state") },
		Tree:       func(protocol.TreeMsg) { count("tree") },
		Status:     func(protocol.StatusMsg) { count("status") },
		Event:      func(protocol.EventMsg) { count("event") },
		Metrics:    func(protocol.MetricsMsg) { count("metrics") },
		Blackboard: func(m protocol.BlackboardMsg) {
			if len(m.Values) == 1 && m.Values[0].Key == "speed" && m.Mission == "m1" {
				count("blackboard")
			}
		},
		Error: func(topic string, err error) { t.Errorf("%s: %v", topic, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	h.src.mu.Lock()
	h.src.bb = []protocol.BlackboardValue{{Key: "speed", Value: 0.5, AgeMs: 12}}
	h.src.mu.Unlock()
	h.src.setStatus(2, 'F')
	h.d.EventSink()(protocol.Event{Kind: "mission.started", Level: "INFO", Message: "go"})
	for _, k := range []string{"connection", "factsheet", "state", "tree", "status", "event", "metrics", "blackboard"} {
		mqtttest.Eventually(t, "callback "+k, func() bool { mu.Lock(); defer mu.Unlock(); return seen[k] > 0 })
	}
	if err := stop(); err != nil {
		t.Error(err)
	}
}

func roundTrip(t *testing.T, g *ground.Client, h *harness) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mqtttest.WaitLong)
	defer cancel()
	r, err := g.Send(ctx, "rover-1", protocol.Command{Op: protocol.OpMissionPause})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK || r.ID == "" || r.Result["op"] != protocol.OpMissionPause {
		t.Errorf("reply %+v", r)
	}
	if h.cmds.count(r.ID) != 1 {
		t.Errorf("handler saw %d commands with id %s", h.cmds.count(r.ID), r.ID)
	}
}

// Ground station presence drives the daemon's link report: online with
// the station, offline when it closes, and offline through its last will
// when its connection dies.
func TestGCSPresenceDrivesLink(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	want := func(what string, ls protocol.LinkState) {
		t.Helper()
		mqtttest.Eventually(t, what, func() bool {
			l, ok := h.links.last()
			return ok && l.Broker == ls.Broker && l.GCSOnline == ls.GCSOnline
		})
	}
	want("broker up, no station", protocol.LinkState{Broker: true})

	g := newTestGround(t, b.URL(), func(c *ground.Config) { c.Presence = true })
	want("station online", protocol.LinkState{Broker: true, GCSOnline: true})
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	want("station closed", protocol.LinkState{Broker: true})

	gate := &mqtttest.NetGate{}
	g2 := newTestGround(t, b.URL(), func(c *ground.Config) {
		c.Presence = true
		c.GCS = "field"
		c.Conn.WrapConn = gate.Wrap
	})
	want("second station online", protocol.LinkState{Broker: true, GCSOnline: true})
	gate.Set(true)
	gate.Sever()
	want("station's last will", protocol.LinkState{Broker: true})
	gate.Set(false)
	want("station back", protocol.LinkState{Broker: true, GCSOnline: true})

	h.gate.Set(true)
	h.gate.Sever()
	want("broker lost", protocol.LinkState{})
	if l, _ := h.links.last(); l.DownSince.IsZero() {
		t.Error("broker lost without the time it was last heard from")
	}
	h.gate.Set(false)
	want("broker and station back", protocol.LinkState{Broker: true, GCSOnline: true})
	_ = g2
}

// A lost reply: the ground station resends the command with the same id
// and gets the reply the robot kept; the handler ran once.
func TestGroundResendsUntilReply(t *testing.T) {
	hole := &mqtttest.Blackhole{Topic: "botd/v1/rover-1/reply"}
	hole.On.Store(true)
	b := mqtttest.StartBroker(t, "", hole)
	h := startDaemon(t, b.URL(), nil)
	g := newTestGround(t, b.URL(), nil)
	type result struct {
		r   protocol.Reply
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := g.Send(context.Background(), "rover-1", protocol.Command{ID: "lost-1", Op: protocol.OpMissionAbort})
		done <- result{r, err}
	}()
	mqtttest.Eventually(t, "command handled", func() bool { return h.cmds.count("lost-1") == 1 })
	hole.On.Store(false)
	res := <-done
	if res.err != nil || !res.r.OK || res.r.ID != "lost-1" {
		t.Fatalf("reply %+v %v", res.r, res.err)
	}
	if n := h.cmds.count("lost-1"); n != 1 {
		t.Errorf("handler called %d times", n)
	}
}

// A ground station that connects late gets the robot's kept events, from
// before a restart too, then the live ones: in order, each once, seq
// going on across the boot.
func TestGroundEventHistory(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	dir := t.TempDir()
	rec := mqtttest.NewRecorder(t, b.URL(), "botd/v1/rover-1/events")
	first := startDaemon(t, b.URL(), func(c *DaemonConfig) { c.StateDir = dir })
	for i := 1; i <= 5; i++ {
		first.d.EventSink()(protocol.Event{Kind: "log", Level: "info", Message: fmt.Sprint("a", i)})
	}
	mqtttest.Eventually(t, "the first boot's events sent", func() bool { return len(rec.On("botd/v1/rover-1/events")) >= 5 })
	first.stop(t)
	second := startDaemon(t, b.URL(), func(c *DaemonConfig) { c.StateDir = dir })
	second.d.EventSink()(protocol.Event{Kind: "log", Level: "info", Message: "b1"})
	mqtttest.Eventually(t, "the second boot's event sent", func() bool { return len(rec.On("botd/v1/rover-1/events")) >= 6 })

	g := newTestGround(t, b.URL(), nil)
	var mu sync.Mutex
	var got []protocol.EventMsg
	h := &ground.History{Emit: func(m protocol.EventMsg) { mu.Lock(); got = append(got, m); mu.Unlock() }}
	defer h.Close()
	stop, err := g.Watch("rover-1", ground.RobotHandlers{Event: func(m protocol.EventMsg) {
		if h.Add(m) {
			go g.RequestEvents(context.Background(), "rover-1", h)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	second.d.EventSink()(protocol.Event{Kind: "log", Level: "info", Message: "c1"})
	ctx, cancel := context.WithTimeout(context.Background(), mqtttest.WaitLong)
	defer cancel()
	rep, err := g.RequestEvents(ctx, "rover-1", h)
	if err != nil || !rep.OK {
		t.Fatalf("events.request: %+v %v", rep, err)
	}
	for _, m := range []string{"c2", "c3"} {
		second.d.EventSink()(protocol.Event{Kind: "log", Level: "info", Message: m})
	}
	want := []string{"a1", "a2", "a3", "a4", "a5", "b1", "c1", "c2", "c3"}
	mqtttest.Eventually(t, "every event", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= len(want)
	})
	// The outbox sends in order: a duplicate of the replay would come
	// before one more live event.
	second.d.EventSink()(protocol.Event{Kind: "log", Level: "info", Message: "c4"})
	want = append(want, "c4")
	mqtttest.Eventually(t, "the last event", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) > 0 && got[len(got)-1].Message == "c4"
	})
	mu.Lock()
	defer mu.Unlock()
	var msgs []string
	for i, m := range got {
		msgs = append(msgs, m.Message)
		if m.Seq != uint64(i+1) {
			t.Errorf("event %q has seq %d, want %d", m.Message, m.Seq, i+1)
		}
	}
	if fmt.Sprint(msgs) != fmt.Sprint(want) {
		t.Errorf("events %v, want %v", msgs, want)
	}
	if got[0].Boot != 1 || got[len(got)-1].Boot != 2 {
		t.Errorf("boots %d … %d, want 1 … 2", got[0].Boot, got[len(got)-1].Boot)
	}
}
