package telemetry

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/internal/testutil"
	"github.com/botd-project/botd/telemetry/protocol"
)

// A daemon given two brokers is on the first; when that one goes, it is on
// the second: the link names it, a link.broker event says where from, and
// the retained connection, factsheet, state and tree are there although
// nobody asked for them (the second broker never had them).
func TestFailoverLinkURLEventAndRebirth(t *testing.T) {
	first := mqtttest.StartBroker(t, "")
	second := mqtttest.StartBroker(t, "")
	h := startDaemon(t, first.URL(), func(c *DaemonConfig) {
		c.Conn.Brokers = append(c.Conn.Brokers, second.URL())
		c.LinkGrace = 10 * time.Millisecond // the first connection may be short here
	})
	h.waitUp(t)
	mqtttest.Eventually(t, "the link on the first broker", func() bool {
		l, _ := h.links.last()
		return l.Broker && l.URL == first.URL()
	})
	rec := mqtttest.NewRecorder(t, second.URL(), "botd/v1/rover-1/#")

	first.Close()
	mqtttest.Eventually(t, "the link on the second broker", func() bool {
		l, _ := h.links.last()
		return l.Broker && l.URL == second.URL()
	})
	mqtttest.Eventually(t, "the link.broker event on the second broker", func() bool {
		for _, m := range rec.On("botd/v1/rover-1/events") {
			var e protocol.EventMsg
			if json.Unmarshal(m.Payload, &e) == nil && e.Kind == EventBrokerChanged &&
				e.Data["from"] == first.URL() && e.Data["to"] == second.URL() {
				return true
			}
		}
		return false
	})
	// What a subscriber that comes now finds there.
	late := mqtttest.NewRecorder(t, second.URL(), "botd/v1/rover-1/#")
	retained := func() map[string]bool {
		got := map[string]bool{}
		for _, m := range late.All() {
			if m.Retained {
				got[m.Topic[strings.LastIndex(m.Topic, "/")+1:]] = true
			}
		}
		return got
	}
	testutil.Eventually(t, mqtttest.WaitLong, "the retained topics on the second broker", func() bool {
		got := retained()
		return got[protocol.LeafConnection] && got[protocol.LeafFactsheet] && got[protocol.LeafState] && got[protocol.LeafTree]
	}, func() string {
		l, _ := h.links.last()
		return fmt.Sprintf("retained there: %v; the link: %+v; %d messages from the robot there since the switch", retained(), l, len(rec.All()))
	})
	for _, m := range late.On("botd/v1/rover-1/connection") {
		if c, err := protocol.DecodeConnection(m.Payload); err != nil || c.State != protocol.ConnOnline {
			t.Errorf("retained connection %s (%v)", m.Payload, err)
		}
	}
}
