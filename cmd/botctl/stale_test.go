package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/protocol"
)

// A robot whose retained connection says ONLINE but whose last state is
// minutes old (its broker node died, and with it the last will) is shown
// stale; a fresh one is not.
func TestRobotsShowsStale(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	pub := mqtttest.NewPublisher(t, b.URL())
	for id, ts := range map[string]time.Time{"gone": time.Now().Add(-5 * time.Minute), "fresh": time.Now().Add(time.Minute)} {
		tp, _ := protocol.NewTopics("", id)
		h := protocol.Header{Robot: id, Seq: 1, TS: protocol.FormatTS(ts)}
		for topic, v := range map[string]any{
			tp.Connection(): protocol.ConnectionMsg{Header: h, State: protocol.ConnOnline},
			tp.State():      protocol.StateMsg{Header: h, State: protocol.State{Mode: protocol.ModeIdle, Errors: []protocol.StateError{}}},
		} {
			p, _ := json.Marshal(v)
			if err := pub.Publish(topic, protocol.QoSRetained, true, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := botctl(t, "robots", "--broker="+b.URL())
	if r.code != 0 {
		t.Fatalf("robots: %s", r)
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		switch {
		case strings.HasPrefix(l, "gone ") && !strings.Contains(l, "ONLINE (stale)"):
			t.Errorf("the old robot is not shown stale: %q", l)
		case strings.HasPrefix(l, "fresh ") && strings.Contains(l, "stale"):
			t.Errorf("the fresh robot is shown stale: %q", l)
		}
	}
	r = botctl(t, "robots", "--broker="+b.URL(), "--json")
	var rows []robotJSON
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	for _, row := range rows {
		if row.Stale != (row.ID == "gone") {
			t.Errorf("%s: stale %v in --json", row.ID, row.Stale)
		}
	}
}

// --broker takes several brokers, comma-separated: the first that answers
// is used, and a bad one in the list is a usage error.
func TestBrokerList(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	pub := mqtttest.NewPublisher(t, b.URL())
	tp, _ := protocol.NewTopics("", "listed")
	h := protocol.Header{Robot: "listed", Seq: 1, TS: protocol.FormatTS(time.Now())}
	p, _ := json.Marshal(protocol.ConnectionMsg{Header: h, State: protocol.ConnOnline})
	if err := pub.Publish(tp.Connection(), protocol.QoSRetained, true, p); err != nil {
		t.Fatal(err)
	}
	dead := mqtttest.StartBroker(t, "")
	deadURL := dead.URL()
	dead.Close()
	r := botctl(t, "robots", "--broker="+deadURL+","+b.URL())
	if r.code != 0 || !strings.Contains(r.stdout, "listed ") {
		t.Fatalf("robots with the first broker down: %s", r)
	}
	if r := botctl(t, "robots", "--broker="+b.URL()+",ftp://x:21"); r.code != exitUsage {
		t.Errorf("a bad URL in the list: exit %d, want %d\n%s", r.code, exitUsage, r)
	}
}
