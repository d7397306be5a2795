package telemetry

import (
	"testing"

	"github.com/botd-project/botd/internal/mqtttest"
	"github.com/botd-project/botd/telemetry/ground"
)

// Two ground-station processes of one operator, each with its own id:
// one quitting clears its own presence (the daemon forgets it) and the
// robot keeps its operator link through the other; the last one leaving
// ends it. Presences of processes gone are not kept.
func TestGCSPresencePerProcess(t *testing.T) {
	b := mqtttest.StartBroker(t, "")
	h := startDaemon(t, b.URL(), nil)
	h.waitUp(t)
	station := func(id string) *ground.Client {
		return newTestGround(t, b.URL(), func(c *ground.Config) { c.Presence, c.GCS, c.Conn.ClientID = true, id, id })
	}
	known := func(id string) bool {
		h.d.presenceMu.Lock()
		defer h.d.presenceMu.Unlock()
		_, ok := h.d.presence[id]
		return ok
	}
	watch, dash := station("botd-gcs-alice-0001"), station("botd-gcs-alice-0002")
	mqtttest.Eventually(t, "both stations known", func() bool { return known("botd-gcs-alice-0001") && known("botd-gcs-alice-0002") })
	mqtttest.Eventually(t, "station online", func() bool { l, _ := h.links.last(); return l.GCSOnline })
	h.links.mu.Lock()
	before := len(h.links.all)
	h.links.mu.Unlock()

	if err := watch.Close(); err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "the closed station forgotten", func() bool { return !known("botd-gcs-alice-0001") })
	if ls := h.d.linkState(h.d.currentConn()); !ls.GCSOnline {
		t.Fatalf("link %+v after one of two stations quit", ls)
	}
	h.links.mu.Lock()
	for _, l := range h.links.all[before:] {
		if !l.GCSOnline {
			t.Errorf("the link went %+v when one of two stations quit", l)
		}
	}
	h.links.mu.Unlock()

	if err := dash.Close(); err != nil {
		t.Fatal(err)
	}
	mqtttest.Eventually(t, "no station left", func() bool { l, _ := h.links.last(); return l.Broker && !l.GCSOnline })
	if known("botd-gcs-alice-0002") {
		t.Error("a station gone is still kept")
	}
}
